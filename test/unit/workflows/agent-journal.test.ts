import { describe, expect, it } from 'vitest';
import { AgentJournal } from '../../../src/workflows/agent-journal.js';

describe('AgentJournal', () => {
  it('replays recorded effects without performing them again and resumes the unfinished step', async () => {
    const first = new AgentJournal();
    let performed = 0;
    first.effect('status', () => performed++);
    await first.step('activity:x', async () => 'x-result');
    void first.step('ask', () => new Promise<string>(() => {}));
    expect(first.onlyWaitingOn(['ask'])).toBe(true);

    const second = new AgentJournal(first.entries());
    second.effect('status', () => performed++);
    expect(await second.step('activity:x', async () => 'other')).toBe('x-result');
    expect(await second.step('ask', async (resumed) => (resumed ? 'resumed' : 'fresh'))).toBe('resumed');
    expect(performed).toBe(1);
  });

  it('keeps each lane of a parallel step on its own, whatever order they finished in, across continue-as-new', async () => {
    const first = new AgentJournal();
    await first.step('model', async () => 'tool calls');
    const answers: Record<string, (text: string) => void> = {};
    const places: string[] = [];
    let ran = 0;
    // Lane 0 waits for an answer, then runs its tool; lane 1 runs its tool at once; lane 2 waits.
    void first.parallel('tools', ['a', 'b', 'c'], async (name, lane) => {
      if (name === 'b') return lane.step('tool:b', async () => `b${++ran}`);
      const answer = await lane.step('ask', (_resumed, place) => {
        places.push(place);
        return new Promise<string>((resolve) => (answers[name] = resolve));
      });
      return lane.step(`tool:${name}`, async () => `${name}:${answer}:${++ran}`);
    });
    await Promise.resolve();
    expect(places).toEqual(['1.0.0', '1.2.0']);
    answers['a']!('yes');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(first.onlyWaitingOn(['ask'])).toBe(true);

    // Continued as new with lane 2 waiting: the lanes done are not run again, lane 2 resumes.
    const second = new AgentJournal(first.entries());
    expect(await second.step('model', async () => 'other')).toBe('tool calls');
    const results = second.parallel('tools', ['a', 'b', 'c'], async (name, lane) => {
      if (name === 'b') return lane.step('tool:b', async () => `b${++ran}`);
      const answer = await lane.step('ask', async (resumed) => (resumed ? 'resumed' : 'asked again'));
      return lane.step(`tool:${name}`, async () => `${name}:${answer}:${++ran}`);
    });
    expect(await results).toEqual(['a:yes:2', 'b1', 'c:resumed:3']);
    expect(second.entries()[1]).toEqual({ kind: 'tools', result: ['a:yes:2', 'b1', 'c:resumed:3'], done: true });
  });

  it('fails loudly when agent code takes another path', () => {
    const journal = new AgentJournal([{ kind: 'status', done: true }]);
    expect(() => journal.effect('artifact', () => 'a')).toThrow(/different path/);
  });
});
