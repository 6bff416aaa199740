/** The agents module of the tests: the example agents plus agents that drive the task workflow down every path. */
import exampleAgents from '../../../examples/agents/index.js';
import { llmTestAgents } from './llm-agents.js';
import { testAgents } from './test-agents.js';

export default [...exampleAgents, ...testAgents, ...llmTestAgents];
