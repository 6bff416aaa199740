/**
 * Which webhook URLs push notifications may go to (SSRF guard). Checked when a config is saved and
 * again for every connection the delivery activity opens, against the addresses the name resolves
 * to then (a name that resolved to a public address at save time may point inward later), or
 * against the IP literal itself.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { Settings } from '../config/settings.js';

/** Hosts (names or IP literals) webhooks may use although they resolve inward: `A2A_PUSH_ALLOWED_HOSTS`. */
export interface PushUrlPolicy {
  /** Host names and IP literals, lowercase, as written in URLs. */
  allowedHosts: ReadonlySet<string>;
  /** Where names resolve; default the system's resolver (tests: one that changes its answer). */
  resolve?: typeof dnsLookup;
}

/** Nothing is allowed inward by default, in development too (say so explicitly). */
export const NO_INWARD_HOSTS: PushUrlPolicy = { allowedHosts: new Set() };

export function pushUrlPolicyFromEnv(env: Pick<Settings, 'A2A_PUSH_ALLOWED_HOSTS'>): PushUrlPolicy {
  const hosts = env.A2A_PUSH_ALLOWED_HOSTS.map((host) => bareHost(host.toLowerCase())).filter(Boolean);
  return { allowedHosts: new Set(hosts) };
}

/** Loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast and reserved ranges. */
const INWARD_IPV4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const;

/**
 * IPv6 prefixes whose last 32 bits are an IPv4 address a host may end up reaching: each IPv4 rule
 * is repeated under each of them, so `[::127.0.0.1]` is judged as 127.0.0.1.
 */
const IPV4_EMBEDDINGS = [
  '::', // IPv4-compatible, ::/96 (deprecated, still parsed)
  '::ffff:', // IPv4-mapped, ::ffff:0:0/96
  '::ffff:0:', // IPv4-translated, ::ffff:0:0:0/96
] as const;

const INWARD = new BlockList();
for (const [net, prefix] of INWARD_IPV4) {
  INWARD.addSubnet(net, prefix, 'ipv4');
  for (const embedding of IPV4_EMBEDDINGS) INWARD.addSubnet(`${embedding}${net}`, 96 + prefix, 'ipv6');
}
for (const [net, prefix] of [
  ['::', 127], // unspecified and loopback
  ['64:ff9b::', 96], // NAT64: an IPv4 address in disguise
  ['fc00::', 7], // unique local (includes fd00:ec2::254, a metadata address)
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  INWARD.addSubnet(net, prefix, 'ipv6');
}

/** Why an address is off limits, or undefined. IPv6 addresses embedding an IPv4 one are judged as IPv4. */
export function inwardAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  return INWARD.check(address, family === 4 ? 'ipv4' : 'ipv6')
    ? `${address} is a loopback, private, link-local or reserved address`
    : undefined;
}

/** What is wrong with a URL by its text alone: scheme, credentials, an inward IP literal. */
export function urlProblem(text: string, policy: PushUrlPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'The webhook URL is not a valid absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The webhook URL must be http or https';
  if (url.username || url.password) return 'The webhook URL must not embed credentials';
  const host = bareHost(url.hostname);
  if (policy.allowedHosts.has(host)) return undefined;
  // The URL parser has already turned decimal, octal and hex forms of IPv4 into dotted quads.
  if (isIP(host) !== 0) return refusal(inwardAddress(host));
  // A name without a dot resolves through the resolver's search domains: an internal host, as a rule.
  if (!host.includes('.')) return refusal(`${host} is not a fully qualified name`);
  return undefined;
}

/**
 * The URL's problem including where its name resolves now. A name that does not resolve is let
 * through here: resolution may work from the worker, and every delivery checks again.
 */
export async function resolvedUrlProblem(text: string, policy: PushUrlPolicy): Promise<string | undefined> {
  const problem = urlProblem(text, policy);
  if (problem) return problem;
  const host = bareHost(new URL(text).hostname);
  if (policy.allowedHosts.has(host) || isIP(host) !== 0) return undefined;
  const addresses = await new Promise<LookupAddress[]>((resolve) =>
    (policy.resolve ?? dnsLookup)(host, { all: true }, (error, found) => resolve(error ? [] : found)),
  );
  for (const { address } of addresses) {
    const inward = inwardAddress(address);
    if (inward) return refusal(`${host} resolves to ${inward}`);
  }
  return undefined;
}

export class PushUrlRefusedError extends Error {
  override name = 'PushUrlRefusedError';
}

/**
 * A `lookup` for node:http that refuses inward addresses of hosts not allowed, at connection time:
 * the address checked is the address connected to, so a rebinding name cannot slip past.
 */
export function guardedLookup(policy: PushUrlPolicy): typeof dnsLookup {
  return ((hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    (policy.resolve ?? dnsLookup)(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      const refused = connectionRefusal(hostname, addresses.map(addressOf), policy);
      if (refused) return callback(new PushUrlRefusedError(refused));
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as typeof dnsLookup;
}

/**
 * The agent for one delivery (`protocol` as URL.protocol gives it): every connection it opens
 * passes the guard. Node connects to an IP literal without calling any `lookup`, so the literal is
 * judged here by the same rule `guardedLookup` applies to the addresses of a name.
 */
export function guardedAgent(protocol: string, policy: PushUrlPolicy): HttpAgent {
  const agent = protocol === 'https:' ? new HttpsAgent() : new HttpAgent();
  const connect = agent.createConnection.bind(agent);
  const lookup = guardedLookup(policy);
  agent.createConnection = (options, callback) => {
    const host = bareHost(options.host ?? '');
    const refused = isIP(host) === 0 ? undefined : connectionRefusal(host, [host], policy);
    if (!refused) return connect({ ...options, lookup }, callback);
    const error = new PushUrlRefusedError(refused);
    if (!callback) throw error;
    // The agent hands the error to the request, which emits it as its 'error'.
    callback(error, undefined as never);
    return undefined;
  };
  return agent;
}

/** Why connecting to `host` at `addresses` is refused, or undefined: an allowed host may go anywhere. */
function connectionRefusal(host: string, addresses: readonly string[], policy: PushUrlPolicy): string | undefined {
  if (policy.allowedHosts.has(bareHost(host.toLowerCase()))) return undefined;
  const inward = addresses.map(inwardAddress).find(Boolean);
  if (!inward) return undefined;
  return refusal(isIP(host) === 0 ? `${host} resolves to ${inward}` : inward);
}

function addressOf({ address }: LookupAddress): string {
  return address;
}

function refusal(reason: string | undefined): string | undefined {
  return reason && `The webhook URL is refused: ${reason} (allow it with A2A_PUSH_ALLOWED_HOSTS)`;
}

/** `[::1]` as URL.hostname gives it, `::1` as an address. */
function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
