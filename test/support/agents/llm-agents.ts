/** LLM agents for the tests of retries merged with the defaults, usage and budgets. */
import { z } from 'zod';
import { defineLlmAgent } from '../../../src/workflows/llm-agent.js';
import { defineTool } from '../../../src/workflows/llm-tools.js';

const skills = [{ id: 'test', name: 'Test', description: 'Test agent', tags: ['test'] }];

const lookupPrice = defineTool({
  description: 'Unit price of an item',
  input: z.object({ item: z.string() }),
  activity: 'testLookupPrice',
});

/** Only the retries' first interval is its own: the attempt limits stay the defaults'. */
export const llmRetryAgent = defineLlmAgent({
  name: 'test-llm-retry',
  description: 'Partial retry options',
  skills,
  instructions: 'You check the warehouse.',
  model: 'fake-model',
  modelActivityOptions: { retry: { initialInterval: '100 milliseconds' } },
  tools: {
    check_warehouse: defineTool({
      description: 'Checks the warehouse',
      input: z.object({ key: z.string() }),
      activity: 'testBrokenTool',
      activityOptions: { retry: { initialInterval: '100 milliseconds' } },
    }),
  },
});

/** A budget of 100 tokens: the first model call (a few hundred) reaches it. */
export const llmBudgetAgent = defineLlmAgent({
  name: 'test-llm-budget',
  description: 'A token budget',
  skills,
  instructions: 'You look prices up.',
  model: 'fake-model',
  maxTokens: 100,
  tools: { lookup_price: lookupPrice },
});

/** Two model calls, then a human says whether to go on; the budget replaces maxSteps. */
export const llmCallBudgetAgent = defineLlmAgent({
  name: 'test-llm-call-budget',
  description: 'A model call budget',
  skills,
  instructions: 'You look prices up.',
  model: 'fake-model',
  maxModelCalls: 2,
  maxSteps: 3,
  tools: { lookup_price: lookupPrice },
});

/** No budget but its steps: two model calls, then a human says whether to go on. */
export const llmStepsAgent = defineLlmAgent({
  name: 'test-llm-steps',
  description: 'Few steps',
  skills,
  instructions: 'You look prices up.',
  model: 'fake-model',
  maxSteps: 2,
  tools: { lookup_price: lookupPrice },
});

/** Batches far apart: what reaches a client early is the first text, sent at once. */
export const llmBatchedAgent = defineLlmAgent({
  name: 'test-llm-batched',
  description: 'Streams in batches 5 s apart',
  skills,
  instructions: 'You answer.',
  model: 'fake-model',
  streamIntervalMs: 5_000,
});

/** On a provider the worker names (the fake Anthropic server), with settings of its own. */
export const llmProviderAgent = defineLlmAgent({
  name: 'test-llm-provider',
  description: 'Answers on a second provider',
  skills,
  instructions: 'You answer briefly.',
  model: 'anthropic:claude-sonnet-4-5',
  modelSettings: { temperature: 0.2, maxOutputTokens: 321 },
});

/** On an OpenAI-compatible server the worker names as a provider (README's createOpenAICompatible). */
export const llmCompatibleProviderAgent = defineLlmAgent({
  name: 'test-llm-compatible-provider',
  description: 'Answers on a provider of an OpenAI-compatible server',
  skills,
  instructions: 'You answer briefly.',
  model: 'local:fake-model',
  modelActivityOptions: { retry: { maximumAttempts: 1 } },
});

/** A tool whose approval reaches its approvers by webhook, with a reminder before its deadline, and escalates to erin. */
export const llmNotifyAgent = defineLlmAgent({
  name: 'test-llm-notify',
  description: 'Tool approvals notify their approvers',
  skills,
  instructions: 'You buy things for the user.',
  model: 'fake-model',
  tools: {
    place_order: defineTool({
      description: 'Orders items',
      input: z.object({ item: z.string(), quantity: z.number().int().positive(), total: z.number() }),
      activity: 'testPlaceOrder',
      approval: 'always',
      approvers: ['dave'],
      approvalDeadline: '30 seconds',
      notify: ['webhook'],
      remind: ['28 seconds before'],
      escalate: [{ after: '4 seconds', to: ['erin'] }],
    }),
  },
});

const order = z.object({ item: z.string(), quantity: z.number().int().positive(), total: z.number() });

/** A free lookup beside two orders, each approved by a group of its own: the model may ask for all three at once. */
export const llmParallelAgent = defineLlmAgent({
  name: 'test-llm-parallel',
  description: 'Tools in parallel, approvals at once',
  skills,
  instructions: 'You buy things for the user.',
  model: 'fake-model',
  tools: {
    lookup_price: lookupPrice,
    order_furniture: defineTool({
      description: 'Orders furniture',
      input: order,
      activity: 'testPlaceOrder',
      approval: 'always',
      approvers: ['group:facilities'],
      notify: ['webhook'],
    }),
    order_laptops: defineTool({
      description: 'Orders laptops',
      input: order,
      activity: 'testPlaceOrder',
      approval: 'always',
      approvers: ['group:it'],
      notify: ['webhook'],
    }),
  },
});

/** An order that two of finance must approve (a quorum of 2). */
export const llmQuorumAgent = defineLlmAgent({
  name: 'test-llm-quorum',
  description: 'A tool call two approvers must approve',
  skills,
  instructions: 'You buy things for the user.',
  model: 'fake-model',
  tools: {
    place_order: defineTool({
      description: 'Orders items',
      input: order,
      activity: 'testPlaceOrder',
      approval: 'always',
      approvers: ['group:finance'],
      quorum: 2,
    }),
  },
});

export const llmTestAgents = [
  llmParallelAgent,
  llmQuorumAgent,
  llmRetryAgent,
  llmBudgetAgent,
  llmCallBudgetAgent,
  llmStepsAgent,
  llmBatchedAgent,
  llmProviderAgent,
  llmCompatibleProviderAgent,
  llmNotifyAgent,
];
