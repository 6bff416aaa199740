import { StreamResponse } from '@a2a-js/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { StreamPrinter } from '../../../src/cli/stream-printer.js';

beforeAll(() => {
  process.env.TZ = 'UTC';
});

const ids = { taskId: 't1', contextId: 'c1' };
const agentSays = (text: string) => ({ messageId: text, role: 'ROLE_AGENT', parts: [{ text }] });

function run(events: unknown[]) {
  const lines: string[] = [];
  const printer = new StreamPrinter(
    (line) => lines.push(line),
    () => new Date('2030-01-02T10:00:00Z'),
  );
  for (const event of events) printer.handle(StreamResponse.fromJSON(event));
  printer.flush(); // as send and chat do when the stream ends
  return { lines, outcome: printer.outcome };
}

describe('StreamPrinter', () => {
  it('prints one line per event and tracks the task to its interruption', () => {
    const { lines, outcome } = run([
      {
        task: {
          id: 't1',
          contextId: 'c1',
          status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2030-01-02T09:59:59Z' },
        },
      },
      { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING' } } },
      { statusUpdate: { ...ids, status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agentSays('Approve?') } } },
    ]);
    expect(lines).toEqual([
      '09:59:59  submitted       task t1',
      '10:00:00  working',
      '10:00:00  input-required  Approve?',
    ]);
    expect(outcome).toMatchObject({ taskId: 't1', contextId: 'c1', state: 'input-required', statusText: 'Approve?' });
    expect(outcome.snapshot?.id).toBe('t1');
  });

  it('prints a streamed artifact joined once its last chunk is in, and assembles it as one text part', () => {
    const chunk = (text: string, append: boolean, lastChunk: boolean) => ({
      artifactUpdate: { ...ids, artifact: { artifactId: 'r', name: 'answer', parts: [{ text }] }, append, lastChunk },
    });
    const { lines, outcome } = run([
      chunk('The ans', false, false),
      chunk('wer is ', true, false),
      chunk('42.', true, true),
      { statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED' } } },
    ]);
    expect(lines).toEqual(['10:00:00  artifact        answer: The answer is 42.', '10:00:00  completed']);
    expect(outcome.artifacts.get('r')?.parts.map((part) => part.content?.value)).toEqual(['The answer is 42.']);
  });

  it('prints what a streamed artifact has so far before another event, and the rest after it', () => {
    const chunk = (text: string, append: boolean, lastChunk: boolean) => ({
      artifactUpdate: { ...ids, artifact: { artifactId: 'r', name: 'report', parts: [{ text }] }, append, lastChunk },
    });
    const { lines } = run([
      chunk('Section 1', false, false),
      { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', message: agentSays('Still going') } } },
      chunk(', Section 2', true, true),
    ]);
    expect(lines).toEqual([
      '10:00:00  artifact        report: Section 1',
      '10:00:00  working         Still going',
      '10:00:00  artifact +      report: , Section 2',
    ]);
  });

  it("keeps the waiting question's details (its answers) from the status message", () => {
    const asks = {
      messageId: 'q',
      role: 'ROLE_AGENT',
      parts: [{ text: 'Approve?' }, { data: { tool: 'place_order', answers: ['approve', 'deny <reason>'] } }],
    };
    const { outcome } = run([
      { statusUpdate: { ...ids, status: { state: 'TASK_STATE_INPUT_REQUIRED', message: asks } } },
    ]);
    expect(outcome.statusDetails).toEqual({ tool: 'place_order', answers: ['approve', 'deny <reason>'] });
  });

  it('aligns multi-line text and shows data compactly', () => {
    const { lines } = run([
      { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', message: agentSays('one\ntwo') } } },
      { artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [{ data: { ok: true } }] } } },
    ]);
    expect(lines).toEqual([
      `10:00:00  working         one\n${' '.repeat(26)}two`,
      '10:00:00  artifact        a: {"ok":true}',
    ]);
  });

  it('keeps a direct message answer', () => {
    const { lines, outcome } = run([{ message: { ...agentSays('hello'), contextId: 'c9' } }]);
    expect(lines).toEqual(['10:00:00  message         hello']);
    expect(outcome.message?.contextId).toBe('c9');
    expect(outcome.contextId).toBe('c9');
    expect(outcome.state).toBeUndefined();
  });

  it('shows artifacts a snapshot already holds', () => {
    const { lines } = run([
      {
        task: {
          id: 't1',
          contextId: 'c1',
          status: { state: 'TASK_STATE_COMPLETED', timestamp: '2030-01-02T09:00:00Z', message: agentSays('Done') },
          artifacts: [{ artifactId: 'x', name: 'result', parts: [{ text: '42' }] }],
        },
      },
    ]);
    expect(lines).toEqual(['09:00:00  completed       task t1: Done', '09:00:00  artifact        result: 42']);
  });
});
