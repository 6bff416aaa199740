/** An agents module whose LLM agent names a tool activity no worker registers: the worker must refuse to start. */
import { z } from 'zod';
import { defineLlmAgent } from '../../../src/workflows/llm-agent.js';
import { defineTool } from '../../../src/workflows/llm-tools.js';

export default [
  defineLlmAgent({
    name: 'test-llm-misnamed-tool',
    description: 'A tool whose activity is misspelled',
    skills: [{ id: 'test', name: 'Test', description: 'Test agent', tags: ['test'] }],
    instructions: 'You look prices up.',
    tools: {
      lookup_price: defineTool({
        description: 'Unit price of an item',
        input: z.object({ item: z.string() }),
        activity: 'testLookupPrise',
      }),
    },
  }),
];
