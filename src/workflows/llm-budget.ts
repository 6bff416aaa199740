/**
 * An LLM agent's optional per-task budget of tokens and model calls. When the spend reaches it, the
 * task asks a human whether to go on (input-required, with the spend in the question) rather than
 * fail; "continue" grants the same budget again. The spend is summed from the model calls' results
 * as the agent journal returns them, so a run after continue-as-new asks at the same steps as the
 * first did (the task's `metadata.usage` is written only by calls that really ran).
 */
import type { JsonObject } from '../protocol/wire.js';
import type { TokenUsage } from '../protocol/llm.js';

/** An LLM agent's budget per task: reaching one, the task asks a human whether to go on (docs/llm-agents.md). */
export interface BudgetLimits {
  /** Tokens (input and output) the task's model calls may use before a human is asked whether to go on. */
  maxTokens?: number;
  /** Model calls the task may make before a human is asked whether to go on. */
  maxModelCalls?: number;
}

export class ModelBudget {
  private tokens = 0;
  private calls = 0;
  private tokenLimit: number | undefined;
  private callLimit: number | undefined;

  constructor(private readonly limits: BudgetLimits) {
    this.tokenLimit = limits.maxTokens;
    this.callLimit = limits.maxModelCalls;
  }

  spend(usage: TokenUsage | undefined): void {
    this.calls += 1;
    this.tokens += usage?.totalTokens ?? 0;
  }

  /** The limit the spend has reached ("1,000 tokens"), or undefined while within the budget. */
  reached(): string | undefined {
    if (this.callLimit !== undefined && this.calls >= this.callLimit) return `${this.callLimit} model calls`;
    if (this.tokenLimit !== undefined && this.tokens >= this.tokenLimit) return `${this.tokenLimit} tokens`;
    return undefined;
  }

  /** A human said continue: the same budget again, from what has been spent. */
  extend(): void {
    if (this.limits.maxTokens !== undefined) this.tokenLimit = this.tokens + this.limits.maxTokens;
    if (this.limits.maxModelCalls !== undefined) this.callLimit = this.calls + this.limits.maxModelCalls;
  }

  question(limit: string): { question: string; details: JsonObject } {
    return {
      question: `This task has used ${this.spentText()}, reaching its budget of ${limit}. Reply "continue" to go on (with the same budget again) or "stop" to end the task.`,
      details: {
        budget: { ...this.limits },
        spent: { totalTokens: this.tokens, modelCalls: this.calls },
        answers: ['continue', 'stop'],
      },
    };
  }

  spentText(): string {
    return `${this.tokens} tokens in ${this.calls} model call${this.calls === 1 ? '' : 's'}`;
  }
}

/** Refuses a budget that is not a positive whole number where the agents are defined. */
export function checkBudget(agent: string, limits: BudgetLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new TypeError(`LLM agent "${agent}": ${name} must be a positive whole number, not ${String(value)}`);
    }
  }
}
