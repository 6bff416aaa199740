/**
 * The gateway's HTTP app: every agent under `/agents/<name>/` (card, v0.3 card, JSON-RPC at the
 * agent URL itself, HTTP+JSON under `/rest`), and the default agent also at the root; the list of
 * agents at `/agents`; the approvals inbox's pages at `/inbox/` (src/gateway/inbox).
 */
import express, { type Request, type RequestHandler, type Response, type NextFunction } from 'express';
import type { Client } from '@temporalio/client';
import type { AgentCard } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { legacyAgentCardRouter } from '@a2a-js/sdk/compat/v0_3/server/express';
import { logger } from '../logging.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/contract.js';
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import { gatewayTracer } from '../telemetry/tracing.js';
import type { AgentDefinition } from '../workflows/agent-api.js';
import { publicJwks, PUSH_JWKS_PATH } from '../push/signing.js';
import type { PushUrlPolicy } from '../push/url-policy.js';
import type { JWK } from 'jose';
import { buildAgentCards } from './cards/agent-card.js';
import { CARD_JWKS_PATH, cardSigner } from './cards/card-signing.js';
import { RECEIPTS_JWKS_PATH } from '../receipts/receipts.js';
import { agentDirectory, AGENT_DIRECTORY_PATH } from './cards/agent-directory.js';
import { createAuthenticator, type Authenticator } from './auth/authenticator.js';
import type { RateLimit } from './auth/rate-limit.js';
import { limitNewTasksHttp } from './http/task-rate-limit.js';
import { authenticateHttp, expressUserBuilder, principalOf } from './http/request-context.js';
import {
  jsonRpcBody,
  proto3JsonCard,
  requestLifetime,
  restBody,
  restConformance,
  restSuccessStatus,
  RETRY_AFTER_SECONDS,
  validateJsonRpc,
  validateRest,
} from './http/sdk-compat/index.js';
import { guardHandler } from './a2a/guarded-handler.js';
import { chainHandler, type HandlerLayer } from './a2a/handler-chain.js';
import { INBOX_PATH, inboxRouter, type InboxSettings } from './inbox/index.js';
import {
  SLACK_INTERACTIONS_PATH,
  slackInteractionsRouter,
  type SlackInteractionSettings,
} from '../channels/slack-interactions.js';
import { answerLinkPageRouter, type AnswerLinkPageSettings } from '../channels/answer-link-page.js';
import { ANSWER_LINKS_PATH } from '../channels/answer-links.js';
import { requireExtensions } from './a2a/required-extensions.js';
import { remotePushRouter } from './http/remote-pushes.js';
import { REMOTE_PUSH_PATH } from '../protocol/delegation.js';
import { allowHosts } from './http/host-check.js';
import { logInternalError, restErrorBody } from './http/refusals.js';
import type { GatewayMetrics } from './monitoring/metrics.js';
import { observeHandler, type Observers } from './a2a/observed-handler.js';
import { TaskReplies } from './a2a/task-replies.js';
import { TemporalRequestHandler } from './a2a/request-handler.js';
import { TaskChanges } from '../tasks/index.js';
import { TemporalHealth } from './monitoring/temporal-health.js';
import { routeByTenant } from './a2a/tenant-router.js';

const CARD_MAX_AGE_SECONDS = 300;

/** No authentication: every caller is anonymous (development). */
export const NO_AUTHENTICATION = createAuthenticator({ methods: [], apiKeys: [] });

/** What {@link createGatewayApp} serves: the agents, the Temporal client their tasks run through, and the gateway's settings. */
export interface GatewayOptions {
  /** The Temporal client (`@temporalio/client`) of the namespace the workers run in. */
  client: Client;
  /** The agents to serve: their cards come from these definitions (the gateway never runs them). */
  agents: readonly AgentDefinition[];
  /** Base URL clients reach this app at, e.g. http://127.0.0.1:8080 (no trailing slash). */
  publicBaseUrl: string;
  /** `host:port` clients reach the gRPC server at; omitted when gRPC is not served. */
  grpcPublicAddress?: string;
  /** Agent served at the root and over gRPC; the first agent when omitted. */
  defaultAgent?: string;
  /** The task queue the agents' workers poll. Default 'a2a-temporal'. */
  taskQueue?: string;
  /** SSE keepalive period (tests shorten it). */
  keepaliveMs?: number;
  /**
   * Who is calling, on every transport: API keys, JWTs, a trusted proxy header (`createAuthenticator`).
   * Default: none (development): every caller is anonymous and may name who answers.
   */
  authenticator?: Authenticator;
  /** How fast each authenticated principal may start tasks (none without authentication). */
  newTaskLimit?: RateLimit;
  /**
   * Host names (from the Host header) this app answers; others get 403, so a web page cannot reach a
   * gateway on loopback through DNS rebinding. Default: any host.
   */
  allowedHosts?: readonly string[];
  /** Where the requests are counted and timed (see `GatewayMetrics`); not measured when omitted. */
  metrics?: GatewayMetrics;
  /** The approvals inbox at /inbox/ (session key, session length, live-list period). */
  inbox?: InboxSettings;
  /** Approve / Deny clicked in Slack, at /slack/interactions (src/channels/slack-interactions.ts); off when omitted. */
  slackInteractions?: SlackInteractionSettings;
  /** The confirmation page of emails' one-click answers, at /inbox/answer (src/channels/answer-link-page.ts); off when omitted. */
  answerLinks?: AnswerLinkPageSettings;
  /** Which webhook hosts push configs may name although they resolve inward. Default: none. */
  pushUrlPolicy?: PushUrlPolicy;
  /** The private JWK the workers sign push notifications with (A2A_PUSH_SIGNING_KEY): its public half is served. */
  pushSigningKey?: JWK;
  /** The private JWK the agent cards are signed with (A2A_CARD_SIGNING_KEY); unsigned when omitted. */
  cardSigningKey?: JWK;
  /**
   * The private JWK the workers sign decision receipts with (A2A_RECEIPT_SIGNING_KEY): its public half
   * is served, and the tasks this gateway starts ask for receipts (the workers need the key too).
   */
  receiptSigningKey?: JWK;
}

/** What `createGatewayApp` returns: the express app to serve, or mount on an app of your own. */
export interface Gateway {
  /** Serves every agent's A2A endpoints, cards, the inbox and the health checks (gRPC is `startGateway`'s). */
  app: express.Express;
}

/** The app and what `startGateway` (its gRPC server) and the tests need besides; not public. */
export interface GatewayParts extends Gateway {
  /** Each agent's handler, by agent name, before the guards. */
  handlers: ReadonlyMap<string, TemporalRequestHandler>;
  /** Serves every agent over gRPC, by tenant. */
  grpcHandler: A2ARequestHandler;
  newTaskLimit?: RateLimit;
  /** Whether Temporal is usable, as `/readyz` answers. */
  health: TemporalHealth;
  /** How the gateway learns that tasks changed, for all the agents (and from the other gateways); closed with the server. */
  changes: TaskChanges;
}

/** The task queue the agents' workers poll: the configured one, or the package's default. */
function taskQueueOf(options: Pick<GatewayOptions, 'taskQueue'>): string {
  return options.taskQueue ?? DEFAULT_TASK_QUEUE;
}

/**
 * The gateway as an express app, to serve or mount on an app of your own (HTTP+JSON and JSON-RPC; use
 * {@link startGateway} for gRPC as well).
 *
 * @example
 * import express from 'express';
 * import { Client, Connection } from '@temporalio/client';
 * import { createGatewayApp } from 'a2a-temporal/gateway';
 * import agents from './agents.js';
 *
 * const client = new Client({ connection: await Connection.connect({ address: 'localhost:7233' }) });
 * const { app } = createGatewayApp({ client, agents, publicBaseUrl: 'https://agents.example.com/a2a' });
 * express().use('/a2a', app).listen(8080);
 */
export function createGatewayApp(options: GatewayOptions): Gateway {
  return { app: buildGateway(options).app };
}

export function buildGateway(options: GatewayOptions): GatewayParts {
  const defaultName = options.defaultAgent ?? options.agents[0]?.name;
  if (!options.agents.some((agent) => agent.name === defaultName)) {
    throw new Error(`Default agent "${defaultName}" is not among the served agents`);
  }
  const base = withoutTrailingSlashes(options.publicBaseUrl);
  const authenticator = options.authenticator ?? NO_AUTHENTICATION;
  const handlers = new Map<string, TemporalRequestHandler>();
  const { pushSigningKey } = options;
  const cardSigning = options.cardSigningKey && cardSigner(options.cardSigningKey, `${base}${CARD_JWKS_PATH}`);
  const receiptKeys = options.receiptSigningKey && publicJwks(options.receiptSigningKey);
  const signed = (card: AgentCard) => (cardSigning ? cardSigning.sign(card) : card);
  // One for all the agents, their streams, the inbox and the metrics (src/tasks/task-changes.ts).
  const agentNames = options.agents.map((agent) => agent.name);
  const changes = new TaskChanges(options.client, {
    agents: agentNames,
    taskQueue: taskQueueOf(options),
    ...(options.inbox?.pollMs !== undefined && { questionsFreshMs: options.inbox.pollMs }),
  });
  options.metrics?.countApprovals(changes.questions, agentNames);
  for (const agent of options.agents) {
    const { card, extendedCard } = buildAgentCards(agent, {
      agentUrl: `${base}/agents/${agent.name}`,
      authMethods: authenticator.methods,
      ...(pushSigningKey && { pushJwksUrl: `${base}${PUSH_JWKS_PATH}` }),
      // On gRPC the tenant picks the agent; clients that send none reach the default agent.
      ...(options.grpcPublicAddress && { grpc: { address: options.grpcPublicAddress, tenant: agent.name } }),
    });
    const taskQueue = taskQueueOf(options);
    handlers.set(
      agent.name,
      new TemporalRequestHandler({
        client: options.client,
        agent,
        card: signed(card),
        ...(extendedCard && { extendedCard: signed(extendedCard) }),
        taskQueue,
        changes,
        ...(options.pushUrlPolicy && { pushUrlPolicy: options.pushUrlPolicy }),
        // The workers sign with the key whose public half this gateway serves.
        ...(receiptKeys && { receipts: true }),
      }),
    );
  }
  const health = new TemporalHealth(options.client);
  const tracer = gatewayTracer();
  const requiredExtensionsOf = (name: string) =>
    (options.agents.find((agent) => agent.name === name)?.extensions ?? [])
      .filter((extension) => extension.required)
      .map((extension) => extension.uri);
  const observersOf = (name: string): Observers => ({
    agent: name,
    ...(options.metrics && { metrics: options.metrics }),
    ...(tracer && { tracer }),
  });
  // What every call of an agent goes through before its Temporal handler, outermost first.
  const observedAndGuarded = (name: string): HandlerLayer[] => [
    // Traced and counted as the caller saw it: after the guard has made the answer public.
    (next) => observeHandler(next, observersOf(name)),
    (next) => guardHandler(next, health),
  ];
  const chained = (layersOf: (name: string) => HandlerLayer[]) =>
    new Map([...handlers].map(([name, handler]) => [name, chainHandler(handler, layersOf(name))]));
  // The A2A transports' calls: an A2A client must also name the extensions the agent's card requires.
  const forA2AClients = chained((name) => [
    ...observedAndGuarded(name),
    (next) => requireExtensions(next, requiredExtensionsOf(name)),
  ]);
  // The inbox's and the email links' reads: the gateway makes these itself for people, who are no
  // A2A clients and name no extension (a card's required extension is a contract with the clients
  // that read it), so only the extension check is left out.
  const forPeople = chained(observedAndGuarded);
  // People's answers (inbox, email links, Slack): the service SendMessage uses, observed and guarded as above.
  const messages = new Map([...handlers].map(([name, handler]) => [name, handler.messages]));
  const replies = new TaskReplies(messages, observersOf, health);

  const app = express();
  app.disable('x-powered-by');
  if (options.allowedHosts) app.use(allowHosts(options.allowedHosts));
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  // Public keys of signed push notifications (see src/push/signing.ts); public like the cards.
  if (pushSigningKey) app.get(PUSH_JWKS_PATH, (_req, res) => void res.json(publicJwks(pushSigningKey)));
  // Public keys of the signed cards (see cards/card-signing.ts), named by each signature's `jku`.
  if (cardSigning) app.get(CARD_JWKS_PATH, (_req, res) => void res.json(cardSigning.jwks));
  // Public keys of the workers' decision receipts (see src/receipts/receipts.ts): `receipts verify --jwks` reads them.
  if (receiptKeys) app.get(RECEIPTS_JWKS_PATH, (_req, res) => void res.json(receiptKeys));
  app.get('/readyz', (_req, res, next) => {
    health.readiness().then(({ ready, reason }) => {
      if (ready) return void res.json({ status: 'ready' });
      res.status(503).setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      res.json({ status: 'unavailable', reason });
    }, next);
  });
  app.use(requestLifetime(options.keepaliveMs));
  const limit = authenticator.required ? options.newTaskLimit : undefined;
  const inbox = {
    ...options.inbox,
    client: options.client,
    questions: changes.questions,
    handlers: forPeople,
    replies,
    authenticator,
    publicBaseUrl: base,
    ...(options.metrics && { metrics: options.metrics }),
  };
  // Before the inbox's own routes; authenticated by the link's signed token, not the gateway's methods.
  if (options.answerLinks) {
    app.use(ANSWER_LINKS_PATH, answerLinkPageRouter(options.answerLinks, forPeople, replies, base));
  }
  app.use(INBOX_PATH, inboxRouter(inbox));
  // Authenticated by Slack's signature and the approver directory, not the gateway's methods.
  if (options.slackInteractions) {
    app.use(SLACK_INTERACTIONS_PATH, slackInteractionsRouter(options.slackInteractions, replies));
  }
  // Authenticated by each call's own token (the calling task checks it), not the gateway's methods.
  app.use(REMOTE_PUSH_PATH, remotePushRouter(options.client));
  // Behind the same authentication as the agents' calls: a list of names is no business of strangers.
  const directory = agentDirectory(options.agents, defaultName!, base);
  app.get(AGENT_DIRECTORY_PATH, authenticateHttp(authenticator, 'rest'), (_req, res) => void res.json(directory));
  for (const [name, handler] of forA2AClients) app.use(`/agents/${name}`, agentRouter(handler, authenticator, limit));
  app.use('/', agentRouter(forA2AClients.get(defaultName!)!, authenticator, limit));
  app.use((_req: Request, res: Response) => {
    res.status(404).json(restErrorBody(404, 'NOT_FOUND', 'No such endpoint'));
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const message = logInternalError(logger, error, { component: 'gateway' });
    if (!res.headersSent) res.status(500).json(restErrorBody(500, 'INTERNAL', message));
  });
  return {
    app,
    handlers,
    grpcHandler: routeByTenant(forA2AClients, forA2AClients.get(defaultName!)!),
    health,
    changes,
    ...(limit && { newTaskLimit: limit }),
  };
}

/** Cards are built once at start: they last changed when this process started. */
const CARDS_BUILT_AT = new Date().toUTCString();

function agentRouter(
  handler: A2ARequestHandler,
  authenticator: Authenticator,
  limit: RateLimit | undefined,
): express.Router {
  const router = express.Router();
  const cache = { maxAge: CARD_MAX_AGE_SECONDS };
  router.use(['/.well-known/agent-card.json', '/v0.3/.well-known/agent-card.json'], (_req, res, next) => {
    res.setHeader('Last-Modified', CARDS_BUILT_AT);
    next();
  });
  router.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: proto3JsonCard(handler), cache }));
  // Without the v1.0 card's signatures: they sign its v1.0 canonical form, which a v0.3 card is not.
  const legacyCard = async () => ({ ...(await handler.getAgentCard()), signatures: [] });
  router.use('/v0.3/.well-known/agent-card.json', legacyAgentCardRouter({ agentCardProvider: legacyCard, cache }));
  // The public card stays public; everything else needs a principal when authentication is on.
  router.use(
    '/rest',
    restConformance,
    restSuccessStatus,
    authenticateHttp(authenticator, 'rest'),
    ...restBody(),
    validateRest,
    limitNewTasksHttp(limit, principalOf, 'rest'),
    restHandler({ requestHandler: handler, userBuilder: expressUserBuilder(authenticator, 'rest') }),
  );
  const jsonRpc = jsonRpcHandler({
    requestHandler: handler,
    userBuilder: expressUserBuilder(authenticator, 'jsonrpc'),
    legacyCompat: { enabled: true },
  });
  // JSON-RPC answers at the agent URL itself, with or without a trailing slash, and nowhere below it.
  router.use(
    '/',
    atRoot(
      authenticateHttp(authenticator, 'jsonrpc'),
      ...jsonRpcBody(),
      limitNewTasksHttp(limit, principalOf, 'jsonrpc'),
      jsonRpc,
    ),
  );
  return router;
}

function atRoot(
  authenticate: RequestHandler,
  parse: RequestHandler,
  onParseError: express.ErrorRequestHandler,
  limit: RequestHandler,
  jsonRpc: RequestHandler,
): express.Router {
  const router = express.Router();
  router.post('/', authenticate, parse, onParseError, validateJsonRpc, limit, jsonRpc);
  return router;
}
