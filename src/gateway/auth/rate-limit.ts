/**
 * A token bucket per key (a principal, a client address), refilled continuously: `perMinute` a
 * minute, as many at once. One gateway process's view only: with N gateways a key gets up to N
 * times as many; put a shared limiter in front for an exact global limit.
 */

/** Buckets kept before the full ones are forgotten: keys from the network must not grow memory without end. */
const PRUNE_ABOVE = 10_000;

/**
 * A token bucket per key: `perMinute` a minute, as many at once. A gateway's `newTaskLimit` is one
 * (A2A_NEW_TASKS_PER_MINUTE).
 *
 * @example
 * const { app } = createGatewayApp({ client, agents, publicBaseUrl, newTaskLimit: new RateLimit(60) });
 */
export class RateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** The size at which to prune next: twice what a pruning left, so its cost is spread over as many takes. */
  private pruneAt = PRUNE_ABOVE;

  constructor(
    /** Tokens a key gets a minute, and at most at once. */
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `key`; the seconds to wait when none is left, else 0. */
  take(key: string): number {
    const now = this.now();
    if (this.buckets.size > this.pruneAt) this.prune(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = this.refilled(bucket, now);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000);
  }

  /** Keys with a bucket now (tests). */
  get size(): number {
    return this.buckets.size;
  }

  private get refillPerMs(): number {
    return this.perMinute / 60_000;
  }

  private refilled(bucket: { tokens: number; at: number }, now: number): number {
    return Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.refillPerMs);
  }

  /** A full bucket is the same as none. */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.refilled(bucket, now) >= this.perMinute) this.buckets.delete(key);
    }
    this.pruneAt = Math.max(PRUNE_ABOVE, 2 * this.buckets.size);
  }
}
