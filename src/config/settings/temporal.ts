/**
 * Where every process reaches Temporal: Temporal's standard variables, which `@temporalio/envconfig`
 * reads from what src/temporal/connection.ts hands it, and this project's task queue.
 */
import { flag, group, setting, text } from '../setting.js';

export const TEMPORAL_SETTINGS = group('temporal', {
  TEMPORAL_ADDRESS: setting({
    parse: text,
    defaultText: '`127.0.0.1:7233`; `dev` starts a dev server when unset',
    description: "The Temporal frontend's `host:port`.",
  }),
  TEMPORAL_NAMESPACE: setting({ parse: text, defaultText: '`default`', description: 'The Temporal namespace.' }),
  TEMPORAL_PROFILE: setting({
    parse: text,
    defaultText: '`default`',
    description: "The profile of Temporal's config file to connect with.",
  }),
  TEMPORAL_CONFIG_FILE: setting({
    parse: text,
    defaultText: '`~/.config/temporalio/temporal.toml`',
    description: "Temporal's config file (its profiles).",
  }),
  TEMPORAL_API_KEY: setting({ parse: text, secret: true, description: 'The API key (Temporal Cloud).' }),
  TEMPORAL_TLS: setting({ parse: flag, description: 'Connect with TLS (on by default with an API key).' }),
  TEMPORAL_TLS_CLIENT_CERT_PATH: setting({ parse: text, description: "mTLS: the client certificate's file." }),
  TEMPORAL_TLS_CLIENT_CERT_DATA: setting({ parse: text, description: 'mTLS: the client certificate (PEM).' }),
  TEMPORAL_TLS_CLIENT_KEY_PATH: setting({ parse: text, description: "mTLS: the client key's file." }),
  TEMPORAL_TLS_CLIENT_KEY_DATA: setting({ parse: text, secret: true, description: 'mTLS: the client key (PEM).' }),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: setting({ parse: text, description: "The server CA certificate's file." }),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: setting({ parse: text, description: 'The server CA certificate (PEM).' }),
  TEMPORAL_TLS_SERVER_NAME: setting({ parse: text, description: "The server's name for TLS (SNI)." }),
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: setting({
    parse: flag,
    description: "Skip checking the server certificate's host name.",
  }),
  TEMPORAL_CODEC_ENDPOINT: setting({ parse: text, description: "A remote codec's endpoint (Temporal's envconfig)." }),
  TEMPORAL_CODEC_AUTH: setting({ parse: text, secret: true, description: "The remote codec's authorization." }),
  A2A_TASK_QUEUE: setting({
    parse: text,
    defaultText: "the config's `taskQueue`, else `a2a-temporal`",
    projectKey: 'taskQueue',
    description: 'The task queue workers poll and gateways start tasks on.',
  }),
});

/** gRPC metadata sent with every Temporal call: `TEMPORAL_GRPC_META_<NAME>` (envconfig reads these too). */
export const TEMPORAL_GRPC_META_PREFIX = 'TEMPORAL_GRPC_META_';
