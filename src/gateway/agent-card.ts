/**
 * The v1.0 agent card of one agent, from its definition. It lists the v1.0 interfaces first, then
 * their v0.3 copies for older clients (DESIGN section 9). The 1.0 schema forbids unknown card
 * fields, so nothing beyond the schema goes in.
 */
import { AgentCard } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { AgentDefinition, AgentSkill } from '../workflows/agent-api.js';

export const DEFAULT_MODES = ['text/plain', 'application/json'];

export interface CardEndpoints {
  /** Public base URL of the agent, e.g. http://host:8080/agents/echo (JSON-RPC answers there). */
  agentUrl: string;
  /** `host:port` of the gRPC server, if any, and the tenant that picks this agent there. */
  grpc?: { address: string; tenant: string };
}

/** The public card, and the extended one when the agent has extended skills. */
export function buildAgentCards(
  agent: AgentDefinition,
  endpoints: CardEndpoints,
): { card: AgentCard; extendedCard?: AgentCard } {
  const extended = agent.extendedSkills?.length ? agent.extendedSkills : undefined;
  const card = buildAgentCard(agent, endpoints, agent.skills, extended !== undefined);
  return extended
    ? { card, extendedCard: buildAgentCard(agent, endpoints, [...agent.skills, ...extended], true) }
    : { card };
}

function buildAgentCard(
  agent: AgentDefinition,
  endpoints: CardEndpoints,
  skills: readonly AgentSkill[],
  extendedAgentCard: boolean,
): AgentCard {
  const v1 = [
    { url: endpoints.agentUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${endpoints.agentUrl}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    ...(endpoints.grpc
      ? [
          {
            url: endpoints.grpc.address,
            protocolBinding: 'GRPC',
            tenant: endpoints.grpc.tenant,
            protocolVersion: '1.0',
          },
        ]
      : []),
  ];
  return AgentCard.fromJSON({
    name: agent.name,
    description: agent.description,
    version: agent.version ?? '1.0.0',
    supportedInterfaces: duplicateInterfacesForLegacy(v1, ['JSONRPC']),
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard },
    defaultInputModes: agent.defaultInputModes ?? DEFAULT_MODES,
    defaultOutputModes: agent.defaultOutputModes ?? DEFAULT_MODES,
    skills: skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      ...(skill.examples && { examples: skill.examples }),
      ...(skill.inputModes && { inputModes: skill.inputModes }),
      ...(skill.outputModes && { outputModes: skill.outputModes }),
    })),
  });
}
