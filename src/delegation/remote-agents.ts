/**
 * SDK clients for remote A2A agents, one per card URL, transport and credentials for the worker's
 * lifetime. The card decides the transport (JSON-RPC, HTTP+JSON or gRPC) unless the call prefers
 * one; v0.3 agents are reached through the SDK's compat transports, chosen from their card.
 */
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
  type RequestOptions,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { credentials as grpcCredentials } from '@grpc/grpc-js';
import { ApplicationFailure } from '@temporalio/common';
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import { REMOTE_CREDENTIALS_MISSING, type RemoteAgentAddress, type RemoteCredentials } from '../protocol/delegation.js';

const CARD_PATH = '/.well-known/agent-card.json';
const DEFAULT_API_KEY_HEADER = 'x-api-key';

export interface RemoteAgent {
  /** The name on its card. */
  name: string;
  client: Client;
}

const clients = new Map<string, Promise<RemoteAgent>>();

/** The client for `address`, made once (its card fetched once) per worker process. */
export function remoteAgentClient(address: RemoteAgentAddress): Promise<RemoteAgent> {
  const key = JSON.stringify([address.url, address.transport ?? '']);
  let client = clients.get(key);
  if (!client) {
    client = connect(address);
    clients.set(key, client);
    // A card that could not be read is read again on the next attempt.
    client.catch(() => clients.delete(key));
  }
  return client;
}

async function connect(address: RemoteAgentAddress): Promise<RemoteAgent> {
  const legacyCompat = { enabled: true };
  const secure = address.url.startsWith('https:');
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [
      new JsonRpcTransportFactory({ legacyCompat }),
      new RestTransportFactory({ legacyCompat }),
      new GrpcTransportFactory({
        legacyCompat,
        grpcChannelCredentials: secure ? grpcCredentials.createSsl() : grpcCredentials.createInsecure(),
      }),
    ],
    ...(address.transport && { preferredTransports: [address.transport] }),
  });
  const card = await new DefaultAgentCardResolver({ legacyCompat }).resolve(cardUrlOf(address.url), '');
  return { name: card.name, client: await new ClientFactory(options).createFromAgentCard(card) };
}

/** A card URL as given, else the agent's base URL's well-known card. */
function cardUrlOf(url: string): string {
  return url.endsWith('.json') ? url : `${withoutTrailingSlashes(url)}${CARD_PATH}`;
}

/**
 * The request options of one call: its abort signal, the credentials read from the worker's
 * environment now (never passed through the task), and any headers of the call's own.
 */
export function requestOptions(
  address: RemoteAgentAddress,
  signal: AbortSignal,
  headers: Record<string, string> = {},
): RequestOptions {
  return { signal, serviceParameters: { ...credentialHeaders(address.credentials), ...headers } };
}

function credentialHeaders(credentials: RemoteCredentials | undefined): Record<string, string> {
  if (!credentials) return {};
  const name = 'bearerTokenEnv' in credentials ? credentials.bearerTokenEnv : credentials.apiKeyEnv;
  const secret = process.env[name];
  if (!secret) {
    throw ApplicationFailure.nonRetryable(
      `The remote agent's credentials are read from ${name}, which is not set on this worker`,
      REMOTE_CREDENTIALS_MISSING,
    );
  }
  return 'bearerTokenEnv' in credentials
    ? { authorization: `Bearer ${secret}` }
    : { [credentials.header ?? DEFAULT_API_KEY_HEADER]: secret };
}
