/**
 * A model-driven agent: it looks products up (a free tool) and orders them (a tool that waits for a
 * human's approval when the order is over 100 EUR). Needs a model: A2A_MODEL_BASE_URL and A2A_MODEL.
 */
import { defineLlmAgent, defineTool } from 'a2a-temporal';
import { z } from 'zod';

const APPROVAL_LIMIT_EUR = 100;

export const purchasingAssistant = defineLlmAgent({
  name: 'purchasing-assistant',
  description: `Finds products in the catalog and orders them; orders over ${APPROVAL_LIMIT_EUR} EUR wait for a human's approval.`,
  skills: [
    {
      id: 'purchase',
      name: 'Purchasing',
      description: 'Looks products up and places orders, with approval over the limit.',
      tags: ['llm', 'approval', 'human-in-the-loop'],
      examples: ['Order 3 ergonomic keyboards for the new team'],
    },
  ],
  instructions: [
    'You are a purchasing assistant. Find products with lookup_product before you order them with place_order.',
    `Orders over ${APPROVAL_LIMIT_EUR} EUR wait for a human's approval. If an order is denied, say so and suggest an alternative.`,
    'If the request is ambiguous (which product, how many), ask the user with ask_user.',
  ].join(' '),
  tools: {
    lookup_product: defineTool({
      description: 'Finds products in the catalog by name; returns their SKU and unit price in EUR.',
      input: z.object({ query: z.string().describe('What to look for, e.g. "keyboard"') }),
      activity: 'lookupProduct',
    }),
    place_order: defineTool({
      description: 'Orders a quantity of one product by SKU at its catalog unit price.',
      input: z.object({ sku: z.string(), quantity: z.number().int().positive(), unitPrice: z.number().positive() }),
      activity: 'placeOrder',
      approval: ({ quantity, unitPrice }) =>
        quantity * unitPrice > APPROVAL_LIMIT_EUR
          ? `the order totals ${quantity * unitPrice} EUR, over the ${APPROVAL_LIMIT_EUR} EUR limit`
          : false,
      approvalDeadline: '2 days',
    }),
  },
});
