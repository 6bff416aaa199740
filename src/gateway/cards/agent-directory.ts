/**
 * `GET /agents`: the agents a gateway serves, so a client that holds only the gateway's URL (the
 * CLI listing every agent's tasks) finds them without knowing their names. Each agent's card stays
 * where A2A clients look for it; this only points there.
 */
export const AGENT_DIRECTORY_PATH = '/agents';

export interface AgentDirectory {
  /** The agent served at the gateway's root. */
  defaultAgent: string;
  agents: AgentDirectoryEntry[];
}

interface AgentDirectoryEntry {
  name: string;
  description: string;
  /** Where the agent answers JSON-RPC; its card is at `<url>/.well-known/agent-card.json`. */
  url: string;
}

export function agentDirectory(
  agents: readonly { name: string; description: string }[],
  defaultAgent: string,
  baseUrl: string,
): AgentDirectory {
  return {
    defaultAgent,
    agents: agents.map(({ name, description }) => ({ name, description, url: `${baseUrl}/agents/${name}` })),
  };
}
