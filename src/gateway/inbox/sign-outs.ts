/**
 * Sign-outs, for every gateway to see: the gateways are stateless and share only Temporal, and a
 * cookie copied before its sign-out must be refused everywhere, also by a gateway started since.
 *
 * Why this way. A sign-out is a workflow execution named after the session id, started on a task
 * queue no worker polls (as the change bus, src/tasks/change-bus.ts): it runs no code, and its
 * existence is the record. Its execution timeout is the session's remaining life, so Temporal
 * closes it when the cookie would have expired anyway, and removes it after the namespace's
 * retention: the records need no cleaning and never outlive their use. Every signed-in request
 * asks whether such a record exists (one describe, read from Temporal's own store, not from the
 * eventually consistent visibility), so a sign-out holds on every gateway from the moment it is
 * answered, with no delay to state. The trade-offs: each signed-in inbox request pays that describe
 * (1.5 to 2 ms more for the median request, measured on a loaded development machine), and with
 * Temporal out of reach a signed-in session is refused (503) rather than trusted unchecked; the
 * alternatives were worse: short-lived, rotated cookies leave a copied cookie good until it next
 * rotates, and a revocation list in a workflow's state needs a worker to run it. A record found is
 * kept in memory until the session would have expired: a replayed cookie costs nothing after once.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { quote } from '../../tasks/index.js';
import type { Session } from './session.js';

/** No worker polls it: the records' workflow tasks are never taken. */
const SIGN_OUT_TASK_QUEUE = 'a2a-inbox-sign-outs';
/** The records' workflow type; no worker registers it. */
const SIGN_OUT_WORKFLOW_TYPE = 'a2aInboxSignOut';
/** Temporal takes durations in whole seconds at least. */
const MIN_RECORD_MS = 1_000;

export class SignOuts {
  /** Sessions known to be signed out, and when their cookies expire (then forgotten). */
  private readonly known = new Map<string, number>();

  constructor(private readonly client: Client) {}

  /** Records that `session` is signed out; resolves once every gateway would refuse it. */
  async record(session: Session): Promise<void> {
    try {
      await this.client.workflow.start(SIGN_OUT_WORKFLOW_TYPE, {
        workflowId: workflowIdOf(session.id),
        taskQueue: SIGN_OUT_TASK_QUEUE,
        workflowExecutionTimeout: Math.max(MIN_RECORD_MS, session.expiresAt - Date.now()),
        staticSummary: 'a2a-temporal inbox: a signed-out session (no worker runs it)',
      });
    } catch (error) {
      // Signed out already (another tab, a retry): recorded all the same.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    this.remember(session);
  }

  /** Whether `session` was signed out, on any gateway; throws when Temporal cannot say. */
  async signedOut(session: Session): Promise<boolean> {
    if (this.known.has(session.id)) return true;
    try {
      await this.client.workflow.getHandle(workflowIdOf(session.id)).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
    this.remember(session);
    return true;
  }

  /**
   * The ids of the sessions signed out (on any gateway) from `since` on, as Temporal's visibility
   * lists them: one query however many sessions a gateway follows, but a second or so behind.
   */
  async signedOutSince(since: number): Promise<string[]> {
    const query = [
      `WorkflowType = ${quote(SIGN_OUT_WORKFLOW_TYPE)}`,
      `StartTime >= ${quote(new Date(since).toISOString())}`,
    ].join(' AND ');
    const ids: string[] = [];
    for await (const row of this.client.workflow.list({ query })) ids.push(row.workflowId.slice(ID_PREFIX.length));
    return ids;
  }

  private remember(session: Session): void {
    const now = Date.now();
    for (const [id, expiresAt] of this.known) if (expiresAt <= now) this.known.delete(id);
    this.known.set(session.id, session.expiresAt);
  }
}

const ID_PREFIX = 'a2a-inbox-signed-out:';

function workflowIdOf(sessionId: string): string {
  return `${ID_PREFIX}${sessionId}`;
}
