/**
 * Imported first by bench/main.ts: the project's logger reads LOG_LEVEL when its module is first
 * evaluated, and bench modules import project code statically (bench/raw-fanout.ts): quiet, and no
 * pretty-printing thread, in a benchmark.
 */
process.env.LOG_LEVEL ??= 'warn';
process.env.LOG_FORMAT ??= 'json';
