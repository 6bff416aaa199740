/**
 * Streaming benchmarks (targets from the gateway issue):
 *  1. latency: how long a status change takes to reach an SSE subscriber (target: 50 ms median);
 *  2. idle cost: CPU the gateway burns while many SSE streams wait on idle tasks (target: ~0).
 * Runs a dev server, a worker (child process) and the gateway (this process) on loopback.
 *   npx tsx bench/sse-latency.ts [--iterations 30] [--streams 50] [--idle-seconds 10]
 */
import { Client, Connection } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import agents from '../examples/agents/index.js';
import { startGateway } from '../src/gateway/server.js';
import { startDevServer } from '../src/temporal/dev-server.js';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '30' },
    streams: { type: 'string', default: '50' },
    'idle-seconds': { type: 'string', default: '10' },
  },
});
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TARGET_MEDIAN_MS = 50;

async function rpc(url: string, method: string, params: unknown): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
  });
  const body = (await response.json()) as { result?: any; error?: unknown };
  if (!body.result) throw new Error(`${method} failed: ${JSON.stringify(body.error)}`);
  return body.result;
}

function message(text: string, taskId?: string) {
  return { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) } };
}

/** Opens SubscribeToTask and calls `onEvent` with each parsed event and its arrival time. */
async function subscribe(url: string, taskId: string, onEvent: (event: any, at: number) => void, signal: AbortSignal) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
    signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line.startsWith('data:')) onEvent(JSON.parse(line.slice(5)).result, performance.now());
        }
      }
    } catch {
      // aborted
    }
  })();
}

async function waitingTask(url: string): Promise<string> {
  const result = await rpc(url, 'SendMessage', message('Please approve an expense of 120 USD for a team lunch'));
  return result.task.id as string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const server = await startDevServer();
  const worker = spawn(process.execPath, ['bin/a2a-temporal.js', 'worker', 'examples/a2a-temporal.config.ts'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: server.address, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' },
    stdio: 'inherit',
  });
  const connection = await Connection.connect({ address: server.address });
  const gateway = await startGateway({ client: new Client({ connection }), agents, grpcPort: false });
  const url = `${gateway.url}/agents/expense-approval`;
  try {
    await waitingTask(url); // warm-up: the worker bundles its workflows on start

    const latencies: number[] = [];
    for (let i = 0; i < Number(values.iterations); i++) {
      const taskId = await waitingTask(url);
      const abort = new AbortController();
      let sentAt = 0;
      const reached = new Promise<number>((resolve) => {
        void subscribe(
          url,
          taskId,
          (event, at) => {
            if (sentAt && event.statusUpdate?.status?.state === 'TASK_STATE_WORKING') resolve(at - sentAt);
          },
          abort.signal,
        );
      });
      await new Promise((r) => setTimeout(r, 100)); // the subscription is open and idle
      sentAt = performance.now();
      await rpc(url, 'SendMessage', { ...message('approve', taskId), configuration: { returnImmediately: true } });
      latencies.push(await reached);
      abort.abort();
    }
    latencies.sort((a, b) => a - b);
    const median = percentile(latencies, 50);
    console.log(
      `follow-up sent -> SSE subscriber sees "working" (update, workflow task, history long-poll, event read), ${latencies.length} runs:`,
    );
    console.log(
      `  median ${median.toFixed(1)} ms, p90 ${percentile(latencies, 90).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
    );
    console.log(`  ratio to the 50 ms target: ${(median / TARGET_MEDIAN_MS).toFixed(2)} (<= 1 meets it)`);

    // Status changes of a running task, timed from the workflow's own status timestamp (same clock).
    const report = await rpc(url.replace('expense-approval', 'long-report'), 'SendMessage', {
      ...message('latency'),
      message: {
        ...message('latency').message,
        parts: [{ text: 'latency' }, { data: { sections: 30, sectionMs: 100 } }],
      },
      configuration: { returnImmediately: true },
    });
    const lags: number[] = [];
    const reportDone = new AbortController();
    await new Promise<void>((resolve) => {
      void subscribe(
        url.replace('expense-approval', 'long-report'),
        report.task.id,
        (event) => {
          const status = event.statusUpdate?.status;
          if (!status) return;
          lags.push(Date.now() - Date.parse(status.timestamp));
          if (status.state === 'TASK_STATE_COMPLETED') resolve();
        },
        reportDone.signal,
      );
    });
    reportDone.abort();
    lags.sort((a, b) => a - b);
    console.log(`status change (workflow timestamp) -> SSE client, ${lags.length} changes of a running task:`);
    console.log(`  median ${percentile(lags, 50)} ms, p90 ${percentile(lags, 90)} ms, max ${lags.at(-1)} ms`);
    console.log(`  ratio to the 50 ms target: ${(percentile(lags, 50) / TARGET_MEDIAN_MS).toFixed(2)}`);

    const streams = Number(values.streams);
    const idleAbort = new AbortController();
    for (let i = 0; i < streams; i++) void subscribe(url, await waitingTask(url), () => {}, idleAbort.signal);
    await new Promise((r) => setTimeout(r, 1000));
    const seconds = Number(values['idle-seconds']);
    const before = process.cpuUsage();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const used = process.cpuUsage(before);
    const cpuMs = (used.user + used.system) / 1000;
    console.log(`${streams} idle SSE streams for ${seconds} s: gateway process CPU ${cpuMs.toFixed(1)} ms`);
    console.log(
      `  = ${((cpuMs / (seconds * 1000)) * 100).toFixed(3)}% of one core; per stream per second ${(cpuMs / streams / seconds).toFixed(3)} ms`,
    );
    idleAbort.abort();
  } finally {
    await gateway.close();
    await connection.close();
    worker.kill('SIGINT');
    await new Promise((r) => worker.once('exit', r));
    await server.stop();
  }
}

await main();
