/**
 * Worker Versioning: how a task moves between versions of a worker deployment. Pure: the task
 * workflow (sandbox) and the worker (Node) both read it.
 */

/**
 * How a task of the agent moves between versions of a worker deployment: 'pinned' (the default)
 * finishes it on the version that started it; 'auto-upgrade' moves it to the current version.
 */
export type AgentVersioning = 'pinned' | 'auto-upgrade';

/** An agent's versioning behaviour, named as the author writes it, and as Temporal names it. */
export const VERSIONING_BEHAVIORS = {
  /** A task finishes on the worker version that started it: deploys never replay it on new code. */
  pinned: 'PINNED',
  /** A task moves to the deployment's current version at its next step: new code must replay it (`check-deploy`). */
  'auto-upgrade': 'AUTO_UPGRADE',
} as const satisfies Record<AgentVersioning, string>;

export function isAgentVersioning(value: unknown): value is AgentVersioning {
  return typeof value === 'string' && Object.hasOwn(VERSIONING_BEHAVIORS, value);
}

export const AGENT_VERSIONINGS = Object.keys(VERSIONING_BEHAVIORS) as AgentVersioning[];
