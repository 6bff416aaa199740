/**
 * Workflow interceptors the agents plugin bundles into every worker: at the end of each activation
 * (usually the whole of a workflow task), the memo upserts become one and the search attribute
 * upserts become one, holding the same final values. A task changes state several times in one
 * workflow task (submitted, working and completed for an echo; working and completed for an
 * approval), and each upsert is a history event and a visibility write on the Temporal server,
 * though visibility only ever shows the last. Only workflows that started on the release that
 * brought this do it (task-patches.ts): older histories hold every upsert, and replay them.
 */
import type {
  ConcludeActivationInput,
  ConcludeActivationOutput,
  Next,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
} from '@temporalio/workflow';
import { coalescesUpserts, coalescingInstalled } from './task-patches.js';

type WorkflowCommand = ConcludeActivationInput['commands'][number];
type Payloads = NonNullable<
  NonNullable<NonNullable<WorkflowCommand['modifyWorkflowProperties']>['upsertedMemo']>['fields']
>;

class CoalescedUpserts implements WorkflowInternalsInterceptor {
  concludeActivation(
    input: ConcludeActivationInput,
    next: Next<WorkflowInternalsInterceptor, 'concludeActivation'>,
  ): ConcludeActivationOutput {
    const output = next(input);
    return coalescesUpserts() ? { commands: coalesceUpserts(output.commands) } : output;
  }
}

/**
 * The commands with every memo upsert merged into the last of them, in order (a later value of a
 * key wins, as it would on the server), and likewise every search attribute upsert. The merged
 * upsert takes the place of the last one, so it still comes before the command that ends the
 * workflow, and keeps that one's event group markers (the update it belongs to in the UI, which
 * then also shows the earlier upserts' values: cosmetic, Core does not match on markers).
 */
export function coalesceUpserts(commands: WorkflowCommand[]): WorkflowCommand[] {
  const memo = new Merge(
    (command) => command.modifyWorkflowProperties?.upsertedMemo?.fields,
    (last, fields) => ({ ...last, modifyWorkflowProperties: { upsertedMemo: { fields } } }),
  );
  const attributes = new Merge(
    (command) => command.upsertWorkflowSearchAttributes?.searchAttributes?.indexedFields,
    (last, indexedFields) => ({ ...last, upsertWorkflowSearchAttributes: { searchAttributes: { indexedFields } } }),
  );
  for (const command of commands) {
    if (!memo.collect(command)) attributes.collect(command);
  }
  if (!memo.coalesces && !attributes.coalesces) return commands;
  return commands.flatMap((command) => memo.replace(command) ?? attributes.replace(command) ?? [command]);
}

/** The upserts of one kind in a command list, and the one upsert that stands for them all. */
class Merge {
  private readonly fields: Payloads = {};
  private last?: WorkflowCommand;
  private merged = 0;

  constructor(
    private readonly fieldsOf: (command: WorkflowCommand) => Payloads | null | undefined,
    private readonly build: (last: WorkflowCommand, fields: Payloads) => WorkflowCommand,
  ) {}

  /** Takes the command in if it is an upsert of this kind. */
  collect(command: WorkflowCommand): boolean {
    const fields = this.fieldsOf(command);
    if (!fields) return false;
    Object.assign(this.fields, fields);
    this.last = command;
    this.merged += 1;
    return true;
  }

  /** Whether there is anything to merge. */
  get coalesces(): boolean {
    return this.merged > 1;
  }

  /** What stands in a command's place: nothing for an upsert merged away, the merge for the last. */
  replace(command: WorkflowCommand): WorkflowCommand[] | undefined {
    if (!this.coalesces || !this.fieldsOf(command)) return undefined;
    return command === this.last ? [this.build(command, this.fields)] : [];
  }
}

export const interceptors = (): WorkflowInterceptors => {
  coalescingInstalled();
  return { internals: [new CoalescedUpserts()] };
};
