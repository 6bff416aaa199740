/**
 * The example agents this repository serves (examples/a2a-temporal.config.ts names this module).
 * The first is the default agent, served at the gateway's root.
 */
import type { AgentDefinition } from 'a2a-temporal';
import { conformance, conformanceExtension } from './conformance.js';
import { echoAgent } from './echo.js';
import { expenseApproval } from './expense-approval.js';
import { longReport } from './long-report.js';
import { purchasingAssistant } from './purchasing-assistant.js';

const agents: AgentDefinition[] = [
  expenseApproval,
  echoAgent,
  longReport,
  purchasingAssistant,
  conformance,
  conformanceExtension,
];
export default agents;
