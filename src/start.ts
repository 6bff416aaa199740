/**
 * `npm start`: the whole product on its embedded default. Ctrl-C stops everything.
 * With TEMPORAL_ADDRESS set it uses that Temporal server instead of starting one.
 */
import { agents } from './agents/index.js';
import { logger } from './logging.js';
import { routeTemporalLogs } from './temporal/worker-logs.js';
import { startStack } from './stack.js';

// This process orders shutdown itself: gateway first, then the worker, then Temporal.
routeTemporalLogs({ ownSignals: true });
const stack = await startStack().catch((error: unknown) => {
  logger.error((error as Error).message);
  process.exit(1);
});

const defaultAgent = process.env.A2A_DEFAULT_AGENT ?? agents[0]!.name;
const lines = [
  '',
  'a2a-temporal is running.',
  '',
  `  Agent card (default agent, ${defaultAgent}):  ${stack.gatewayUrl}/.well-known/agent-card.json`,
  ...agents.map(
    (agent) => `  ${agent.name.padEnd(18)} ${stack.gatewayUrl}/agents/${agent.name}  (JSON-RPC; REST under /rest)`,
  ),
  ...(stack.grpcAddress ? [`  gRPC (all agents, by tenant; default agent without one):  ${stack.grpcAddress}`] : []),
  `  Temporal:  ${stack.temporalAddress}${stack.temporalUiUrl ? `   UI: ${stack.temporalUiUrl}` : ''}`,
  ...(stack.dbFile ? [`  Tasks persist in ${stack.dbFile}`] : []),
  '',
  'Start an expense approval (in another terminal):',
  `  npx a2a-temporal send expense-approval "Please approve an expense of 120 USD for a team lunch" --url ${stack.gatewayUrl}`,
  'then answer it:  npx a2a-temporal tasks reply <taskId> approve',
  '',
  'Ctrl-C stops everything.',
  '',
];
process.stdout.write(lines.join('\n'));

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  await stack.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
