/**
 * The A2A task workflow: one execution per task, its workflow type the agent's name. The run itself
 * (first message, the agent, continue-as-new, one terminal state) is task-run.ts.
 */
import { ApplicationFailure, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { TaskWorkflowInput } from '../protocol/contract.js';
import { VERSIONING_BEHAVIORS } from '../protocol/versioning.js';
import type { WireTask } from '../protocol/wire.js';
import type { AgentDefinition } from './agent-api.js';
import { TaskRun } from './task-run.js';
import { recordRelease } from './task-patches.js';

export function createTaskWorkflow(agents: readonly AgentDefinition[]) {
  const byName = new Map(agents.map((agent) => [agent.name, agent]));

  const taskWorkflow = async function taskWorkflow(input: TaskWorkflowInput): Promise<WireTask> {
    recordRelease();
    const agentName = workflowInfo().workflowType;
    const agent = byName.get(agentName);
    if (!agent) {
      throw ApplicationFailure.nonRetryable(
        `No agent named "${agentName}" is registered on this worker`,
        'UnknownAgent',
      );
    }
    return new TaskRun(agent, input).execute();
  };
  // Under Worker Versioning the agent's own behaviour, else the worker's default. A worker without a
  // deployment version fails the workflow task of a workflow that names a behaviour: name none there.
  setWorkflowOptions(() => {
    const { workflowType, currentDeploymentVersion } = workflowInfo();
    const versioning = byName.get(workflowType)?.versioning;
    return versioning && currentDeploymentVersion?.deploymentName
      ? { versioningBehavior: VERSIONING_BEHAVIORS[versioning] }
      : {};
  }, taskWorkflow);
  return taskWorkflow;
}
