/**
 * A workflow interceptor only the deploy check's replay bundles (replay.ts): it hands each
 * activation's commands, as the code under check makes them, out of the sandbox, so the check can
 * tell which call differs from the recorded history in the user's words (divergence.ts). Temporal's
 * own error names the recorded event but not, for instance, the activity the new code runs there;
 * and a reworded question replays without any error at all. Workers never bundle it.
 */
import {
  proxySinks,
  type ConcludeActivationInput,
  type ConcludeActivationOutput,
  type Next,
  type Sinks,
  type WorkflowInterceptors,
  type WorkflowInternalsInterceptor,
} from '@temporalio/workflow';

export type WorkflowCommand = ConcludeActivationInput['commands'][number];

export interface MadeCallsSinks extends Sinks {
  deployCheck: {
    /** The commands of one activation, in order, as Temporal gets them (upserts coalesced). */
    commands(commands: WorkflowCommand[]): void;
  };
}

const { deployCheck } = proxySinks<MadeCallsSinks>();

class MadeCalls implements WorkflowInternalsInterceptor {
  concludeActivation(
    input: ConcludeActivationInput,
    next: Next<WorkflowInternalsInterceptor, 'concludeActivation'>,
  ): ConcludeActivationOutput {
    const output = next(input);
    if (output.commands.length > 0) deployCheck.commands(output.commands);
    return output;
  }
}

export const interceptors = (): WorkflowInterceptors => ({ internals: [new MadeCalls()] });
