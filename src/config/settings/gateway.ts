/** Where the gateway listens and what its cards say (src/gateway/config.ts). */
import { commaList, group, port, portOrOff, privateJwk, setting, text } from '../setting.js';

export const GATEWAY_SETTINGS = group('gateway', {
  PORT: setting({ parse: port, default: 8080, description: "The gateway's HTTP port." }),
  GRPC_PORT: setting({
    parse: portOrOff,
    default: 8081,
    description: "The gateway's gRPC port; `off` serves no gRPC.",
  }),
  HOST: setting({
    parse: text,
    defaultText: '`0.0.0.0` (`127.0.0.1` under `dev`)',
    description: 'The address the gateway (and the metrics endpoints) listen on.',
  }),
  A2A_PUBLIC_URL: setting({
    parse: text,
    defaultText: '`http://127.0.0.1:$PORT`',
    description: "The gateway's URL as callers reach it: the cards' and the inbox links' base (workers too).",
  }),
  A2A_GRPC_PUBLIC_ADDRESS: setting({
    parse: text,
    defaultText: '`127.0.0.1:$GRPC_PORT`',
    description: 'The gRPC `host:port` the cards advertise.',
  }),
  A2A_DEFAULT_AGENT: setting({
    parse: text,
    defaultText: "the config's `defaultAgent`, else its first agent",
    projectKey: 'defaultAgent',
    description: "The agent served at the gateway's root.",
  }),
  A2A_ALLOWED_HOSTS: setting({
    parse: commaList,
    defaultText: 'loopback names when `HOST` is loopback, else any',
    description: 'Comma-separated host names the HTTP server answers (DNS rebinding guard).',
  }),
  A2A_CARD_SIGNING_KEY: setting({
    parse: privateJwk,
    secret: true,
    defaultText: 'none: agent cards unsigned',
    description: 'A private JWK (ES256 or RS256) the agent cards are signed with (see [The gateway](gateway.md)).',
  }),
});
