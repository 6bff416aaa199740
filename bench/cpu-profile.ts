/**
 * `--cpu-profile DIR`: CPU profiles of the gateway (this process, through the inspector) and of the
 * project's worker (its `--cpu-prof`), written to DIR when the run stops; open them in Chrome
 * DevTools or speedscope. The raw side and the Temporal server are not profiled.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';

/** Node flags that make a child process write its profile to `dir` when it exits. */
export function childProfileFlags(dir: string | undefined): string[] {
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(dir)}`] : [];
}

/** Starts profiling this process; the returned function stops and writes `gateway.cpuprofile`. */
export async function profileThisProcess(dir: string): Promise<() => Promise<void>> {
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(dir, 'gateway.cpuprofile'), JSON.stringify(profile));
    session.disconnect();
  };
}
