/** The merge of a workflow task's memo and search attribute upserts (src/workflows/coalesced-upserts.ts). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coalesceUpserts } from '../../../src/workflows/coalesced-upserts.js';
import { defineLlmAgent } from '../../../src/workflows/llm-agent.js';
import { defineTool } from '../../../src/workflows/llm-tools.js';
import { PATCH } from '../../../src/workflows/task-patches.js';

type Command = Parameters<typeof coalesceUpserts>[0][number];
const payload = (text: string) => ({ metadata: {}, data: new TextEncoder().encode(text) });
const memo = (fields: Record<string, string>, update?: string): Command => ({
  modifyWorkflowProperties: {
    upsertedMemo: { fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, payload(v)])) },
  },
  ...(update && { eventGroupMarkers: [{ inboundUpdate: { inboundUpdateId: update } }] }),
});
const attributes = (fields: Record<string, string>): Command => ({
  upsertWorkflowSearchAttributes: {
    searchAttributes: { indexedFields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, payload(v)])) },
  },
});
const timer: Command = { cancelTimer: { seq: 1 } };
const update: Command = { updateResponse: { protocolInstanceId: 'u', completed: {} } };
const complete: Command = { completeWorkflowExecution: {} };

/** Commands as kinds, and each upsert's fields as text. */
function shape(commands: Command[]) {
  const text = (fields: Record<string, { data?: Uint8Array | null }>) =>
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, new TextDecoder().decode(v.data!)]));
  return commands.map((command) =>
    command.modifyWorkflowProperties
      ? { memo: text(command.modifyWorkflowProperties.upsertedMemo!.fields!), markers: command.eventGroupMarkers ?? [] }
      : command.upsertWorkflowSearchAttributes
        ? { attributes: text(command.upsertWorkflowSearchAttributes.searchAttributes!.indexedFields!) }
        : Object.keys(command)[0],
  );
}

describe('coalesced upserts', () => {
  it('merges each kind into its last upsert, a later value of a key winning', () => {
    const commands = [
      update,
      memo({ summary: 'working' }, 'u1'),
      attributes({ state: 'working', deadline: 'soon' }),
      timer,
      memo({ summary: 'completed' }, 'u1'),
      attributes({ state: 'completed' }),
      update,
      memo({ events: '[...]' }),
      complete,
    ];
    expect(shape(coalesceUpserts(commands))).toEqual([
      'updateResponse',
      'cancelTimer',
      { attributes: { state: 'completed', deadline: 'soon' } },
      'updateResponse',
      { memo: { summary: 'completed', events: '[...]' }, markers: [] },
      'completeWorkflowExecution',
    ]);
  });

  it('keeps the event group markers of the last upsert it merges into', () => {
    const merged = coalesceUpserts([memo({ a: '1' }), memo({ b: '2' }, 'u2')]);
    expect(shape(merged)).toEqual([
      { memo: { a: '1', b: '2' }, markers: [{ inboundUpdate: { inboundUpdateId: 'u2' } }] },
    ]);
  });

  it('leaves commands with at most one upsert of each kind as they are', () => {
    const commands = [memo({ a: '1' }), timer, attributes({ state: 'x' }), complete];
    expect(coalesceUpserts(commands)).toBe(commands);
  });
});

describe('the patches folded into the v8 release marker', () => {
  it('are exactly those before v8: a later one is asked with patched() of its own', () => {
    // A workflow with the release marker takes every patch listed here without having run it:
    // adding one here would make v8 histories take it on replay.
    expect(Object.values(PATCH).sort()).toEqual([
      'final-events-memo',
      'push-config-replaced',
      'push-failures-shown',
      'push-notifications',
      'settled-answer',
      'summary-memo',
      'temporal-status-for-outcome',
    ]);
  });
});

describe('an LLM agent defined where the config loads', () => {
  it('refuses a tool whose input has no JSON Schema, before any task runs', () => {
    const when = defineTool({ description: 'when', input: z.object({ at: z.date() }), activity: 'when' });
    expect(() =>
      defineLlmAgent({ name: 'dated', description: 'x', skills: [], instructions: 'x', tools: { when } }),
    ).toThrow(/Date/i);
  });
});
