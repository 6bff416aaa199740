/**
 * The gateway's one door to Temporal: every Temporal call the gateway makes to serve A2A — start,
 * follow-up and cancel Updates, reads, the event log and its history long-poll, visibility lists,
 * push configs — is in this folder (bar the readiness probe, temporal-health.ts). The rest of the
 * gateway shapes A2A requests and answers and calls these.
 */
export { cancelWorkflow, TaskWorkflows, type Delivery, type TaskWorkflowsOptions } from './task-workflows.js';
export { QUERY_DEADLINE_MS, TaskReader, type SubscribableTask } from './read.js';
export { HistoryWatcher, TaskEventLog, type HistoryChange } from './events.js';
export { PushConfigStore } from './push-configs.js';
export {
  quote,
  waitingQuestions,
  type ListedTask,
  type TaskListPage,
  type TaskListRequest,
  type WaitingQuestion,
} from './visibility.js';
