/**
 * The whole product in one process tree, for `npm start` and end-to-end tests: a Temporal dev
 * server persisted to a database file (unless TEMPORAL_ADDRESS points at a server), a worker with
 * every agent, and the gateway.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { agents } from './agents/index.js';
import { gatewaySettings } from './gateway/config.js';
import { startGatewayServer } from './gateway/server.js';
import { startDevServer, type DevServer } from './temporal/dev-server.js';
import { temporalSettings } from './temporal/connection.js';
import { createWorker } from './worker.js';

export interface StackOptions {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface RunningStack {
  gatewayUrl: string;
  grpcAddress?: string;
  temporalAddress: string;
  /** Set when this stack started its own dev server. */
  temporalUiUrl?: string;
  dbFile?: string;
  stop(): Promise<void>;
}

export const DEFAULT_DB_FILE = '.data/temporal.db';

export async function startStack(options: StackOptions = {}): Promise<RunningStack> {
  const env = options.env ?? process.env;
  let devServer: DevServer | undefined;
  let dbFile: string | undefined;
  let uiPort: number | undefined;
  if (!env.TEMPORAL_ADDRESS) {
    dbFile = resolve(env.A2A_DATA_DB ?? DEFAULT_DB_FILE);
    mkdirSync(dirname(dbFile), { recursive: true });
    uiPort = Number(env.TEMPORAL_UI_PORT ?? 8233);
    devServer = await startDevServer({
      port: Number(env.TEMPORAL_PORT ?? 7233),
      uiPort,
      dbFile,
      ...(options.log && { log: options.log }),
    });
  }
  const settings = temporalSettings(devServer ? { ...env, TEMPORAL_ADDRESS: devServer.address } : env);

  const nativeConnection = await NativeConnection.connect(settings.connection);
  const worker = await createWorker(nativeConnection, { namespace: settings.namespace, taskQueue: settings.taskQueue });
  const workerRun = worker.run();

  const connection = await Connection.connect(settings.connection);
  const client = new Client({ connection, namespace: settings.namespace });
  const gateway = await startGatewayServer({
    client,
    agents,
    ...gatewaySettings(env, '127.0.0.1'),
    taskQueue: settings.taskQueue,
  });

  let stopped: Promise<void> | undefined;
  return {
    gatewayUrl: gateway.url,
    ...(gateway.grpcAddress && { grpcAddress: gateway.grpcAddress }),
    temporalAddress: settings.address,
    ...(uiPort && { temporalUiUrl: `http://127.0.0.1:${uiPort}` }),
    ...(dbFile && { dbFile }),
    stop() {
      stopped ??= (async () => {
        await gateway.close();
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await workerRun;
        await connection.close();
        await nativeConnection.close();
        await devServer?.stop();
      })();
      return stopped;
    },
  };
}
