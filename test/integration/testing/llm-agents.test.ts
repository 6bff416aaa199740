/**
 * `a2a-temporal/testing` for LLM agents: a project's agent runs on `startTestEnvironment` with its
 * `model` option pointed at the shipped scripted fake model (a real OpenAI-compatible HTTP server);
 * the script's turns call a tool that waits for approval, then answer, as README's section shows.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  startFakeModelServer,
  startTestEnvironment,
  stateOf,
  textOf,
  type FakeModelServer,
  type TestEnvironment,
} from '../../../src/testing/index.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const temp = useTempDirs();

const AGENTS = `import { defineLlmAgent, defineTool } from '${ROOT}src/index.ts';
import { z } from 'zod';

export const shopper = defineLlmAgent({
  name: 'shopper',
  description: 'Orders things',
  skills: [{ id: 'shop', name: 'Shop', description: 'Orders things', tags: ['llm'] }],
  instructions: 'You order what the user asks for.',
  tools: {
    place_order: defineTool({
      description: 'Orders an item',
      input: z.object({ item: z.string(), quantity: z.number() }),
      activity: 'placeOrder',
      approval: 'always',
    }),
  },
});

export default [shopper];
`;

const ACTIVITIES = `export async function placeOrder(order: { item: string; quantity: number }) {
  return \`Order placed: \${order.quantity} x \${order.item}\`;
}
`;

let model: FakeModelServer;
let env: TestEnvironment;

beforeAll(async () => {
  const dir = temp.make('a2a-testing-llm-');
  // The project's own zod, as an installed project has it.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'agents.ts'), AGENTS);
  writeFileSync(join(dir, 'activities.ts'), ACTIVITIES);
  writeFileSync(
    join(dir, 'a2a-temporal.config.ts'),
    `export default { agents: './agents.ts', activities: './activities.ts' };\n`,
  );
  model = await startFakeModelServer();
  env = await startTestEnvironment({
    config: dir,
    temporalAddress: inject('temporalAddress'),
    model: { baseURL: model.url, model: 'fake-model' },
  });
});

afterAll(async () => {
  await env?.stop();
  await model?.close();
});

describe('testing an LLM agent', () => {
  it('runs the scripted turns: a tool call that waits for approval, then the answer', async () => {
    model.script(
      { toolCalls: [{ name: 'place_order', arguments: { item: 'keyboard', quantity: 3 } }] },
      { text: 'Ordered 3 keyboards.' },
    );
    const shopper = env.agent('shopper');
    const task = await shopper.send('Order 3 keyboards');
    expect(stateOf(task)).toBe('input-required');
    const done = await shopper.reply(task.id, 'approve');
    expect(stateOf(done)).toBe('completed');
    expect(textOf(done.status.message!.parts)).toBe('Ordered 3 keyboards.');
    expect(JSON.stringify(model.requests[1]!.body.messages.at(-1))).toContain('Order placed: 3 x keyboard');
  });
});
