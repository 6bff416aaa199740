/**
 * Reads the agent list out of a project's agents module (its default export: an array of agents,
 * or one agent). The worker's workflow bundle and the gateway both read it through here, so both
 * see the same agents and the same mistakes are reported the same way.
 */
import type { AgentDefinition } from './agent-api.js';

export function agentsFromModule(module: { default?: unknown }, where: string): AgentDefinition[] {
  const exported = module.default;
  if (exported === undefined) {
    throw new TypeError(
      `${where} has no default export. Export your agents: \`export default [myAgent]\` (agents made with defineAgent).`,
    );
  }
  const agents = Array.isArray(exported) ? (exported as unknown[]) : [exported];
  if (agents.length === 0) throw new TypeError(`${where} exports an empty agent list.`);
  const seen = new Set<string>();
  return agents.map((agent, index) => {
    if (!isAgentDefinition(agent)) {
      throw new TypeError(
        `${where}: the default export's item ${index} is not an agent. Make agents with defineAgent({ name, description, skills, run }).`,
      );
    }
    if (seen.has(agent.name)) throw new TypeError(`${where}: two agents are named "${agent.name}".`);
    seen.add(agent.name);
    return agent;
  });
}

function isAgentDefinition(value: unknown): value is AgentDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<AgentDefinition>;
  return typeof candidate.name === 'string' && typeof candidate.run === 'function' && Array.isArray(candidate.skills);
}
