/**
 * Records the effects of agent code (status, artifacts, questions, activities, timers) in call
 * order, so that after continue-as-new the agent's `run` can be executed again from the top:
 * steps already taken return their recorded results without acting again, and the step that was
 * waiting when the run ended (a question) resumes waiting. Agent code is deterministic workflow
 * code, so the same calls come in the same order.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { JournalEntry } from '../protocol/contract.js';

export class AgentJournal {
  private readonly slots: JournalEntry[];
  private cursor = 0;
  private readonly inFlight = new Map<number, string>();
  /** The lanes of each parallel step under way, by its slot. */
  private readonly lanes = new Map<number, AgentJournal[]>();

  /** `prefix`: where a lane's journal sits in its parent's (`<slot>.<lane>.`), so places are unique in the task. */
  constructor(
    entries: JournalEntry[] = [],
    private readonly prefix = '',
  ) {
    this.slots = entries.map((entry) => ({ ...entry }));
  }

  /** A synchronous effect: performed once, skipped on re-execution. */
  effect<T>(kind: string, perform: () => T): T {
    const index = this.cursor++;
    const recorded = this.recorded(index, kind);
    if (recorded?.done) return recorded.result as T;
    const result = perform();
    this.slots[index] = { kind, result, done: true };
    return result;
  }

  /**
   * A decision code before a deploy never made (`patched()`): recorded like an effect, except that
   * among the steps an earlier run recorded without it, that code did not make it: `absent`.
   */
  decision(kind: string, decide: () => boolean, absent: boolean): boolean {
    const slot = this.slots[this.cursor];
    if (slot && slot.kind !== kind) return absent;
    return this.effect(kind, decide);
  }

  /**
   * An asynchronous step. `resumed` tells the step that it had started in an earlier run and was
   * still waiting when that run continued as new; `place`, where it is in the task's journal, is the
   * same in every run and unique in the task (a question's id).
   */
  async step<T>(kind: string, perform: (resumed: boolean, place: string) => Promise<T>): Promise<T> {
    const index = this.cursor++;
    const recorded = this.recorded(index, kind);
    if (recorded?.done) return recorded.result as T;
    this.slots[index] = { kind };
    this.inFlight.set(index, kind);
    try {
      const result = await perform(recorded !== undefined, `${this.prefix}${index}`);
      this.slots[index] = { kind, result, done: true };
      return result;
    } finally {
      this.inFlight.delete(index);
    }
  }

  /**
   * Steps side by side, one lane each (an LLM's tool calls of one answer): each lane has a journal
   * of its own, so what a lane records does not depend on when the others' answers came, and a run
   * continued as new resumes every lane where it stood. One step in this journal; its result is
   * the lanes' results, in order.
   */
  async parallel<I, T>(
    kind: string,
    items: readonly I[],
    perform: (item: I, lane: AgentJournal) => Promise<T>,
  ): Promise<T[]> {
    const index = this.cursor++;
    const recorded = this.recorded(index, kind);
    if (recorded?.done) return recorded.result as T[];
    // Under way when the last run continued as new: its result holds the lanes' journals so far.
    const carried = (recorded?.result ?? []) as JournalEntry[][];
    const lanes = items.map((_, lane) => new AgentJournal(carried[lane], `${this.prefix}${index}.${lane}.`));
    this.slots[index] = { kind };
    this.inFlight.set(index, kind);
    this.lanes.set(index, lanes);
    try {
      const result = await Promise.all(items.map((item, lane) => perform(item, lanes[lane]!)));
      this.slots[index] = { kind, result, done: true };
      return result;
    } finally {
      this.inFlight.delete(index);
      this.lanes.delete(index);
    }
  }

  /** True when every step under way is one of `kinds` (e.g. only waits for a human), in every lane too. */
  onlyWaitingOn(kinds: readonly string[]): boolean {
    return [...this.inFlight].every(([index, kind]) => {
      const lanes = this.lanes.get(index);
      return lanes ? lanes.every((lane) => lane.onlyWaitingOn(kinds)) : kinds.includes(kind);
    });
  }

  entries(): JournalEntry[] {
    return this.slots.map((slot, index) => {
      const lanes = this.lanes.get(index);
      return lanes ? { kind: slot.kind, result: lanes.map((lane) => lane.entries()) } : { ...slot };
    });
  }

  private recorded(index: number, kind: string): JournalEntry | undefined {
    const slot = this.slots[index];
    if (slot && slot.kind !== kind) {
      throw ApplicationFailure.nonRetryable(
        `Agent code took a different path after continue-as-new: step ${index} was "${slot.kind}", now "${kind}"`,
        'AgentNondeterminism',
      );
    }
    return slot;
  }
}
