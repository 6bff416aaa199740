import { Part, TaskState } from '@a2a-js/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandHint,
  clock,
  dateTime,
  knownState,
  partText,
  pendingQuestionOf,
  questionText,
  relative,
  shellWord,
  stateName,
  timelineOf,
} from '../../../src/cli/format.js';
import { renderTable, truncate } from '../../../src/cli/table.js';
import { exitCodeFor } from '../../../src/cli/commands/send.js';
import { ExitCode } from '../../../src/cli/errors.js';
import { isInterrupted, isSettled } from '../../../src/protocol/states.js';
import { completedTask, NOW, waitingTask } from '../../support/wire-tasks.js';

beforeAll(() => {
  // Local-time formatting under test: pin the zone.
  process.env.TZ = 'UTC';
});

describe('states', () => {
  it('names the numeric SDK enum the way the CLI accepts it', () => {
    expect(stateName(TaskState.TASK_STATE_INPUT_REQUIRED)).toBe('input-required');
    expect(stateName(TaskState.TASK_STATE_COMPLETED)).toBe('completed');
    expect(stateName(undefined)).toBe('unknown');
  });

  it('classifies states with the protocol predicates; send/reply exit 4 on an unsuccessful end', () => {
    expect(knownState(TaskState.TASK_STATE_AUTH_REQUIRED)).toBe('auth-required');
    expect(knownState(TaskState.TASK_STATE_UNSPECIFIED)).toBeUndefined();
    expect(isSettled('auth-required')).toBe(true);
    expect(isSettled('working')).toBe(false);
    expect(isInterrupted('input-required')).toBe(true);
    expect(isInterrupted('completed')).toBe(false);
    expect((['failed', 'rejected', 'canceled'] as const).map(exitCodeFor)).toEqual([4, 4, 4]);
    expect(exitCodeFor('completed')).toBe(ExitCode.Ok);
    expect(exitCodeFor(undefined)).toBe(ExitCode.Ok);
  });
});

describe('parts', () => {
  it.each([
    [{ text: 'hi' }, 'hi'],
    [{ data: { a: 1 } }, '{"a":1}'],
    [{ url: 'https://x/y.pdf', filename: 'y.pdf' }, '<https://x/y.pdf> (y.pdf)'],
    [{ raw: Buffer.from('abc').toString('base64'), mediaType: 'image/png' }, '[image/png, 3 bytes]'],
  ])('%j reads as %s', (json, text) => {
    expect(partText(Part.fromJSON(json))).toBe(text);
  });
});

describe('times', () => {
  it('formats local times', () => {
    expect(clock('2030-01-02T09:05:07Z')).toBe('09:05:07');
    expect(dateTime('2030-01-02T09:05:07Z')).toBe('2030-01-02 09:05:07');
    expect(clock('garbage')).toBe('--:--:--');
    expect(dateTime(undefined)).toBe('');
  });

  it('says how far away a time is, coarsely', () => {
    expect(relative('2030-01-05T12:30:00Z', NOW)).toBe('in 3d 2h');
    expect(relative('2030-01-02T09:55:00Z', NOW)).toBe('5m ago');
    expect(relative('2030-01-02T09:58:50Z', NOW)).toBe('1m 10s ago');
    expect(relative(NOW, NOW)).toBe('now');
  });
});

describe('task metadata', () => {
  it('reads the timeline, skipping malformed entries', () => {
    const timeline = timelineOf(waitingTask());
    expect(timeline.map((entry) => entry.state)).toEqual(['submitted', 'working', 'input-required']);
    expect(timelineOf(completedTask())).toEqual([]);
  });

  it('reads the pending question', () => {
    expect(pendingQuestionOf(waitingTask())).toMatchObject({ kind: 'input', responders: ['alice', 'bob'] });
    expect(pendingQuestionOf(completedTask())).toBeUndefined();
    expect(questionText(waitingTask({ metadata: {} }))).toBe('Approve 120 USD for lunch?');
  });
});

describe('tables', () => {
  it('aligns columns and trims trailing blanks', () => {
    expect(
      renderTable(
        ['A', 'LONGER'],
        [
          ['x', ''],
          ['yyyy', 'z'],
        ],
      ),
    ).toBe('A     LONGER\nx\nyyyy  z');
  });

  it('shrinks the widest column to fit, marking cuts', () => {
    const table = renderTable(['ID', 'MESSAGE'], [['1', 'a fairly long message that does not fit']], { maxWidth: 20 });
    for (const line of table.split('\n')) expect(line.length).toBeLessThanOrEqual(20);
    expect(table).toContain('…');
    expect(truncate('abcdef', 4)).toBe('abc…');
  });

  it('keeps cells on one line', () => {
    expect(renderTable(['X'], [['a\nb']])).toBe('X\na b');
  });
});

it('shell-quotes hint words only when needed', () => {
  expect(shellWord('3f0c-9a')).toBe('3f0c-9a');
  expect(shellWord("it's")).toBe(`'it'\\''s'`);
});

describe('commandHint', () => {
  it('names how the CLI was started, the agent, and a gateway that is not the default', () => {
    const npx = { npm_command: 'exec' };
    expect(commandHint('tasks show t1', {}, {})).toBe('a2a-temporal tasks show t1');
    expect(commandHint('tasks show t1', { agent: 'echo', gatewayUrl: 'http://127.0.0.1:8080' }, npx)).toBe(
      'npx a2a-temporal tasks show t1 --agent echo',
    );
    expect(commandHint('tasks show t1', { gatewayUrl: 'http://h:9000' }, {})).toBe(
      'a2a-temporal tasks show t1 --url http://h:9000',
    );
  });
});
