/**
 * SDK clients for remote A2A agents, one per card URL, transport and card keys for the worker's
 * lifetime. The card decides the transport (JSON-RPC, HTTP+JSON or gRPC) unless the call prefers one;
 * v0.3 agents are reached through the SDK's compat transports, chosen from their card. Where the call
 * names keys, the card must be signed by one of them (card-verification.ts). A call may name an agent
 * of the project config (`remoteAgents`) instead of its URL: the worker resolves the name here.
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
import {
  REMOTE_CREDENTIALS_MISSING,
  type RemoteAgentAddress,
  type RemoteAgentConfig,
  type RemoteCredentials,
} from '../protocol/delegation.js';
import { verifyCard } from './card-verification.js';
import { fetchCard, unusable } from './remote-failures.js';

const CARD_PATH = '/.well-known/agent-card.json';
const DEFAULT_API_KEY_HEADER = 'x-api-key';

export interface RemoteAgent {
  /** The name on its card. */
  name: string;
  client: Client;
  /** What its card says it can do: SendStreamingMessage and SubscribeToTask; push notifications. */
  streams: boolean;
  pushes: boolean;
}

const clients = new Map<string, Promise<RemoteAgent>>();

/** The client for `address`, made once (its card fetched once) per worker process. */
export function remoteAgentClient(address: RemoteAgentAddress): Promise<RemoteAgent> {
  // Keys too: a client made without checking the card is no client for a call that requires it.
  const key = JSON.stringify([address.url, address.transport ?? '', address.cardKeys ?? null]);
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
  const cardUrl = cardUrlOf(address.url);
  let served: unknown;
  // The card's JSON kept as served: the resolver reshapes it (a v0.3 card, a oneof), its signatures do not.
  const fetchImpl: typeof fetchCard = async (url, init) => {
    const response = await fetchCard(url, init);
    if (response.ok) served = await response.clone().json();
    return response;
  };
  const card = await new DefaultAgentCardResolver({ legacyCompat, fetchImpl }).resolve(cardUrl, '');
  if (address.cardKeys) await verifyCard(served, address.cardKeys, cardUrl);
  const { streaming, pushNotifications } = card.capabilities ?? {};
  return {
    name: card.name,
    client: await new ClientFactory(options).createFromAgentCard(card),
    streams: streaming === true,
    pushes: pushNotifications === true,
  };
}

/** A card URL as given, else the agent's base URL's well-known card. */
function cardUrlOf(url: string): string {
  return url.endsWith('.json') ? url : `${withoutTrailingSlashes(url)}${CARD_PATH}`;
}

/**
 * The address a call means: a configured agent's (its URL read from the worker's environment now,
 * its transport and credentials where the call gives none), or the call's own; its URL checked.
 */
export function resolveAddress(
  address: RemoteAgentAddress,
  configured: Readonly<Record<string, RemoteAgentConfig>>,
): RemoteAgentAddress {
  const resolved = address.url.includes(':') ? address : configuredAddress(address, configured);
  checkUrl(resolved.url);
  return resolved;
}

function configuredAddress(
  address: RemoteAgentAddress,
  configured: Readonly<Record<string, RemoteAgentConfig>>,
): RemoteAgentAddress {
  const name = address.url;
  const agent = Object.hasOwn(configured, name) ? configured[name] : undefined;
  if (!agent) {
    const names = Object.keys(configured);
    throw unusable(
      `No remote agent named "${name}" in the project config (remoteAgents${names.length ? `: ${names.join(', ')}` : ' is empty'})`,
    );
  }
  const url = agent.url ?? process.env[agent.urlEnv!];
  if (!url)
    throw unusable(`The remote agent "${name}" has its URL in ${agent.urlEnv}, which is not set on this worker`);
  const transport = address.transport ?? agent.transport;
  const credentials = address.credentials ?? agent.credentials;
  const cardKeys = address.cardKeys ?? agent.cardKeys;
  return { url, ...(transport && { transport }), ...(credentials && { credentials }), ...(cardKeys && { cardKeys }) };
}

/** A URL no request could reach, refused before any is made. */
function checkUrl(url: string): void {
  if (!URL.canParse(url)) throw unusable(`"${url}" is not a URL`);
  const { protocol } = new URL(url);
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw unusable(`"${url}" is not an http: or https: URL (an agent card is fetched over HTTP)`);
  }
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
