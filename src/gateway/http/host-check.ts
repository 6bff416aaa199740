/**
 * DNS rebinding guard: a web page on another site can make a browser send requests to a gateway
 * on loopback under the page's own host name. Answering only the host names this gateway is meant
 * to be reached by (the Host header a browser cannot forge) closes that door.
 */
import type { RequestHandler } from 'express';
import { restErrorBody } from './refusals.js';

/** What a gateway on loopback answers to when no allow-list is configured. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

const LOOPBACK_BIND_ADDRESSES = new Set(['127.0.0.1', 'localhost', '::1']);

/** True for a listen address only this machine reaches: the gateway then answers loopback host names only. */
export function isLoopbackAddress(host: string): boolean {
  return LOOPBACK_BIND_ADDRESSES.has(host) || host.startsWith('127.');
}

/** The host name of a Host header, lower-cased, without the port (IPv6 literals keep their brackets). */
function hostNameOf(header: string): string {
  const host = header.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  return host.split(':', 1)[0]!;
}

export function allowHosts(allowed: readonly string[]): RequestHandler {
  const names = new Set(allowed.map((name) => name.toLowerCase()));
  return (req, res, next) => {
    const host = req.headers.host;
    if (host && names.has(hostNameOf(host))) return next();
    const message = `Host "${host ?? ''}" is not served here; allowed: ${[...names].join(', ')} (A2A_ALLOWED_HOSTS)`;
    res.status(403).json(restErrorBody(403, 'PERMISSION_DENIED', message));
  };
}
