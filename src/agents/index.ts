/**
 * The agents this product serves. To add one, write it next to these (see echo.ts) and list it here.
 * The first is the default agent served at the gateway's root.
 */
import type { AgentDefinition } from '../workflows/agent-api.js';
import { conformance } from './conformance.js';
import { echoAgent } from './echo.js';
import { expenseApproval } from './expense-approval.js';
import { longReport } from './long-report.js';

export const agents: readonly AgentDefinition[] = [expenseApproval, echoAgent, longReport, conformance];
