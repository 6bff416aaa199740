/**
 * The activity options of LLM agents' model calls and tool calls, side by side: what applies unless
 * the agent (`modelActivityOptions`) or the tool (`activityOptions`) says otherwise. A project's
 * options merge with these field by field, `retry` too: `retry: { initialInterval }` alone keeps
 * the attempt limit, so a model endpoint that is down still fails the task, and a tool's last
 * failure still reaches the model, instead of Temporal retrying either for ever.
 */
import { ActivityCancellationType, type ActivityOptions } from '@temporalio/workflow';

export const LLM_ACTIVITY_DEFAULTS = {
  model: {
    startToCloseTimeout: '5 minutes',
    // Heartbeats reach Temporal at most every 0.8 × this: how soon a cancel stops the request.
    heartbeatTimeout: '5 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  },
  tool: {
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '5 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  },
} as const satisfies Record<string, ActivityOptions>;

/** The defaults of `kind` with the project's options over them, field by field. */
export function llmActivityOptions(
  kind: keyof typeof LLM_ACTIVITY_DEFAULTS,
  given: ActivityOptions | undefined,
): ActivityOptions {
  const defaults = LLM_ACTIVITY_DEFAULTS[kind];
  return { ...defaults, ...given, retry: { ...defaults.retry, ...given?.retry } };
}
