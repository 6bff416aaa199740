/**
 * A2A task states and the transition table every task workflow enforces.
 * Pure module: imported by workflows (deterministic sandbox) and by the gateway.
 */

/** The A2A task states, in the spelling of this package's API and CLI (`input-required`, not `TASK_STATE_INPUT_REQUIRED`). */
export const TASK_STATES = [
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
] as const;

/** An A2A task state, e.g. `input-required`: one of {@link TASK_STATES}. */
export type TaskStateName = (typeof TASK_STATES)[number];

const TERMINAL_STATES: ReadonlySet<TaskStateName> = new Set(['completed', 'failed', 'canceled', 'rejected']);

export const INTERRUPTED_STATES: ReadonlySet<TaskStateName> = new Set(['input-required', 'auth-required']);

const ENDINGS: TaskStateName[] = ['completed', 'failed', 'canceled', 'rejected'];

/** Which state may follow which. Terminal states have no way out. */
const TRANSITIONS: Readonly<Record<TaskStateName, readonly TaskStateName[]>> = {
  submitted: ['working', 'input-required', 'auth-required', ...ENDINGS],
  working: ['working', 'input-required', 'auth-required', ...ENDINGS],
  'input-required': ['working', 'input-required', 'auth-required', ...ENDINGS],
  'auth-required': ['working', 'input-required', 'auth-required', ...ENDINGS],
  completed: [],
  failed: [],
  canceled: [],
  rejected: [],
};

export function isTaskStateName(value: string): value is TaskStateName {
  return (TASK_STATES as readonly string[]).includes(value);
}

export function isTerminal(state: TaskStateName): boolean {
  return TERMINAL_STATES.has(state);
}

export function isInterrupted(state: TaskStateName): boolean {
  return INTERRUPTED_STATES.has(state);
}

/** A blocking SendMessage returns once the task reaches one of these. */
export function isSettled(state: TaskStateName): boolean {
  return isTerminal(state) || isInterrupted(state);
}

export function canTransition(from: TaskStateName, to: TaskStateName): boolean {
  return TRANSITIONS[from].includes(to);
}

/** v1.0 wire name, e.g. `input-required` -> `TASK_STATE_INPUT_REQUIRED`. */
export function toWireState(state: TaskStateName): WireTaskState {
  return `TASK_STATE_${state.replace('-', '_').toUpperCase()}` as WireTaskState;
}

export function fromWireState(wire: string): TaskStateName | undefined {
  const name = wire
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace('_', '-');
  return isTaskStateName(name) ? name : undefined;
}

/** An A2A task state as the wire (proto3 JSON) spells it. */
export type WireTaskState =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_AUTH_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_REJECTED';

/**
 * The state of a wire task (or status event), e.g. `input-required`; throws on a state this version does not know.
 *
 * @example
 * const task = await env.agent('purchase-approval').send('Buy 3 monitors for 450 EUR');
 * expect(stateOf(task)).toBe('input-required');
 */
export function stateOf(task: { status: { state: string } }): TaskStateName {
  const state = fromWireState(task.status.state);
  if (!state) throw new TypeError(`Unknown task state "${task.status.state}"`);
  return state;
}
