/**
 * A human-in-the-loop approval: assess the expense, ask a human to approve it (waiting durably,
 * for days if need be), then record the decision.
 */
import type * as activities from '../activities/expense.js';
import { defineAgent, type DeadlineOutcome, type Duration } from 'a2a-temporal';

export interface ExpenseApprovalOptions {
  /** Agent (and workflow type) name. */
  name?: string;
  /** How long the approver has. */
  deadline?: Duration;
  /** What happens when no one answers in time. */
  onDeadline?: DeadlineOutcome;
}

export function expenseApprovalAgent(options: ExpenseApprovalOptions = {}) {
  return defineAgent({
    name: options.name ?? 'expense-approval',
    description: 'Assesses an expense request and waits for a human to approve or deny it.',
    skills: [
      {
        id: 'approve-expense',
        name: 'Expense approval',
        description: 'Approve or deny an expense, with an approval record as the result.',
        tags: ['approval', 'human-in-the-loop'],
        examples: ['Please approve an expense of 120 USD for a team lunch'],
      },
    ],
    async run(ctx) {
      const { assessExpense } = ctx.activities<typeof activities>({ startToCloseTimeout: '1 minute' });
      ctx.status('Assessing the expense');
      const expense = await assessExpense(ctx.message.text);
      if (!expense) return ctx.reject('I could not find an amount and currency (e.g. "120 USD") in the request.');

      let question = `Approve the expense of ${expense.amount} ${expense.currency} for ${expense.purpose}? Reply "approve" or "deny".`;
      for (;;) {
        const reply = await ctx.ask({
          question,
          deadline: options.deadline ?? '72 hours',
          onDeadline: options.onDeadline ?? { kind: 'reject', reason: 'No decision before the approval deadline' },
        });
        const decision = reply.text.trim().toLowerCase();
        // An answer without a name is recorded as the task's timeline records it.
        const decidedBy = reply.responder ?? 'user';
        if (decision.startsWith('approve')) {
          ctx.artifact({
            name: 'approval-record',
            data: { ...expense, decision: 'approved', decidedBy, decidedAt: new Date().toISOString() },
          });
          return `Approved: ${expense.amount} ${expense.currency} for ${expense.purpose}.`;
        }
        if (decision.startsWith('deny')) return ctx.reject(`Denied by ${decidedBy}.`);
        question = `Please reply "approve" or "deny" (got "${reply.text}").`;
      }
    },
  });
}

export const expenseApproval = expenseApprovalAgent();
