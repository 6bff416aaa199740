/** The agents a gateway serves, as its `GET /agents` lists them (gateway/cards/agent-directory.ts). */
import { AGENT_DIRECTORY_PATH, type AgentDirectory } from '../gateway/cards/agent-directory.js';
import type { GatewayConnection } from './command.js';
import { CliError, ExitCode } from './errors.js';
import { gatewayEndpoint, getFromGateway } from './gateway-http.js';

/** Their names, the default agent first; undefined from a gateway too old to list them. */
export async function servedAgents(gateway: GatewayConnection): Promise<string[] | undefined> {
  const response = await getFromGateway(gateway, gatewayEndpoint(gateway, AGENT_DIRECTORY_PATH));
  if (response.status === 404) return undefined;
  if (!response.ok) throw new CliError(`The gateway answered HTTP ${response.status} for its agents`, ExitCode.Remote);
  const directory = (await response.json()) as AgentDirectory;
  const names = directory.agents.map((agent) => agent.name);
  return [directory.defaultAgent, ...names.filter((name) => name !== directory.defaultAgent)];
}
