/**
 * The benchmark suite: one Temporal dev server; for each path the raw-Temporal floor (own minimal
 * workflows and worker, bench/raw*.ts) next to the project over A2A JSON-RPC, in alternating batches;
 * each path's figures, ratio and target as it finishes, then one table.
 *   npm run bench                 full run (several minutes)
 *   npm run bench -- --quick      smoke run with small counts
 *   npm run bench -- --help       every count flag
 *   npm run bench -- --paths 2 --cpu-profile prof   CPU profiles of the gateway and the project's worker
 */
import './log-env.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acrossGateways } from './paths/across-gateways.js';
import { coldResume } from './paths/cold-resume.js';
import { echoInFlight, echoSequential } from './paths/echo.js';
import { statusFanout } from './paths/fanout.js';
import { hitlResume } from './paths/hitl.js';
import { idleStreams } from './paths/idle-streams.js';
import { inboxClick } from './paths/inbox-click.js';
import { inboxFirstPage } from './paths/inbox-page.js';
import { listTasks } from './paths/list-tasks.js';
import { manyWaiting } from './paths/many-waiting.js';
import type { BenchPath } from './paths/types.js';
import { waitingMemory } from './paths/waiting-memory.js';
import { profileThisProcess } from './cpu-profile.js';
import { describeFloor, measureFloor } from './floor.js';
import { editedPackageFiles } from './installed-packages.js';
import { parseBenchOptions } from './options.js';
import { printRows, printTable, verdict, type Row } from './report.js';
import { startStack, type Stack } from './stack.js';

const PATHS: BenchPath[] = [
  echoSequential,
  echoInFlight,
  hitlResume,
  statusFanout,
  idleStreams,
  listTasks,
  // It leaves thousands of waiting tasks behind (later paths run on task queues of their own).
  waitingMemory,
  coldResume,
  acrossGateways,
  // Only with --many-waiting N.
  manyWaiting,
  inboxFirstPage,
  inboxClick,
];

/** Operations per kind for the machine floor (capped: it runs before every path). */
const FLOOR_COUNT = 100;

const options = parseBenchOptions();
const began = performance.now();
const log = (line: string) => console.log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const edited = editedPackageFiles();
const editedWarning =
  edited.length > 0 &&
  `WARNING: ${edited.length} file(s) of the measured packages changed after npm install (${edited.slice(0, 3).join(', ')}${edited.length > 3 ? ', ...' : ''}); ` +
    'these figures are not those of the published packages (npm ci restores them)';
if (editedWarning) console.warn(editedWarning);

let stack: Stack | undefined;
let stopping: Promise<void> | undefined;
const stopAll = () => (stopping ??= stack?.stop() ?? Promise.resolve());

// Bounded in time whatever happens: stop everything this run started, then exit.
const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${options.maxMinutes} min (--max-minutes); stopping`);
  void stopAll().finally(() => process.exit(2));
}, options.maxMinutes * 60_000);
watchdog.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopAll().finally(() => process.exit(130)));
}

// Path 10 measures the dev server's database file.
const dbDir = options.manyWaiting > 0 ? mkdtempSync(join(tmpdir(), 'a2a-bench-')) : undefined;
const rows: Row[] = [];
const failures: string[] = [];
let floorText = '';
try {
  log(`options: ${JSON.stringify(options)}`);
  stack = await startStack(log, options.cpuProfileDir, dbDir && join(dbDir, 'temporal.sqlite'));
  log('measuring the machine floor');
  floorText = describeFloor(await measureFloor(stack.raw, Math.min(options.iterations, FLOOR_COUNT)), loadavg());
  log(floorText);
  const stopProfiling = options.cpuProfileDir ? await profileThisProcess(options.cpuProfileDir) : undefined;
  for (const [index, path] of PATHS.entries()) {
    if (options.paths && !options.paths.includes(index + 1)) continue;
    log(path.title);
    try {
      const pathRows = await path.run({ stack, options, log });
      printRows(pathRows);
      rows.push(...pathRows);
    } catch (error) {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`    FAILED: ${detail}`);
      failures.push(`${path.title}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  await stopProfiling?.();
} finally {
  log('stopping');
  await stopAll();
  if (dbDir) rmSync(dbDir, { recursive: true, force: true });
  clearTimeout(watchdog);
}

console.log(
  `\nResults (${options.quick ? 'quick' : 'full'} run, ${((performance.now() - began) / 1000).toFixed(0)} s):`,
);
console.log(floorText);
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} (1, 5, 15 min)`,
);
printTable(rows);
const missed = rows.filter((row) => verdict(row).met === false);
console.log(`\n${missed.length} of ${rows.filter((row) => verdict(row).met !== undefined).length} targets missed.`);
for (const failure of failures) console.log(`FAILED path: ${failure}`);
if (editedWarning) console.warn(editedWarning);
process.exitCode = failures.length > 0 ? 1 : 0;
