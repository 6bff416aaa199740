/**
 * The gateway's few plain-HTTP JSON endpoints beyond A2A (the list of agents, the inbox's questions),
 * fetched with the same credentials as A2A calls.
 */
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import type { GatewayConnection } from './command.js';
import { CliError, ExitCode, toCliError } from './errors.js';

/** A URL on the gateway: `path` from its root. */
export function gatewayEndpoint(gateway: GatewayConnection, path: string): URL {
  return new URL(`${withoutTrailingSlashes(gateway.url)}${path}`);
}

/** GET `url`; an unreachable gateway and a 401 become the CLI's errors, other statuses are the caller's. */
export async function getFromGateway(gateway: GatewayConnection, url: URL): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: 'application/json', ...gateway.credentials } });
  } catch (error) {
    throw toCliError(error, { gatewayUrl: gateway.url });
  }
  if (response.status === 401) {
    throw new CliError(
      'The gateway does not know you: set A2A_API_KEY or A2A_TOKEN, as for every other command',
      ExitCode.Remote,
    );
  }
  return response;
}
