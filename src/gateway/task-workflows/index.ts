/**
 * The gateway's one door to Temporal: every Temporal call the gateway makes to serve A2A — start,
 * follow-up and cancel Updates, reads, the event log and its history long-poll, visibility lists,
 * push configs — is in this folder (bar the readiness probe, temporal-health.ts). The rest of the
 * gateway shapes A2A requests and answers and calls these.
 */
export { cancelWorkflow, TaskWorkflows, type Delivery } from './task-workflows.js';
export { type HistoryChange } from './events.js';
export { type HistoryPosition, type SubscribableTask } from './read.js';
export { quote, waitingQuestions } from './visibility.js';
export { WaitingTaskWatch } from './waiting-watch.js';
export {
  BadPageCursorError,
  mayAnswer,
  waitingForQuery,
  type QuestionOrder,
  type WaitingForPage,
  type WaitingQuestionRow,
} from './waiting-for.js';
export { WaitingQuestions } from './waiting-index.js';
