/**
 * The one door to Temporal for tasks: every Temporal call the gateway makes to serve A2A — start,
 * follow-up and cancel Updates, reads, the event log and its history long-poll, visibility lists,
 * push configs — is in this folder (bar the readiness probe, src/gateway/monitoring/temporal-health.ts,
 * and remote agents' pushes, src/gateway/http/remote-pushes.ts), as are the A2A errors Temporal's
 * failures become (errors.ts). The gateway shapes A2A requests and answers and calls these; the CLI,
 * the worker's unblocking, the deploy check and the audit export (src/audit) use them too. It imports none of them back
 * (test/unit/tasks/door-imports.test.ts).
 */
export { cancelWorkflow, TaskWorkflows, type Delivery } from './task-workflows.js';
export { type HistoryChange } from './events.js';
export { decodeMemo } from './decode-memo.js';
export { taskHistory, type HistoryEvent } from './history-events.js';
export { type HistoryPosition, type SubscribableTask } from './read.js';
export { quote } from './visibility.js';
export { TaskChanges } from './task-changes.js';
export {
  BadPageCursorError,
  mayAnswer,
  waitingForQuery,
  type QuestionOrder,
  type WaitingForPage,
  type WaitingQuestionRow,
} from './waiting-for.js';
export { WaitingQuestions } from './waiting-index.js';
