/**
 * Whether the gateway's Temporal is usable: what `/readyz` answers, and what lets requests fail at
 * once while Temporal is known to be down instead of each one waiting for its own connect timeouts.
 *
 * No timers: a probe (describe the namespace, with a short deadline) runs when someone asks and the
 * last answer is older than `cacheMs`. A request that finds Temporal out of reach marks it down;
 * the next probe that succeeds marks it up again.
 */
import type { Client } from '@temporalio/client';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { grpcCode } from '../../temporal/grpc-code.js';
import { isTemporalBusy, isUnavailable } from '../../tasks/errors.js';

const UNREACHABLE = 'Temporal is unreachable';

export interface Readiness {
  ready: boolean;
  /** Why not, for operators; never internal error text. */
  reason?: string;
}

export interface TemporalHealthOptions {
  /** How long one answer stands. */
  cacheMs?: number;
  probeTimeoutMs?: number;
}

export class TemporalHealth {
  private readonly cacheMs: number;
  private readonly probeTimeoutMs: number;
  private last: { at: number; readiness: Readiness } | undefined;
  private probing: Promise<Readiness> | undefined;
  private down = false;

  constructor(
    private readonly client: Client,
    options: TemporalHealthOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 1_500;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 2_000;
  }

  /** True while Temporal was last seen out of reach; a probe is started if that is stale. */
  get knownDown(): boolean {
    if (this.down) void this.readiness();
    return this.down;
  }

  /** A request could not reach Temporal. */
  markUnavailable(): void {
    this.down = true;
    this.last = { at: Date.now(), readiness: { ready: false, reason: UNREACHABLE } };
  }

  /** The cached answer, or a fresh probe when it is stale. */
  readiness(): Promise<Readiness> {
    if (this.last && Date.now() - this.last.at < this.cacheMs) return Promise.resolve(this.last.readiness);
    this.probing ??= this.probe().finally(() => (this.probing = undefined));
    return this.probing;
  }

  private async probe(): Promise<Readiness> {
    const namespace = this.client.options.namespace;
    let readiness: Readiness;
    try {
      await this.client.connection.withDeadline(Date.now() + this.probeTimeoutMs, () =>
        this.client.workflowService.describeNamespace({ namespace }),
      );
      readiness = { ready: true };
    } catch (error) {
      readiness = readinessAfter(error, namespace);
    }
    // Only an unreachable Temporal fails requests early; a missing namespace answers for itself.
    this.down = readiness.reason === UNREACHABLE;
    this.last = { at: Date.now(), readiness };
    return readiness;
  }
}

/** What a failed probe says of Temporal. */
function readinessAfter(error: unknown, namespace: string): Readiness {
  // Over one of its limits, Temporal is up and its namespace usable.
  if (isTemporalBusy(error)) return { ready: true };
  const unreachable = isUnavailable(error) || grpcCode(error) === GrpcStatus.DEADLINE_EXCEEDED;
  return { ready: false, reason: unreachable ? UNREACHABLE : `Temporal namespace "${namespace}" is not usable` };
}
