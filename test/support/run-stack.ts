/** Runs `npm start`'s command (`a2a-temporal dev` on the examples) as a child process on free ports, as a user would run it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/temporal/dev-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface StackPorts {
  port: number;
  temporalPort: number;
  uiPort: number;
  dbFile: string;
}

export async function stackPorts(dbFile: string): Promise<StackPorts> {
  return { port: await freePort(), temporalPort: await freePort(), uiPort: await freePort(), dbFile };
}

export interface StackProcess {
  url: string;
  output(): string;
  /** Ctrl-C, then wait for the whole tree to exit. */
  stop(): Promise<number | null>;
}

export async function runStack(ports: StackPorts, timeoutMs = 90_000): Promise<StackProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(ports.port),
    GRPC_PORT: 'off',
    TEMPORAL_PORT: String(ports.temporalPort),
  };
  Object.assign(env, { TEMPORAL_UI_PORT: String(ports.uiPort), A2A_DATA_DB: ports.dbFile, LOG_FORMAT: 'json' });
  delete env.TEMPORAL_ADDRESS;
  const child: ChildProcess = spawn(
    process.execPath,
    ['bin/a2a-temporal.js', 'dev', 'examples/a2a-temporal.config.ts'],
    {
      cwd: ROOT,
      env,
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!output.includes('a2a-temporal is running.')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The stack did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url: `http://127.0.0.1:${ports.port}`,
    output: () => output,
    async stop() {
      child.kill('SIGINT');
      return exited;
    },
  };
}
