/**
 * Benchmark flags. Every count has a full default and a `--quick` default (a smoke run of a
 * minute or two); a flag given explicitly wins over both.
 */
import { parseArgs } from 'node:util';

export interface BenchOptions {
  quick: boolean;
  /** Sequential operations per side (echo, HITL resume) and rounds of the 1-subscriber fan-out. */
  iterations: number;
  /** Operations per side for the in-flight throughput path. */
  parallelOps: number;
  /** Operations in flight in the throughput path. */
  concurrency: number;
  /** Alternating raw/project batches per side. */
  batches: number;
  /** Subscriber counts of the one-task fan-out path. */
  fanout: number[];
  /** Rounds per fan-out size above 1 subscriber. */
  fanoutRounds: number;
  /** SSE streams on distinct waiting tasks (idle memory and CPU). */
  streams: number;
  idleSeconds: number;
  /** ListTasks (page of 50) calls per side. */
  listIterations: number;
  /** Waiting tasks (and raw waiting workflows) for the worker memory path; 0 skips it. */
  waitingTasks: number;
  /** Waiting approvals for path 10 (many waiting: worker memory, disk, lists, a burst of answers); 0 skips it. */
  manyWaiting: number;
  /** The workflow cache of path 10's workers. */
  manyWaitingCache: number;
  /** Questions waiting in the inbox when path 11 times its first page. */
  inboxWaiting: number;
  /** The whole run is stopped (and everything it started) after this many minutes. */
  maxMinutes: number;
  /** Numbers of the paths to run (default all). */
  paths?: number[];
  /** Where to write CPU profiles of the gateway and the project's worker (bench/cpu-profile.ts). */
  cpuProfileDir?: string;
}

const FULL = {
  iterations: 200,
  'parallel-ops': 800,
  concurrency: 16,
  batches: 10,
  fanout: '1,100,1000',
  'fanout-rounds': 5,
  streams: 1000,
  // At least two history long-poll periods (~20 s each): the streams' renewals come in bursts, so a
  // shorter window reads anywhere between none and one burst.
  'idle-seconds': 60,
  'list-iterations': 50,
  // 10,000 takes ~12 min on a 2-core machine (about 20 expense tasks/s): run it with --waiting-tasks 10000.
  'waiting-tasks': 2000,
  // Not in CI nor by default: 50,000 takes hours on a 2-core machine; 5,000 about 10 minutes.
  'many-waiting': 0,
  'many-waiting-cache': 1000,
  'inbox-waiting': 1000,
  'max-minutes': 20,
};
const QUICK: typeof FULL = {
  iterations: 20,
  'parallel-ops': 80,
  concurrency: 16,
  batches: 4,
  fanout: '1,10,100',
  'fanout-rounds': 2,
  streams: 100,
  'idle-seconds': 3,
  'list-iterations': 10,
  'waiting-tasks': 500,
  'many-waiting': 0,
  'many-waiting-cache': 1000,
  'inbox-waiting': 100,
  'max-minutes': 6,
};

const USAGE = `npm run bench -- [--quick] [--iterations N] [--parallel-ops N] [--concurrency N] [--batches N]
  [--fanout 1,100,1000] [--fanout-rounds N] [--streams N] [--idle-seconds N] [--list-iterations N]
  [--waiting-tasks N] [--many-waiting N] [--many-waiting-cache N] [--inbox-waiting N] [--max-minutes N] [--paths 1,3,4] [--cpu-profile DIR]`;

export function parseBenchOptions(argv: string[] = process.argv.slice(2)): BenchOptions {
  const flags = Object.fromEntries(Object.keys(FULL).map((name) => [name, { type: 'string' as const }]));
  const { values } = parseArgs({
    args: argv,
    options: {
      ...flags,
      paths: { type: 'string' },
      'cpu-profile': { type: 'string' },
      quick: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick === true;
  const defaults = quick ? QUICK : FULL;
  const raw = (name: keyof typeof FULL): string => {
    const given = (values as Record<string, unknown>)[name];
    return typeof given === 'string' ? given : String(defaults[name]);
  };
  const count = (name: keyof typeof FULL, min = 0): number => {
    const value = Number(raw(name));
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer >= ${min}\n${USAGE}`);
    return value;
  };
  const fanout = raw('fanout')
    .split(',')
    .map((part) => Number(part.trim()));
  if (fanout.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--fanout takes counts like 1,100,1000`);
  const paths = values.paths?.split(',').map((part) => Number(part.trim()));
  if (paths?.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--paths takes path numbers like 1,3,4`);
  return {
    quick,
    iterations: count('iterations', 1),
    parallelOps: count('parallel-ops', 1),
    concurrency: count('concurrency', 1),
    batches: count('batches', 1),
    fanout,
    fanoutRounds: count('fanout-rounds', 1),
    streams: count('streams', 1),
    idleSeconds: count('idle-seconds', 1),
    listIterations: count('list-iterations', 1),
    waitingTasks: count('waiting-tasks'),
    manyWaiting: count('many-waiting'),
    manyWaitingCache: count('many-waiting-cache', 1),
    inboxWaiting: count('inbox-waiting', 1),
    maxMinutes: count('max-minutes', 1),
    ...(paths && { paths }),
    ...(values['cpu-profile'] && { cpuProfileDir: values['cpu-profile'] }),
  };
}
