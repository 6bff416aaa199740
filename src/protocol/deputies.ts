/**
 * Delegation of authority (docs/approval-policies.md, Deputies): who may answer a question for one of
 * its approvers, and when. Resolved from the approver directory once, when the question opens (an
 * activity: src/channels/directory.ts), and kept in the question; each answer is checked against the
 * window by the workflow's clock. Pure: the workflow sandbox, the worker and the gateway import it.
 */

/** `to` may answer what waits for `for`, from `from` until `until` (ISO instants; absent: unbounded). */
export interface Deputy {
  to: string;
  for: string;
  from?: string;
  until?: string;
  /**
   * The question's groups that reach `for` (by the directory's members): a quorum rule of one of them
   * counts the deputy's approval (release 18). Absent: reached by name, or resolved before.
   */
  groups?: string[];
}

/** What the directory activity returns when a question opens. */
export interface ResolvedDeputies {
  deputies: Deputy[];
  /** SHA-256 (hex) of the directory that decided them: the question says which snapshot it was. */
  directoryHash: string;
}

export interface ResolveDeputiesInput {
  /** The question's responders (principals and `group:NAME`). */
  responders: string[];
  /** Who asked: nobody acts for them, and they act for nobody, on their own request. */
  requester?: string;
}

/** The directory activity that resolves a question's deputies. */
export const RESOLVE_DEPUTIES_ACTIVITY = 'a2aResolveDeputies';

/** The deputy entries of `question` that name `principal` as the one acting. */
export function deputiesOf(question: { deputies?: Deputy[] }, principal: string | undefined): Deputy[] {
  return principal === undefined ? [] : (question.deputies ?? []).filter((deputy) => deputy.to === principal);
}

/** Whether `at` (ms since the epoch) falls in the deputy's window: `from` included, `until` excluded. */
export function isActingAt(deputy: Deputy, at: number): boolean {
  return (!deputy.from || Date.parse(deputy.from) <= at) && (!deputy.until || at < Date.parse(deputy.until));
}

/** "bob (from 2026-12-01T00:00:00.000Z until 2026-12-16T00:00:00.000Z)", for refusals and pages. */
export function deputyWindowText(deputy: Deputy): string {
  const window = [deputy.from && `from ${deputy.from}`, deputy.until && `until ${deputy.until}`].filter(Boolean);
  return window.length > 0 ? `${deputy.for} (${window.join(' ')})` : deputy.for;
}
