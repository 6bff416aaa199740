/** Activities of the purchasing assistant: a catalog lookup and the order. A real project calls its systems here. */
import { randomUUID } from 'node:crypto';

const CATALOG = [
  { sku: 'KB-ERGO-01', name: 'Ergonomic keyboard', unitPrice: 89 },
  { sku: 'MS-VERT-02', name: 'Vertical mouse', unitPrice: 39 },
  { sku: 'MN-27-4K', name: '27" 4K monitor', unitPrice: 329 },
  { sku: 'HS-NC-03', name: 'Noise-cancelling headset', unitPrice: 149 },
];

export async function lookupProduct({ query }: { query: string }): Promise<typeof CATALOG> {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return CATALOG.filter((product) => words.some((word) => product.name.toLowerCase().includes(word)));
}

export async function placeOrder(order: { sku: string; quantity: number; unitPrice: number }) {
  const product = CATALOG.find((candidate) => candidate.sku === order.sku);
  if (!product) throw new Error(`No product with SKU ${order.sku}`);
  return { orderId: randomUUID(), ...order, total: order.quantity * order.unitPrice };
}
