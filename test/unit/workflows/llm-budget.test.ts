import { describe, expect, it } from 'vitest';
import { defineLlmAgent } from '../../../src/workflows/llm-agent.js';

const agent = { name: 'a', description: 'd', skills: [], instructions: 'i' };

describe("an LLM agent's budgets where the agents are defined", () => {
  it('refuses a maxSteps that is no positive whole number (it is a budget of model calls, asked again on "continue")', () => {
    expect(() => defineLlmAgent({ ...agent, maxSteps: 0 })).toThrow(
      'LLM agent "a": maxSteps must be a positive whole number, not 0',
    );
    expect(() => defineLlmAgent({ ...agent, maxModelCalls: 1.5 })).toThrow(
      /maxModelCalls must be a positive whole number/,
    );
  });
});
