/**
 * The workflows the worker bundles (its `workflowsPath`): one dynamic workflow that runs whichever
 * of the project's agents the task's workflow type names, and the closed-task push config query.
 * Bundled by Temporal's bundler only, never imported by Node: the agents plugin points
 * USER_AGENTS_MODULE at the project's agents module.
 */
// First: it provides the zod that agent code imports. The reusable sandbox has evaluated it once for
// all workflows (preloaded); a worker with `reuseV8Context: false` evaluates it here, per workflow.
import '../workflows/shared-zod.js';
import * as userAgents from 'a2a-temporal-user-agents';
import { agentsFromModule } from '../workflows/agent-list.js';
import { createTaskWorkflow } from '../workflows/task-workflow.js';

export default createTaskWorkflow(agentsFromModule(userAgents, 'The agents module'));
export { a2aClosedTaskPushConfigs } from '../workflows/closed-task-push-configs.js';
