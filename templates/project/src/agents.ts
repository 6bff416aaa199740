/**
 * The agents. `run(ctx)` is a durable Temporal workflow: it survives restarts of everything, and
 * `ctx.ask` waits for a human for as long as it takes. Keep it deterministic: I/O goes in activities.
 */
import { defineAgent } from 'a2a-temporal';
import type * as activities from './activities.js';

export const purchaseApproval = defineAgent({
  name: 'purchase-approval', // also the workflow type in the Temporal UI
  description: 'Reads a purchase request, asks a human to approve it, then places the order.',
  skills: [
    {
      id: 'approve-purchase',
      name: 'Purchase approval',
      description: 'Approve or deny a purchase; an approved one is ordered.',
      tags: ['approval', 'human-in-the-loop'],
      examples: ['Buy 3 monitors for 450 EUR'],
    },
  ],
  async run(ctx) {
    const { readPurchase, placeOrder } = ctx.activities<typeof activities>({ startToCloseTimeout: '1 minute' });
    ctx.status('Reading the request');
    const purchase = await readPurchase(ctx.message.text);
    if (!purchase) return ctx.reject('Say what to buy and what it costs, e.g. "Buy 3 monitors for 450 EUR".');

    const reply = await ctx.ask({
      question: `Approve buying ${purchase.item} for ${purchase.amount} ${purchase.currency}? Reply "approve" or "deny".`,
      deadline: '3 days',
      onDeadline: { kind: 'reject', reason: 'Nobody approved the purchase within 3 days.' },
    }); // the task is input-required until someone answers
    if (!reply.text.trim().toLowerCase().startsWith('approve')) {
      return ctx.reject(`Denied by ${reply.responder ?? 'the approver'}.`);
    }

    const order = await placeOrder(purchase);
    ctx.artifact({ name: 'order', data: order });
    return `Ordered ${purchase.item} (order ${order.orderId}).`;
  },
});

export default [purchaseApproval];
