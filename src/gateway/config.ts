/**
 * The gateway's options from the settings (src/config/settings.ts), shared by the `gateway` command
 * and the dev stack: where it listens and what its cards advertise, the Prometheus endpoint,
 * authentication (auth/settings.ts), signing keys, the inbox's session key, and the answers channels
 * bring (src/channels: Slack clicks; email links, with the approver directory the project config names).
 *
 * Production (the `gateway` command) listens on every interface and refuses to start without an
 * A2A_AUTH setting (`none` must be said explicitly). Development (`dev`) listens on loopback and
 * runs without authentication unless A2A_AUTH says otherwise.
 */
import { createAuthenticator } from './auth/authenticator.js';
import { authSettingsFromEnv } from './auth/settings.js';
import { newTaskRateLimitFromEnv } from './http/task-rate-limit.js';
import type { GatewayServerOptions } from './server.js';
import type { LoadedConfig } from '../config/load-config.js';
import { metricsPortFromEnv } from '../telemetry/metrics-settings.js';
import { slackInteractionsFromEnv } from '../channels/slack-interactions.js';
import { answerLinkPageFromEnv } from '../channels/answer-link-page.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';
import { pushUrlPolicyFromEnv } from '../push/url-policy.js';

export type GatewaySettings = Omit<GatewayServerOptions, 'client' | 'agents' | 'taskQueue'>;
type GatewayMode = 'production' | 'development';

const AUTH_REQUIRED_MESSAGE =
  'Set A2A_AUTH to api-key, jwt or trusted-header (comma-separated for several), or to none to run without ' +
  'authentication (then anyone who reaches the gateway can read, answer and cancel every task).';

/** `project`: the loaded project config, for what it says beside the environment (the approver directory). */
export function gatewaySettings(
  env: Settings,
  mode: GatewayMode,
  project: Pick<LoadedConfig, 'approvals'>,
): GatewaySettings {
  const { PORT: port, GRPC_PORT: grpcPort } = env;
  // Under dev the port is chosen as it is bound (src/dev/serve.ts).
  const metricsPort = mode === 'production' ? metricsPortFromEnv(env, 'A2A_METRICS_PORT') : undefined;
  const auth = authSettingsFromEnv(env);
  if (!auth && mode === 'production') throw new ConfigError(AUTH_REQUIRED_MESSAGE);
  const slackInteractions = slackInteractionsFromEnv(env, project.approvals?.directory);
  const answerLinks = answerLinkPageFromEnv(env, project.approvals?.directory);
  return {
    host: env.HOST ?? (mode === 'production' ? '0.0.0.0' : '127.0.0.1'),
    port,
    grpcPort,
    publicBaseUrl: env.A2A_PUBLIC_URL ?? `http://127.0.0.1:${port}`,
    ...(grpcPort !== false && { grpcPublicAddress: env.A2A_GRPC_PUBLIC_ADDRESS ?? `127.0.0.1:${grpcPort}` }),
    ...(env.A2A_DEFAULT_AGENT && { defaultAgent: env.A2A_DEFAULT_AGENT }),
    ...(env.A2A_ALLOWED_HOSTS?.length && { allowedHosts: env.A2A_ALLOWED_HOSTS }),
    ...(metricsPort !== undefined && { metricsPort }),
    ...(auth && { authenticator: createAuthenticator(auth), newTaskLimit: newTaskRateLimitFromEnv(env) }),
    ...(slackInteractions && { slackInteractions }),
    ...(answerLinks && { answerLinks }),
    pushUrlPolicy: pushUrlPolicyFromEnv(env),
    ...(env.A2A_PUSH_SIGNING_KEY && { pushSigningKey: env.A2A_PUSH_SIGNING_KEY }),
    ...(env.A2A_CARD_SIGNING_KEY && { cardSigningKey: env.A2A_CARD_SIGNING_KEY }),
    ...(env.A2A_RECEIPT_SIGNING_KEY && { receiptSigningKey: env.A2A_RECEIPT_SIGNING_KEY }),
    ...(env.A2A_INBOX_SESSION_SECRET && { inbox: { sessionSecret: env.A2A_INBOX_SESSION_SECRET } }),
  };
}
