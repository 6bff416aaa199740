/**
 * `a2a-temporal dev`: a persistent Temporal dev server (with its UI) and, in a child process, the
 * project's worker and gateway. When the project's files change, the child is replaced; the dev
 * server and every task in it stay, so tasks waiting for a human keep waiting across the reload.
 * When the dev server dies, it is restarted on the same ports and database file; the child carries
 * on, since its worker and its gateway's client reconnect by themselves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { watch, type FSWatcher } from 'chokidar';
import { findConfigFile } from '../config/load-config.js';
import type { Settings } from '../config/settings.js';
import { temporalCliCommand } from '../temporal/cli.js';
import { portInUse, startDevServer, type DevServer, type DevServerExit } from '../temporal/dev-server.js';
import type { ServeReady } from './serve-process.js';
import { checkWaitingTasks } from './waiting-tasks-check.js';

/** Folders whose changes never reload the project. */
const IGNORED = /(^|[/\\])(node_modules|\.git|\.data|\.tools|dist|coverage)([/\\]|$)/;
/**
 * The files whose changes reload it: code, the config and JSON it may read (an approver directory).
 * Anything else written into the project folder (a log file, say) would otherwise reload it, and
 * a log the new child writes to reload it again, without end.
 */
const RELOADING_FILES = /\.(?:[cm]?[jt]sx?|json)$/;
const RELOAD_DEBOUNCE_MS = 250;
const CHILD_STOP_TIMEOUT_MS = 15_000;
/** Delays before restarting a dead dev server: doubling from the first up to the last. */
const RESTART_DELAY_MS = { first: 500, max: 10_000 };
/** A dev server up this long was healthy: if it dies, it is restarted after the first delay again. */
const HEALTHY_AFTER_MS = 30_000;

const EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const SERVE_PROCESS = fileURLToPath(new URL(`./serve-process${EXTENSION}`, import.meta.url));

export interface DevStackOptions {
  /** Config file, or a folder holding one; default: the current folder. */
  config?: string;
  /** The environment the serving process is given (it reads its settings from it). */
  env: NodeJS.ProcessEnv;
  /** What this process read of `env`. */
  settings: Settings;
  /** Progress lines for a person (the banner, reloads). */
  print: (text: string) => void;
}

export interface RunningDevStack {
  ready: ServeReady;
  /** The dev server's process id; a restart changes it. Undefined when TEMPORAL_ADDRESS names a server. */
  readonly devServerPid: number | undefined;
  stop(): Promise<void>;
}

export async function startDevStack(options: DevStackOptions): Promise<RunningDevStack> {
  const { env, settings } = options;
  const configFile = findConfigFile(options.config);
  let devServer: SupervisedDevServer | undefined;
  let dbFile: string | undefined;
  let uiUrl: string | undefined;
  if (!settings.TEMPORAL_ADDRESS) {
    dbFile = resolve(settings.A2A_DATA_DB);
    mkdirSync(dirname(dbFile), { recursive: true });
    const { TEMPORAL_UI_PORT: uiPort, TEMPORAL_PORT: port } = settings;
    // The CLI would fail to bind, and this stack would then talk to whatever server holds the port.
    for (const [name, taken] of [
      ['TEMPORAL_PORT', port],
      ['TEMPORAL_UI_PORT', uiPort],
    ] as const) {
      if (await portInUse(taken)) {
        throw new Error(
          `Port ${taken} (${name}) is in use, probably by another Temporal dev server or a2a-temporal dev. Stop it, ` +
            `pick other ports with TEMPORAL_PORT and TEMPORAL_UI_PORT, or use that server: TEMPORAL_ADDRESS=127.0.0.1:${port}`,
        );
      }
    }
    devServer = await superviseDevServer({ port, uiPort, dbFile }, options.print);
    uiUrl = `http://127.0.0.1:${uiPort}`;
  }
  // The CLI the warnings tell the user to type: the one this stack runs (or would run).
  const temporalCli = temporalCliCommand(env);
  const devTemporal = devServer && { TEMPORAL_ADDRESS: devServer.address, TEMPORAL_NAMESPACE: 'default' };
  const childEnv = { ...env, ...devTemporal };
  const childSettings = { ...settings, ...devTemporal };

  let current = startServeChild(configFile, childEnv);
  let firstReady: ServeReady;
  try {
    firstReady = await current.ready;
  } catch (error) {
    await devServer?.stop();
    throw error;
  }
  options.print(banner(firstReady, { ...(uiUrl && { uiUrl }), ...(dbFile && { dbFile }) }));
  /** The last child that was ready: whose agents and tasks a save is checked against. */
  let lastReady = firstReady;

  // Reloads run one at a time; changes that arrive during one are folded into the next.
  let reloading: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopping = false;
  const changed = new Set<string>();
  const watcher = watchProjectFiles(dirname(configFile));
  watcher.on('all', (_event, path) => {
    changed.add(relative(process.cwd(), path));
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...changed];
      changed.clear();
      reloading = reloading.then(() => reload(files));
    }, RELOAD_DEBOUNCE_MS);
  });

  async function reload(files: string[]): Promise<void> {
    if (stopping) return;
    options.print(
      `\n${files.join(', ')} changed: restarting the worker and the gateway (tasks in Temporal carry on)\n`,
    );
    // Before the new worker starts (while the old one stops): would the saved code break the tasks
    // waiting for an answer? The check only warns; the reload goes on whatever it finds.
    await Promise.all([
      checkWaitingTasks({
        previous: lastReady,
        settings: childSettings,
        ...(uiUrl && { uiUrl }),
        ...(temporalCli && { temporalCli }),
        ...(dbFile && { dbFile: shortPath(dbFile) }),
        print: options.print,
      }),
      current.stop(),
    ]);
    if (stopping) return;
    current = startServeChild(configFile, childEnv);
    try {
      const ready = await current.ready;
      const hint = newlyUnableModelHint(lastReady, ready);
      lastReady = ready;
      options.print(`Reloaded: ${ready.agents.map((agent) => agent.name).join(', ')} at ${ready.gatewayUrl}\n`);
      if (hint.length > 0) options.print(`${hint.join('\n')}\n`);
    } catch (error) {
      options.print(`The project failed to start (${(error as Error).message}); fix it and save to retry.\n`);
    }
  }

  let stopped: Promise<void> | undefined;
  return {
    ready: firstReady,
    get devServerPid() {
      return devServer?.pid;
    },
    stop() {
      stopped ??= (async () => {
        stopping = true;
        clearTimeout(timer);
        await watcher.close();
        await reloading;
        await current.stop();
        await devServer?.stop();
      })();
      return stopped;
    },
  };
}

/** Changes to the project's source and config files under `dir` (folders are watched to find them). */
export function watchProjectFiles(dir: string): FSWatcher {
  return watch(dir, {
    ignored: (path, stats) => IGNORED.test(path) || (stats?.isFile() === true && !RELOADING_FILES.test(path)),
    ignoreInitial: true,
  });
}

interface SupervisedDevServer {
  address: string;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a dev server and, whenever its process ends other than through stop(), starts it again on
 * the same ports and database file, with growing delays between attempts. stop() also ends a
 * restart under way: no dev server outlives it.
 */
async function superviseDevServer(
  options: { port: number; uiPort: number; dbFile: string },
  print: (text: string) => void,
): Promise<SupervisedDevServer> {
  let server: DevServer = await startDevServer(options);
  let upSince = Date.now();
  let nextDelay = RESTART_DELAY_MS.first;
  let stopping = false;
  const stopRestarts = new AbortController();

  async function supervise(): Promise<void> {
    // Without a process to watch (a server the Temporal SDK runs), there is nothing to supervise.
    while (server.exited) {
      const exit = await server.exited;
      if (stopping) return;
      if (Date.now() - upSince >= HEALTHY_AFTER_MS) nextDelay = RESTART_DELAY_MS.first;
      print(
        `\nThe Temporal dev server died (${describeExit(exit)}). Restarting it on the same database ` +
          `(${shortPath(options.dbFile)}) in ${seconds(nextDelay)}; the worker and the gateway wait for it.\n`,
      );
      const restarted = await restart();
      if (!restarted) return;
      server = restarted;
      upSince = Date.now();
      print(`The Temporal dev server is back at ${server.address}; tasks carry on.\n`);
    }
  }

  /** The restarted server, or undefined once stop() was called. */
  async function restart(): Promise<DevServer | undefined> {
    for (;;) {
      const delay = nextDelay;
      nextDelay = Math.min(delay * 2, RESTART_DELAY_MS.max);
      await sleep(delay, undefined, { signal: stopRestarts.signal }).catch(() => {});
      if (stopping) return undefined;
      try {
        const restarted = await startDevServer({ ...options, signal: stopRestarts.signal });
        if (!stopping) return restarted;
        // stop() came as the server answered for the first time: it must not outlive the stack.
        await restarted.stop();
        return undefined;
      } catch (error) {
        if (stopping) return undefined;
        print(
          `The Temporal dev server failed to restart: ${(error as Error).message}\nRetrying in ${seconds(nextDelay)}.\n`,
        );
      }
    }
  }

  const supervising = supervise();
  return {
    address: server.address,
    get pid() {
      return server.pid;
    },
    async stop() {
      stopping = true;
      stopRestarts.abort();
      await Promise.all([server.stop(), supervising]);
    },
  };
}

function describeExit(exit: DevServerExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

interface ServeChild {
  ready: Promise<ServeReady>;
  stop(): Promise<void>;
}

function startServeChild(configFile: string, env: NodeJS.ProcessEnv): ServeChild {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), SERVE_PROCESS, configFile],
    {
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const ready = new Promise<ServeReady>((resolveReady, reject) => {
    child.on('message', (message: ServeReady) => {
      if (message.kind === 'ready') resolveReady(message);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the worker and gateway process exited (${signal ?? `code ${code}`}) before it was ready`)),
    );
  });
  ready.catch(() => {}); // Awaited by whoever cares; an early exit must not be an unhandled rejection.
  return {
    ready,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** What to set for LLM agents that cannot run on the worker's model settings: the banner's, and a reload's. */
function modelHint(missing: NonNullable<ServeReady['modelMissing']>): string[] {
  return [`  ${missing.agents.join(', ')}: ${missing.reason}.`, '  Until then their tasks fail saying so.'];
}

/** The hint for LLM agents a reload added (or whose model it unset): said once, when they appear. */
function newlyUnableModelHint(before: ServeReady, after: ServeReady): string[] {
  const known = new Set(before.modelMissing?.agents ?? []);
  const agents = after.modelMissing?.agents.filter((agent) => !known.has(agent)) ?? [];
  return agents.length > 0 ? modelHint({ ...after.modelMissing!, agents }) : [];
}

function banner(ready: ServeReady, where: { uiUrl?: string; dbFile?: string }): string {
  const example = ready.agents.find((agent) => agent.name === ready.defaultAgent) ?? ready.agents[0]!;
  const width = Math.max(...ready.agents.map((agent) => agent.name.length)) + 2;
  return [
    '',
    'a2a-temporal is running.',
    '',
    `  Agent card (default agent, ${ready.defaultAgent}):  ${ready.gatewayUrl}/.well-known/agent-card.json`,
    ...ready.agents.map(
      (agent) => `  ${agent.name.padEnd(width)} ${ready.gatewayUrl}/agents/${agent.name}  (JSON-RPC; REST under /rest)`,
    ),
    ...(ready.grpcAddress ? [`  gRPC (all agents, by tenant; default agent without one):  ${ready.grpcAddress}`] : []),
    `  Approvals inbox (questions waiting for people, all agents):  ${ready.gatewayUrl}/inbox/`,
    `  Temporal:  ${ready.temporalAddress}${where.uiUrl ? `   UI: ${where.uiUrl}` : ''}`,
    ...(where.dbFile ? [`  Tasks persist in ${shortPath(where.dbFile)}`] : []),
    ...observability(ready),
    ready.authentication === 'none'
      ? '  No authentication (development mode): anyone who reaches the gateway can read, answer and cancel any task. Set A2A_AUTH to turn it on.'
      : `  Authentication: ${ready.authentication}`,
    ...(ready.modelMissing ? ['', ...modelHint(ready.modelMissing)] : []),
    '',
    `Try it (in another terminal):`,
    `  npx a2a-temporal send ${example.name} "${example.example ?? 'hello'}" --url ${ready.gatewayUrl}`,
    'then, if it asks a question:  npx a2a-temporal tasks reply <taskId> <answer> --agent ' +
      `${example.name} --url ${ready.gatewayUrl}`,
    '',
    'Saving a file of the project restarts the worker and the gateway; waiting tasks keep waiting.',
    'Ctrl-C stops everything.',
    '',
  ].join('\n');
}

/** Where the metrics and the traces are (docs/observability.md). */
function observability(ready: ServeReady): string[] {
  const { gateway, worker } = ready.metrics;
  const endpoints = [gateway && `gateway ${gateway}`, worker && `worker ${worker}`].filter(Boolean);
  return [
    `  Metrics (Prometheus): ${endpoints.length > 0 ? endpoints.join('   ') : 'off'}`,
    ready.traces
      ? `  Traces: ${ready.traces}`
      : '  Traces: off (set OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://localhost:4318, to send them)',
  ];
}

/** Relative to the current folder when inside it, else absolute. */
function shortPath(file: string): string {
  const path = relative(process.cwd(), file);
  return path.startsWith('..') ? file : path;
}
