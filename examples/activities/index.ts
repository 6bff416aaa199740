/** Every activity the worker registers. */
export * from './expense.js';
export * from './report.js';
export * from './purchasing.js';
