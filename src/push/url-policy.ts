/**
 * Which webhook URLs push notifications may go to (SSRF guard). Checked when a config is saved and
 * again for every connection the delivery activity opens, against the addresses the name resolves
 * to then (a name that resolved to a public address at save time may point inward later).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Hosts (names or IP literals) webhooks may use although they resolve inward: `A2A_PUSH_ALLOWED_HOSTS`. */
export interface PushUrlPolicy {
  allowedHosts: ReadonlySet<string>;
  /** Where names resolve; default the system's resolver (tests: one that changes its answer). */
  resolve?: typeof dnsLookup;
}

export const PUSH_ALLOWED_HOSTS_ENV = 'A2A_PUSH_ALLOWED_HOSTS';

/** Comma-separated; nothing is allowed inward by default, in development too (say so explicitly). */
export function pushUrlPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): PushUrlPolicy {
  const hosts = (env[PUSH_ALLOWED_HOSTS_ENV] ?? '')
    .split(',')
    .map((host) => bareHost(host.trim().toLowerCase()))
    .filter(Boolean);
  return { allowedHosts: new Set(hosts) };
}

/** Loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast and reserved ranges. */
const INWARD = new BlockList();
for (const [net, prefix] of [
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
] as const) {
  INWARD.addSubnet(net, prefix, 'ipv4');
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

/** Why an address is off limits, or undefined. IPv4-mapped IPv6 addresses are judged as IPv4. */
export function inwardAddress(address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip);
  if (family === 0) return `${address} is not an IP address`;
  return INWARD.check(ip, family === 4 ? 'ipv4' : 'ipv6')
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
      const allowed = policy.allowedHosts.has(bareHost(hostname.toLowerCase()));
      const inward = allowed ? undefined : addresses.map((a) => inwardAddress(a.address)).find(Boolean);
      if (inward) return callback(new PushUrlRefusedError(refusal(`${hostname} resolves to ${inward}`)));
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as typeof dnsLookup;
}

function refusal(reason: string | undefined): string | undefined {
  return reason && `The webhook URL is refused: ${reason} (allow it with ${PUSH_ALLOWED_HOSTS_ENV})`;
}

/** `[::1]` as URL.hostname gives it, `::1` as an address. */
function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
