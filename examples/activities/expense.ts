/** Activities of the expense-approval agent. */

export interface ExpenseAssessment {
  amount: number;
  currency: string;
  purpose: string;
  /** Above the auto-approval limit: a human must approve. */
  needsApproval: boolean;
}

const AMOUNT = /(\d+(?:[.,]\d{1,2})?)\s*([A-Z]{3}|€|\$|£)/i;
const CURRENCY_SYMBOLS: Record<string, string> = { '€': 'EUR', $: 'USD', '£': 'GBP' };

/** Reads amount, currency and purpose from a free-text request. A real agent would call a model here. */
export async function assessExpense(request: string): Promise<ExpenseAssessment | undefined> {
  const match = AMOUNT.exec(request);
  if (!match) return undefined;
  const amount = Number(match[1]!.replace(',', '.'));
  const symbol = match[2]!;
  const currency = CURRENCY_SYMBOLS[symbol] ?? symbol.toUpperCase();
  const purpose = /\bfor\s+(?:an?\s+|the\s+)?(.+?)[.!?]*$/i.exec(request)?.[1] ?? 'unspecified purpose';
  return { amount, currency, purpose, needsApproval: amount > 0 };
}
