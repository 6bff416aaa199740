/**
 * `a2a-temporal/gateway`: serve a project's agents over A2A (JSON-RPC, HTTP+JSON, gRPC; v1.0 and
 * v0.3) on a Temporal client of your own. The gateway reads the agents' metadata for their cards
 * and starts, answers, reads and cancels tasks through Temporal; it never runs agent code (Node only).
 *
 * @example
 * import { Client, Connection } from '@temporalio/client';
 * import { startGateway } from 'a2a-temporal/gateway';
 * import agents from './agents.js';
 *
 * const client = new Client({ connection: await Connection.connect({ address: 'localhost:7233' }) });
 * const gateway = await startGateway({ client, agents, port: 8080, grpcPort: 8081, taskQueue: 'a2a-temporal' });
 * console.log(`${gateway.url}/.well-known/agent-card.json`);
 *
 * To mount on an express app of your own: `app.use('/a2a', createGatewayApp({ client, agents,
 * publicBaseUrl: 'https://example.com/a2a' }).app)`; for its metrics, pass `metrics: new
 * GatewayMetrics()` and serve `metrics.registry`.
 * `startTracing({ serviceName })` before building the client turns on tracing as the CLI does
 * (docs/observability.md).
 *
 * @module a2a-temporal/gateway
 */
export { createGatewayApp, type Gateway, type GatewayOptions } from './app.js';
export { startGateway, type GatewayServerOptions, type RunningGateway } from './server.js';
export { GatewayMetrics, type RequestLabels } from './monitoring/metrics.js';
export type { ApproverDelegation, ApproverDirectory, ApproverEntry } from '../channels/directory.js';
export type { Authenticator, HeaderLookup } from './auth/authenticator.js';
export type { Principal } from './auth/principal.js';
export type { AuthMethod } from './auth/settings.js';
export type { Transport } from './http/request-context.js';
export { RateLimit } from './auth/rate-limit.js';
export type { InboxSettings } from './inbox/index.js';
export type { AnswerLinkPageSettings } from '../channels/answer-link-page.js';
export type { SlackInteractionSettings } from '../channels/slack-interactions.js';
export { startTracing, stopTracing, type TracingOptions } from '../telemetry/tracing.js';
