/**
 * Everything one bench run talks to, on loopback: one Temporal dev server; the raw floor's worker
 * (child process), client and HTTP front (this process); the project's worker (child process) and
 * gateway (this process).
 */
import { Client, Connection } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import { sleep } from './measure.js';
import { sendBlocking, waitingExpenseTask } from './a2a.js';
import { startProjectWorker, startRawWorker, stopChild } from './processes.js';
import { RawFloor } from './raw.js';
import { RawFanout } from './raw-fanout.js';
import { RawHttpFront } from './raw-http.js';
import { ReplySplit } from './reply-split.js';
import { Subscribers } from './subscribers.js';
import { TemporalCalls } from './temporal-calls.js';

const RAW_TASK_QUEUE = 'bench-raw';
const PROJECT_TASK_QUEUE = 'bench-a2a';

export interface Stack {
  temporalAddress: string;
  /** The task queue of the project's worker and gateway. */
  taskQueue: string;
  /** The dev server's SQLite file, when the run asked for one (path 10 measures its size). */
  dbFile?: string;
  /** The dev server's process, when this run started it itself (not an SDK-downloaded server). */
  temporalPid?: number;
  raw: RawFloor;
  /** The raw floor's recorded workflows behind a plain HTTP endpoint (bench/raw-http.ts). */
  rawHttp: RawHttpFront;
  /** The raw floor of path 4: SSE streams on raw workflows (bench/raw-fanout.ts). */
  rawFanout: RawFanout;
  rawWorker: ChildProcess;
  projectWorker: ChildProcess;
  subscribers: Subscribers;
  /** Where the time of a reply goes in the gateway (path 3). */
  replySplit: ReplySplit;
  /** The Temporal calls of requests timed one at a time: the gateway's, and the raw floor's client's. */
  calls: { project: TemporalCalls; raw: TemporalCalls };
  gatewayUrl: string;
  /** An agent's JSON-RPC endpoint. */
  agentUrl(name: string): string;
  stop(): Promise<void>;
}

/**
 * `profileDir`: the project's worker writes a CPU profile there when it stops (--cpu-profile).
 * `dbFile`: the dev server keeps its database in that file (else in memory).
 */
export async function startStack(log: (line: string) => void, profileDir?: string, dbFile?: string): Promise<Stack> {
  // The gateway logs through the project's logger: quiet, and no pretty-printing thread, in a benchmark.
  process.env.LOG_LEVEL ??= 'warn';
  process.env.LOG_FORMAT ??= 'json';
  const { startDevServer } = await import('../src/temporal/dev-server.js');
  const { startGateway } = await import('../src/gateway/server.js');
  const { default: agents } = await import('../examples/agents/index.js');

  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) {
      await stopOne().catch((error: unknown) => console.error(`stopping: ${String(error)}`));
    }
    stops.length = 0;
  };
  try {
    log('starting the Temporal dev server');
    const server = await startDevServer(dbFile ? { dbFile } : {});
    stops.push(() => server.stop());

    log('starting the raw worker and the project worker (child processes)');
    const projectWorker = startProjectWorker(server.address, PROJECT_TASK_QUEUE, profileDir);
    stops.push(() => stopChild(projectWorker));
    const rawWorker = await startRawWorker(server.address, RAW_TASK_QUEUE);
    stops.push(() => stopChild(rawWorker));
    const calls = { project: new TemporalCalls(), raw: new TemporalCalls() };
    const raw = await RawFloor.connect(server.address, RAW_TASK_QUEUE, calls.raw.interceptors);
    stops.push(() => raw.close());
    const rawHttp = await RawHttpFront.start(raw);
    stops.push(() => rawHttp.close());
    const rawFanout = await RawFanout.start(raw.client);
    stops.push(() => rawFanout.close());

    const connection = await Connection.connect({
      address: server.address,
      interceptors: calls.project.interceptors,
    });
    stops.push(() => connection.close());
    const replySplit = new ReplySplit();
    const gateway = await startGateway({
      client: new Client({ connection, interceptors: { workflow: [replySplit.interceptor] } }),
      agents,
      grpcPort: false,
      taskQueue: PROJECT_TASK_QUEUE,
    });
    stops.push(() => gateway.close());
    const subscribers = await Subscribers.start();
    stops.push(() => subscribers.stop());

    const agentUrl = (name: string) => `${gateway.url}/agents/${name}`;
    log('warming up both sides');
    // The project worker bundles its workflows on start: the first messages wait for it.
    for (let attempt = 1; ; attempt++) {
      try {
        await sendBlocking(agentUrl('echo'), 'warm-up', 'TASK_STATE_COMPLETED');
        break;
      } catch (error) {
        if (attempt >= 4 || projectWorker.exitCode !== null) throw error;
        await sleep(1000);
      }
    }
    for (let i = 0; i < 5; i++) {
      await sendBlocking(agentUrl('echo'), 'warm-up', 'TASK_STATE_COMPLETED');
      await waitingExpenseTask(agentUrl('expense-approval'));
      await raw.echo('warm-up');
      await raw.waiting();
      await rawHttp.echo();
      await rawHttp.resume(await rawHttp.waiting());
    }
    return {
      temporalAddress: server.address,
      taskQueue: PROJECT_TASK_QUEUE,
      ...(dbFile && { dbFile }),
      ...(server.pid !== undefined && { temporalPid: server.pid }),
      raw,
      rawHttp,
      rawFanout,
      rawWorker,
      projectWorker,
      subscribers,
      replySplit,
      calls,
      gatewayUrl: gateway.url,
      agentUrl,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
