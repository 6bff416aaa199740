/**
 * An LLM agent's per-task budget of tokens and model calls. When the spend reaches it, the task
 * asks a human whether to go on (input-required, with the spend in the question) rather than fail;
 * "continue" grants the same budget again. Without `maxModelCalls`, the agent's `maxSteps` (default
 * 20) is its budget of model calls, so no loop runs unbounded and no limit is hidden. The spend is summed from the model calls' results
 * as the agent journal returns them, so a run after continue-as-new asks at the same steps as the
 * first did (the task's `metadata.usage` is written only by calls that really ran).
 */
import type { JsonObject } from '../protocol/wire.js';
import type { TokenUsage } from '../protocol/llm.js';

/** Model calls a task makes before a human is asked whether to go on, when its agent sets neither maxModelCalls nor maxSteps. */
export const DEFAULT_MAX_STEPS = 20;

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

  /** `maxSteps`: the model calls granted when `limits` has no `maxModelCalls` (tasks of earlier releases have none). */
  constructor(
    private readonly limits: BudgetLimits,
    private readonly maxSteps?: number,
  ) {
    this.tokenLimit = limits.maxTokens;
    this.callLimit = this.callBudget();
  }

  private callBudget(): number | undefined {
    return this.limits.maxModelCalls ?? this.maxSteps;
  }

  /** What the budget is, as the question's details show it: the steps' budget by its own name. */
  private inForce(): BudgetLimits & { maxSteps?: number } {
    return {
      ...this.limits,
      ...(this.limits.maxModelCalls === undefined && this.maxSteps !== undefined && { maxSteps: this.maxSteps }),
    };
  }

  spend(usage: TokenUsage | undefined): void {
    this.calls += 1;
    this.tokens += usage?.totalTokens ?? 0;
  }

  /** The limit the spend has reached ("1,000 tokens"), or undefined while within the budget. */
  reached(): string | undefined {
    if (this.callLimit !== undefined && this.calls >= this.callLimit) {
      // Named, so nobody wonders where a budget they never set comes from.
      const steps =
        this.limits.maxModelCalls === undefined ? ` (the agent's maxSteps, default ${DEFAULT_MAX_STEPS})` : '';
      return `${this.callLimit} model calls${steps}`;
    }
    if (this.tokenLimit !== undefined && this.tokens >= this.tokenLimit) return `${this.tokenLimit} tokens`;
    return undefined;
  }

  /** A human said continue: the same budget again, from what has been spent. */
  extend(): void {
    if (this.limits.maxTokens !== undefined) this.tokenLimit = this.tokens + this.limits.maxTokens;
    const calls = this.callBudget();
    if (calls !== undefined) this.callLimit = this.calls + calls;
  }

  question(limit: string): { question: string; details: JsonObject } {
    return {
      question: `This task has used ${this.spentText()}, reaching its budget of ${limit}. Reply "continue" to go on (with the same budget again) or "stop" to end the task.`,
      details: {
        budget: this.inForce(),
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
export function checkBudget(agent: string, limits: BudgetLimits & { maxSteps?: number }): void {
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new TypeError(`LLM agent "${agent}": ${name} must be a positive whole number, not ${String(value)}`);
    }
  }
}
