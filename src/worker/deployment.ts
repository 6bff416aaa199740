/**
 * Worker Versioning for a project's worker: which version of which worker deployment it is, and
 * the versioning behaviour of agents that do not choose one. Temporal routes each new task to the
 * deployment's current version; a pinned task stays on the version that started it.
 */
import type { NativeConnection, WorkerDeploymentOptions } from '@temporalio/worker';
import {
  AGENT_VERSIONINGS,
  isAgentVersioning,
  VERSIONING_BEHAVIORS,
  type AgentVersioning,
} from '../protocol/versioning.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';

/** Worker Versioning: which version of which worker deployment a worker is (docs/deploying.md). */
export interface WorkerDeployment {
  /** The deployment: the same for every version of these agents, e.g. 'shop-agents'. */
  name: string;
  /** This version, e.g. the commit it was built from. */
  buildId: string;
  /** For agents without `versioning` of their own. Default 'pinned'. */
  defaultVersioning?: AgentVersioning;
}

export const DEFAULT_VERSIONING: AgentVersioning = 'pinned';

export function workerDeploymentOptions(deployment: WorkerDeployment): WorkerDeploymentOptions {
  return {
    useWorkerVersioning: true,
    version: { deploymentName: deployment.name, buildId: deployment.buildId },
    defaultVersioningBehavior: VERSIONING_BEHAVIORS[deployment.defaultVersioning ?? DEFAULT_VERSIONING],
  };
}

/**
 * The worker's deployment from A2A_WORKER_DEPLOYMENT, A2A_WORKER_BUILD_ID and A2A_WORKER_VERSIONING,
 * each winning over the config's `workerDeployment`; none when neither names a deployment.
 */
export function workerDeploymentFrom(
  env: Pick<Settings, 'A2A_WORKER_DEPLOYMENT' | 'A2A_WORKER_BUILD_ID' | 'A2A_WORKER_VERSIONING'>,
  configured: Partial<WorkerDeployment> = {},
): WorkerDeployment | undefined {
  const name = env.A2A_WORKER_DEPLOYMENT || configured.name;
  const buildId = env.A2A_WORKER_BUILD_ID || configured.buildId;
  const defaultVersioning = env.A2A_WORKER_VERSIONING || configured.defaultVersioning;
  if (!name) {
    if (buildId) {
      throw new ConfigError(
        'A build ID without a deployment: set A2A_WORKER_DEPLOYMENT (or workerDeployment.name in the config) too.',
      );
    }
    return undefined;
  }
  if (!buildId) {
    throw new ConfigError(
      `Worker deployment "${name}" needs this version's build ID: set A2A_WORKER_BUILD_ID (e.g. to the commit) or workerDeployment.buildId.`,
    );
  }
  // The config's value; the variable's was checked as it was read.
  if (defaultVersioning !== undefined && !isAgentVersioning(defaultVersioning)) {
    throw new ConfigError(
      `workerDeployment.defaultVersioning is "${defaultVersioning}": use one of ${AGENT_VERSIONINGS.join(', ')}.`,
    );
  }
  return { name, buildId, ...(defaultVersioning && { defaultVersioning }) };
}

/**
 * The deployment's current version, which new tasks go to; undefined while it has none (then no
 * new task reaches a versioned worker). Read after the worker polls: polling creates the deployment.
 */
export async function currentBuildId(
  connection: NativeConnection,
  namespace: string,
  deploymentName: string,
): Promise<string | undefined> {
  const { workerDeploymentInfo } = await connection.workflowService.describeWorkerDeployment({
    namespace,
    deploymentName,
  });
  return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
}

/** What an operator runs to send new tasks to `deployment`'s version; `--yes`: it also works where nobody can answer a prompt (a script, CI). */
export function setCurrentVersionCommand(deployment: WorkerDeployment, namespace: string): string {
  return `temporal worker deployment set-current-version --namespace ${namespace} --deployment-name ${deployment.name} --build-id ${deployment.buildId} --yes`;
}
