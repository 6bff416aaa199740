/** Workflow bundle entry for tests: the example agents plus the test agents. */
import { agents } from '../../src/agents/index.js';
import { createTaskWorkflow } from '../../src/workflows/task-workflow.js';
import { testAgents } from './test-agents.js';

export default createTaskWorkflow([...agents, ...testAgents]);
