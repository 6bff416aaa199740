/**
 * An SDK client for one agent of the gateway. Each agent lives under `<gateway>/agents/<name>/`
 * with its own card; the card names the transports, and the factory picks the preferred one.
 */
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  type CallInterceptor,
  type Client,
} from '@a2a-js/sdk/client';
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import type { GatewayConnection } from './command.js';
import { CliError, ExitCode } from './errors.js';

/** An agent's endpoint; without a name, the gateway's root, where its default agent answers. */
function agentUrl(gatewayUrl: string, agent: string | undefined): string {
  const root = withoutTrailingSlashes(gatewayUrl);
  return agent === undefined ? root : `${root}/agents/${encodeURIComponent(agent)}`;
}

function agentCardUrl(gatewayUrl: string, agent: string | undefined): string {
  return `${agentUrl(gatewayUrl, agent)}/.well-known/agent-card.json`;
}

/** The gateway answered the card request with an HTTP error (the SDK's resolver would only say so in text). */
class AgentCardHttpError extends Error {
  constructor(
    readonly status: number,
    url: string,
  ) {
    super(`HTTP ${status} for ${url}`);
    this.name = 'AgentCardHttpError';
  }
}

/** The card resolver's fetch: an HTTP error becomes an AgentCardHttpError carrying its status. */
const fetchCard: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (!response.ok) throw new AgentCardHttpError(response.status, String(input));
  return response;
};

/** Sends the caller's credentials (headers on HTTP, metadata on gRPC) with every call. */
function withCredentials(credentials: Record<string, string>): CallInterceptor {
  return {
    async before(args) {
      args.options = {
        ...args.options,
        serviceParameters: { ...args.options?.serviceParameters, ...credentials },
      };
    },
    async after() {},
  };
}

export async function connectAgent(gateway: GatewayConnection, agent: string | undefined): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    preferredTransports: [gateway.transport],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetchCard }),
    ...(gateway.credentials && { clientConfig: { interceptors: [withCredentials(gateway.credentials)] } }),
  });
  const cardUrl = agentCardUrl(gateway.url, agent);
  try {
    // The full card URL with an empty path: the resolver would resolve an absolute default path
    // against the gateway root and fetch the default agent's card instead.
    return await new ClientFactory(options).createFromUrl(cardUrl, '');
  } catch (error) {
    if (!(error instanceof AgentCardHttpError)) throw error;
    if (error.status === 404) {
      throw new CliError(
        `No agent "${agent}" at ${gateway.url} (${cardUrl} is 404): check the agent name`,
        ExitCode.Remote,
      );
    }
    throw new CliError(`The gateway answered HTTP ${error.status} for ${cardUrl}`, ExitCode.Remote);
  }
}
