/**
 * The worker's workflow bundle entry: one dynamic workflow that runs whichever agent the task's
 * workflow type names. Runs in Temporal's deterministic sandbox.
 */
import { createTaskWorkflow } from '../workflows/task-workflow.js';
import { agents } from './index.js';

export default createTaskWorkflow(agents);
