/**
 * The gateway's Prometheus metrics (one registry per gateway, so gateways in one process stay
 * apart): A2A requests by method, transport, agent and outcome; their latency; open streams and
 * the time to their first event; the approvals waiting per agent (see waiting-approvals.ts); and
 * Node's process metrics. Task starts and endings are counted by the workers, where tasks settle.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { logger } from '../../logging.js';
import type { Transport } from '../http/request-context.js';
import { WaitingApprovals, type AgentApprovals } from './waiting-approvals.js';
import type { WaitingQuestions } from '../../tasks/index.js';
import type { QuestionView } from '../../protocol/question.js';
import { APPROVAL_BUCKETS_SECONDS, APPROVAL_METRICS, approvalGroupLabel } from '../../protocol/telemetry.js';

/** What a request is counted by. */
export interface RequestLabels {
  /** The A2A method, as the v1.0 specification names it (SendMessage, GetTask, ...). */
  method: string;
  /** The transport it came by. */
  transport: Transport | 'unknown';
  /** The agent it was for. */
  agent: string;
}

const LABELS = ['method', 'transport', 'agent'] as const;
/** From a GetTask answered by a query to a blocking SendMessage that waits for a slow agent. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

const log = logger.child({ component: 'gateway' });
/** Questions whose first view this gateway remembers: enough for a day of a busy inbox, bounded. */
const VIEWED_KEPT = 10_000;

/**
 * The gateway's Prometheus metrics: pass one as {@link GatewayOptions.metrics} and serve its `registry`
 * (`startGateway` does both with `metricsPort`). The gateway it is passed to counts its waiting approvals.
 *
 * @example
 * const metrics = new GatewayMetrics();
 * const { app } = createGatewayApp({ client, agents, publicBaseUrl, metrics });
 * app.get('/metrics', async (_req, res) => void res.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
 */
export class GatewayMetrics {
  /** The prom-client registry holding this gateway's metrics. */
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'a2a_gateway_requests_total',
    help: 'A2A requests answered (streams: ended), by method, transport, agent and outcome (ok, an A2A error such as TaskNotFound, TaskBlocked (the deployed code cannot continue the task), NoWorker, TemporalUnavailable, TemporalBusy, Internal, ClientGone)',
    labelNames: [...LABELS, 'outcome'],
    registers: [this.registry],
  });
  private readonly duration = this.latency(
    'a2a_gateway_request_duration_seconds',
    'Time to answer an A2A request (streams excluded), by method, transport and agent',
  );
  private readonly firstEvent = this.latency(
    'a2a_gateway_stream_first_event_seconds',
    'Time from a streaming request to its first event, by method, transport and agent',
  );
  private readonly openStreams = new Gauge({
    name: 'a2a_gateway_open_streams',
    help: 'Streams (SendStreamingMessage, SubscribeToTask) open now, by method, transport and agent',
    labelNames: LABELS,
    registers: [this.registry],
  });

  private readonly firstView = new Histogram({
    name: APPROVAL_METRICS.firstView,
    help: 'Time from a question to its first view in the inbox by one who may answer it (as this gateway saw it), by agent and group',
    labelNames: ['agent', 'group'],
    buckets: APPROVAL_BUCKETS_SECONDS,
    registers: [this.registry],
  });
  /**
   * The questions already viewed here (`taskId question`), oldest first: by the question's id, since
   * questions asked together share their askedAt; a task's one open question shows none, so by askedAt.
   */
  private readonly viewed = new Set<string>();
  /** The gateway's waiting approvals, once a gateway is built with these metrics. */
  private approvals?: WaitingApprovals;

  constructor() {
    // A gauge's collect runs with the gauge as `this`: it reaches the approvals, set later, through this.
    const approvalsOf = () => this.approvals;
    collectDefaultMetrics({ register: this.registry });
    const gauge = (name: string, help: string, value: (agent: AgentApprovals, now: number) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['agent'],
        registers: [this.registry],
        async collect() {
          this.reset();
          // Without a listing the series are absent (alert on absent()), never stale numbers.
          const snapshot = await approvalsOf()
            ?.snapshot()
            .catch((error: unknown) => {
              log.warn({ err: error }, 'Listing the waiting approvals for the metrics failed');
              return undefined;
            });
          const now = Date.now();
          for (const [agent, counts] of snapshot ?? []) this.set({ agent }, value(counts, now));
        },
      });
    gauge('a2a_approvals_waiting', 'Tasks waiting for a reply (input-required), by agent', (a) => a.waiting);
    gauge(
      'a2a_approvals_oldest_waiting_seconds',
      'How long the longest-waiting question has waited, by agent (0 when none waits)',
      (a, now) => (a.oldestSince === undefined ? 0 : Math.max(0, (now - a.oldestSince) / 1000)),
    );
    gauge(
      'a2a_approvals_past_deadline',
      'Questions still waiting after their deadline (their timer has not fired: is a worker running?), by agent',
      (a) => a.pastDeadline,
    );
    gauge(
      APPROVAL_METRICS.pastHalfDeadline,
      'Questions waiting after half the time to their deadline went by, by agent',
      (a) => a.pastHalfDeadline,
    );
  }

  /** A histogram of request latencies, by method, transport and agent. */
  private latency(name: string, help: string): Histogram<(typeof LABELS)[number]> {
    return new Histogram({ name, help, labelNames: LABELS, buckets: LATENCY_BUCKETS, registers: [this.registry] });
  }

  /**
   * The approvals gauges count the questions waiting on `agents` from `questions`, the index of the
   * gateway these metrics measure (its inbox's lists page through the same one).
   * @internal
   */
  countApprovals(questions: WaitingQuestions, agents: readonly string[]): void {
    this.approvals = new WaitingApprovals(questions, agents);
  }

  /**
   * One who may answer `question` opened its task in the inbox: its first view is timed.
   * @internal
   */
  questionViewed(agent: string, taskId: string, question: QuestionView): void {
    const key = `${taskId} ${question.id ?? question.askedAt}`;
    if (this.viewed.has(key)) return;
    this.viewed.add(key);
    if (this.viewed.size > VIEWED_KEPT) this.viewed.delete(this.viewed.values().next().value!);
    const seconds = Math.max(0, (Date.now() - Date.parse(question.askedAt)) / 1000);
    this.firstView.observe({ agent, group: approvalGroupLabel(question.responders) }, seconds);
  }

  /** An answered request: counted with its outcome, timed. */
  answered(labels: RequestLabels, outcome: string, seconds: number): void {
    this.requests.inc({ ...labels, outcome });
    this.duration.observe(labels, seconds);
  }

  /** A stream opened (SendStreamingMessage, SubscribeToTask). */
  streamOpened(labels: RequestLabels): void {
    this.openStreams.inc(labels);
  }

  /** A stream's first event, `seconds` after it opened. */
  streamFirstEvent(labels: RequestLabels, seconds: number): void {
    this.firstEvent.observe(labels, seconds);
  }

  /** A stream ended, with its outcome (as `answered`'s). */
  streamEnded(labels: RequestLabels, outcome: string): void {
    this.openStreams.dec(labels);
    this.requests.inc({ ...labels, outcome });
  }
}
