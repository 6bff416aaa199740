/** The gateway entrypoint as its own process, as deployed: several of them, killed and restarted. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { freePort } from '../../src/temporal/dev-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface GatewayProcess {
  url: string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startGatewayProcess(taskQueue: string): Promise<GatewayProcess> {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    GRPC_PORT: 'off',
    HOST: '127.0.0.1',
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    A2A_TASK_QUEUE: taskQueue,
    A2A_AUTH: 'none',
    LOG_LEVEL: 'warn',
  };
  const child: ChildProcess = spawn(
    process.execPath,
    ['bin/a2a-temporal.js', 'gateway', 'examples/a2a-temporal.config.ts'],
    { cwd: ROOT, env },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null || attempt > 150) throw new Error(`gateway did not start:\n${output}`);
    const ready = await fetch(`${url}/.well-known/agent-card.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}
