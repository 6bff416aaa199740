/**
 * An SDK client for one agent of the gateway. Each agent lives under `<gateway>/agents/<name>/`
 * with its own card; the card names the transports, and the factory picks the preferred one.
 */
import { ClientFactory, ClientFactoryOptions, type CallInterceptor, type Client } from '@a2a-js/sdk/client';
import type { Gateway } from './args.js';
import { CliError, ExitCode } from './errors.js';

/** An agent's endpoint; without a name, the gateway's root, where its default agent answers. */
export function agentUrl(gatewayUrl: string, agent: string | undefined): string {
  const root = gatewayUrl.replace(/\/+$/, '');
  return agent === undefined ? root : `${root}/agents/${encodeURIComponent(agent)}`;
}

export function agentCardUrl(gatewayUrl: string, agent: string | undefined): string {
  return `${agentUrl(gatewayUrl, agent)}/.well-known/agent-card.json`;
}

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

export async function connectAgent(gateway: Gateway, agent: string | undefined): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    preferredTransports: [gateway.transport],
    ...(gateway.credentials && { clientConfig: { interceptors: [withCredentials(gateway.credentials)] } }),
  });
  const cardUrl = agentCardUrl(gateway.url, agent);
  try {
    // The full card URL with an empty path: the resolver would resolve an absolute default path
    // against the gateway root and fetch the default agent's card instead.
    return await new ClientFactory(options).createFromUrl(cardUrl, '');
  } catch (error) {
    const status = /^Failed to fetch Agent Card from .*: (\d+)$/.exec(error instanceof Error ? error.message : '')?.[1];
    if (status === '404') {
      throw new CliError(
        `No agent "${agent}" at ${gateway.url} (${cardUrl} is 404): check the agent name`,
        ExitCode.Remote,
      );
    }
    if (status) throw new CliError(`The gateway answered HTTP ${status} for ${cardUrl}`, ExitCode.Remote);
    throw error;
  }
}
