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

  constructor(entries: JournalEntry[] = []) {
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
   * still waiting when that run continued as new.
   */
  async step<T>(kind: string, perform: (resumed: boolean) => Promise<T>): Promise<T> {
    const index = this.cursor++;
    const recorded = this.recorded(index, kind);
    if (recorded?.done) return recorded.result as T;
    this.slots[index] = { kind };
    this.inFlight.set(index, kind);
    try {
      const result = await perform(recorded !== undefined);
      this.slots[index] = { kind, result, done: true };
      return result;
    } finally {
      this.inFlight.delete(index);
    }
  }

  /** True when every step under way is one of `kinds` (e.g. only waits for a human). */
  onlyWaitingOn(kinds: readonly string[]): boolean {
    return [...this.inFlight.values()].every((kind) => kinds.includes(kind));
  }

  entries(): JournalEntry[] {
    return this.slots.map((slot) => ({ ...slot }));
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
