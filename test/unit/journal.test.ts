import { describe, expect, it } from 'vitest';
import { AgentJournal } from '../../src/workflows/agent-journal.js';

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

  it('fails loudly when agent code takes another path', () => {
    const journal = new AgentJournal([{ kind: 'status', done: true }]);
    expect(() => journal.effect('artifact', () => 'a')).toThrow(/different path/);
  });
});
