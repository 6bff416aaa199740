/**
 * Starts a Temporal dev server (with the Temporal UI and this product's search attributes) from
 * the CLI that `locateTemporalCli` finds, and waits until it answers.
 */
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { SEARCH_ATTRIBUTE_DEFINITIONS, searchAttributeTypeName } from '../protocol/search-attributes.js';
import { registerSearchAttributes } from './search-attributes.js';
import { HOW_TO_GET_THE_CLI, locateTemporalCli } from './cli.js';

/** How {@link startDevServer} starts the dev server. */
export interface DevServerOptions {
  /** The gRPC port. Default: a free one. */
  port?: number;
  /** 0 or undefined: no UI. */
  uiPort?: number;
  /** SQLite file that keeps tasks across restarts; in memory when absent. */
  dbFile?: string;
  /** Extra `--dynamic-config-value KEY=VALUE` settings. */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** Receives the server's output, as it comes. Default: dropped. */
  log?: (line: string) => void;
  /** How long to wait for the server to answer. Default 60 s. */
  startTimeoutMs?: number;
  /** Aborting it while the server starts kills the server and rejects. */
  signal?: AbortSignal;
}

/** How the dev server process ended. */
export interface DevServerExit {
  /** Its exit code, when it exited. */
  code: number | null;
  /** The signal that ended it, when one did. */
  signal: NodeJS.Signals | null;
}

/** A running Temporal dev server. */
export interface DevServer {
  /** `host:port` of its frontend. */
  address: string;
  /** The namespace it serves ('default'). */
  namespace: string;
  /**
   * The server's process id, and a promise that resolves when that process ends for whatever reason
   * (stop() included), so that a supervisor can restart it. Both absent when the Temporal SDK
   * downloaded the CLI and runs it: the SDK hides that process, so such a server is not supervised.
   */
  pid?: number;
  /** Resolves when the server process ends (see `pid`). */
  exited?: Promise<DevServerExit>;
  /** Stops the server and waits for it to end. */
  stop(): Promise<void>;
}

/**
 * Ports handed out are picked below Linux's ephemeral range (32768–60999): a port found by
 * listening on 0 comes from that range, and between our check and the real bind any outgoing
 * connection or `listen(0)` on the machine (Temporal picks its HTTP and metrics ports that way)
 * may take it. Below the range only another explicit pick can, and this process never repeats one.
 */
const PICKED_PORTS = { low: 20_000, high: 32_000, handedOut: new Set<number>() };

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = PICKED_PORTS.low + Math.floor(Math.random() * (PICKED_PORTS.high - PICKED_PORTS.low));
    if (PICKED_PORTS.handedOut.has(port) || (await portInUse(port))) continue;
    PICKED_PORTS.handedOut.add(port);
    return port;
  }
  return anyFreePort();
}

function anyFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** True when something already listens on 127.0.0.1:`port` (e.g. another dev server). */
export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

/**
 * OTEL_* configure this product's tracing (src/telemetry/tracing.ts), not the dev server's: the
 * Temporal server reads them too, and refuses to start on exporters it lacks (`console`).
 */
function withoutOtelSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('OTEL_')));
}

/**
 * Temporal flags a workflow whose workflow task keeps failing in its TemporalReportedProblems
 * search attribute (its UI's "Task Failures" view), by default after 5 failures in a row: a minute
 * or more of retries. In development a task blocked by a deploy is listed as such (the inbox's
 * rows) from its first failure.
 */
const DEV_DYNAMIC_CONFIG = { 'system.numConsecutiveWorkflowTaskProblemsToTriggerSearchAttribute': 1 };

/**
 * Starts a Temporal dev server, with the Temporal UI when `uiPort` is given and the search attributes
 * tasks need, and waits until it answers. The CLI is found as docs/troubleshooting.md says.
 *
 * @example
 * const server = await startDevServer({ uiPort: 8233, dbFile: '.data/temporal.db' });
 * console.log(`Temporal at ${server.address}`);
 * await server.stop();
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const source = locateTemporalCli(process.env);
  const port = options.port ?? (await freePort());
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const { name, type } of SEARCH_ATTRIBUTE_DEFINITIONS) {
    args.push('--search-attribute', `${name}=${searchAttributeTypeName(type)}`);
  }
  for (const [key, value] of Object.entries({ ...DEV_DYNAMIC_CONFIG, ...options.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  const server =
    source.kind === 'sdk-download'
      ? await startWithSdkDownload(args.slice(2))
      : await startCli(source.path, args, port, options);
  await registerOnDevServer(server);
  return server;
}

async function startCli(cliPath: string, args: string[], port: number, options: DevServerOptions): Promise<DevServer> {
  const child = spawn(cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: withoutOtelSettings(process.env) });
  const exited = new Promise<DevServerExit>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    output.push(chunk.toString());
    options.log?.(chunk.toString());
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const address = `127.0.0.1:${port}`;
  try {
    await waitUntilServing(address, child, options.startTimeoutMs ?? 60_000, options.signal);
  } catch (error) {
    child.kill('SIGKILL');
    if (child.pid !== undefined) await exited; // So that a caller may retry on the same ports at once.
    throw new Error(`${(error as Error).message}\nTemporal CLI output:\n${output.join('').slice(-2000)}`);
  }
  return { address, namespace: 'default', pid: child.pid!, exited, stop: () => stopChild(child, exited) };
}

/**
 * The `--search-attribute` flags register the attributes only in a new database file: a
 * `.data/temporal.db` made by an earlier release lacks those a later one added, and every task
 * writing one would fail (BadSearchAttributes). Add what is missing, as `setup` does.
 */
async function registerOnDevServer(server: DevServer): Promise<void> {
  const connection = await Connection.connect({ address: server.address, connectTimeout: 5000 });
  try {
    await registerSearchAttributes(connection, server.namespace);
  } finally {
    await connection.close();
  }
}

async function waitUntilServing(
  address: string,
  child: ChildProcess,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (signal?.aborted) throw new Error('Temporal dev server start aborted');
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Temporal dev server exited (${child.signalCode ?? `code ${child.exitCode}`})`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`Temporal dev server did not answer at ${address} within ${timeoutMs} ms: ${String(lastError)}`);
}

async function stopChild(child: ChildProcess, exited: Promise<DevServerExit>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * On an online machine with no CLI installed, let the Temporal SDK download one. The SDK runs that
 * server and does not expose its process, so it comes without `pid`/`exited` and is not supervised.
 */
async function startWithSdkDownload(extraArgs: string[]): Promise<DevServer> {
  try {
    const env = await TestWorkflowEnvironment.createLocal({ server: { extraArgs } });
    return {
      address: env.address,
      namespace: env.namespace ?? 'default',
      stop: () => env.teardown(),
    };
  } catch (error) {
    throw new Error(`${HOW_TO_GET_THE_CLI}\n(The Temporal SDK's download failed: ${(error as Error).message})`);
  }
}
