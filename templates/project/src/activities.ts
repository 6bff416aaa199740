/** The activities: all of the agents' I/O (models, APIs, databases) goes here. They run in Node. */
import { randomUUID } from 'node:crypto';

export interface Purchase {
  item: string;
  amount: number;
  currency: string;
}

/** Reads "Buy ITEM for AMOUNT CURRENCY". A real agent might ask a model here. */
export async function readPurchase(request: string): Promise<Purchase | undefined> {
  const match = /buy\s+(.+?)\s+for\s+(\d+(?:\.\d+)?)\s*([A-Z]{3})/i.exec(request);
  if (!match) return undefined;
  return { item: match[1]!, amount: Number(match[2]), currency: match[3]!.toUpperCase() };
}

/** Places the order. A real agent calls its purchasing system here. */
export async function placeOrder(purchase: Purchase): Promise<Purchase & { orderId: string }> {
  return { ...purchase, orderId: randomUUID() };
}
