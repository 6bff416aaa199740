/**
 * The v1.0 agent card of one agent, from its definition. It lists the v1.0 interfaces first, then
 * their v0.3 copies for older clients (the SDK's `duplicateInterfacesForLegacy`; the v0.3 card
 * itself is served at `/v0.3/.well-known/agent-card.json`, src/gateway/app.ts). The 1.0 schema
 * forbids unknown card fields, so nothing beyond the schema goes in.
 */
import { AgentCard } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { AgentDefinition, AgentSkill } from '../../workflows/agent-api.js';
import { API_KEY_HEADER } from '../auth/authenticator.js';
import type { AuthMethod } from '../auth/settings.js';
import { NOTIFICATION_SIGNATURE_HEADER, PUSH_SIGNING_EXTENSION } from '../../push/signing.js';

const DEFAULT_MODES = ['text/plain', 'application/json'];

export interface CardEndpoints {
  /** Public base URL of the agent, e.g. http://host:8080/agents/echo (JSON-RPC answers there). */
  agentUrl: string;
  /** `host:port` of the gRPC server, if any, and the tenant that picks this agent there. */
  grpc?: { address: string; tenant: string };
  /** How callers authenticate (none: an open development gateway). */
  authMethods?: readonly AuthMethod[];
  /** Where receivers get the keys that sign push notifications, when they are signed. */
  pushJwksUrl?: string;
}

/**
 * The card's security schemes: one per method clients can use themselves (a trusted proxy header is
 * set by the proxy, not by clients), each alone enough.
 */
function security(methods: readonly AuthMethod[] = []) {
  const schemes: Record<string, unknown> = {};
  if (methods.includes('api-key')) {
    schemes.apiKey = {
      apiKeySecurityScheme: {
        location: 'header',
        name: API_KEY_HEADER,
        description: 'An API key issued for this gateway',
      },
    };
  }
  if (methods.includes('jwt')) {
    schemes.bearer = { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: 'A JWT' } };
  }
  if (Object.keys(schemes).length === 0) return {};
  return {
    securitySchemes: schemes,
    securityRequirements: Object.keys(schemes).map((name) => ({ schemes: { [name]: { list: [] } } })),
  };
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
  const extensions = [
    ...(agent.extensions ?? []),
    ...(endpoints.pushJwksUrl
      ? [
          {
            uri: PUSH_SIGNING_EXTENSION,
            description: `Push notifications carry a JWT over their body in ${NOTIFICATION_SIGNATURE_HEADER}, signed with a key of this JWKS`,
            required: false,
            params: { jwksUrl: endpoints.pushJwksUrl },
          },
        ]
      : []),
  ];
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
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard,
      ...(extensions.length > 0 && { extensions }),
    },
    ...security(endpoints.authMethods),
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
