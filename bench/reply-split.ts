/**
 * Where the time of one blocking reply goes, on the project's side (path 3): the HTTP hop between
 * the bench's client and the gateway, the gateway's own work, and its Temporal Update call (the one
 * call a reply makes; raw's whole reply is that call). Node's `http.server` diagnostics channels
 * mark when the gateway got the request and finished the response; a client interceptor on the
 * gateway's Temporal client times its update calls. Replies must be timed one at a time.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { subscribe } from 'node:diagnostics_channel';
import { Sample } from './measure.js';

export class ReplySplit {
  private readonly http = new Sample();
  private readonly gateway = new Sample();
  private readonly update = new Sample();
  private requestAt?: number;
  private finishedAt?: number;
  private updateMs = 0;

  constructor() {
    subscribe('http.server.request.start', () => (this.requestAt = performance.now()));
    subscribe('http.server.response.finish', () => (this.finishedAt = performance.now()));
  }

  /** For the gateway's Temporal client: times each update call (the RPC that waits for its result). */
  readonly interceptor: WorkflowClientInterceptor = {
    startUpdate: async (input, next) => {
      const start = performance.now();
      try {
        return await next(input);
      } finally {
        this.updateMs += performance.now() - start;
      }
    },
  };

  /** Runs `reply` (one HTTP request to the gateway) and records its split. */
  async time(reply: () => Promise<void>): Promise<void> {
    this.requestAt = this.finishedAt = undefined;
    this.updateMs = 0;
    const start = performance.now();
    await reply();
    const total = performance.now() - start;
    if (this.requestAt !== undefined && this.finishedAt !== undefined) {
      const inGateway = this.finishedAt - this.requestAt;
      this.http.latencies.push(total - inGateway);
      this.gateway.latencies.push(inGateway - this.updateMs);
      this.update.latencies.push(this.updateMs);
    }
  }

  describe(): string {
    const p50 = (sample: Sample) => sample.p(50).toFixed(1);
    return `project reply p50s: HTTP hop ${p50(this.http)} ms, gateway ${p50(this.gateway)} ms, its Temporal update call ${p50(this.update)} ms`;
  }
}
