/** SDK objects for the CLI's unit tests, built from v1.0 wire JSON like the gateway sends. */
import { ListTasksResponse, Task } from '@a2a-js/sdk';

export const NOW = new Date('2030-01-02T10:00:00Z');

export function waitingTask(extra: Record<string, unknown> = {}): Task {
  return Task.fromJSON({
    id: 'task-1',
    contextId: 'ctx-1',
    status: {
      state: 'TASK_STATE_INPUT_REQUIRED',
      timestamp: '2030-01-02T09:55:00Z',
      message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'Approve 120 USD for lunch?' }] },
    },
    history: [
      { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'Please approve 120 USD for lunch' }] },
      { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'Approve 120 USD for lunch?' }] },
    ],
    metadata: {
      agent: 'expense-approval',
      timeline: [
        { state: 'submitted', at: '2030-01-02T09:54:59Z' },
        { state: 'working', at: '2030-01-02T09:55:00Z', by: 'agent', message: 'Assessing the expense' },
        { state: 'input-required', at: '2030-01-02T09:55:00Z', by: 'agent', message: 'Approve 120 USD for lunch?' },
        { nonsense: true },
      ],
      pendingQuestion: {
        kind: 'input',
        prompt: 'Approve 120 USD for lunch?',
        askedAt: '2030-01-02T09:55:00Z',
        deadline: '2030-01-05T09:55:00Z',
        responders: ['alice', 'bob'],
      },
    },
    ...extra,
  });
}

export function completedTask(): Task {
  return Task.fromJSON({
    id: 'task-2',
    contextId: 'ctx-1',
    status: {
      state: 'TASK_STATE_COMPLETED',
      timestamp: '2030-01-02T09:58:00Z',
      message: { messageId: 'm3', role: 'ROLE_AGENT', parts: [{ text: 'Approved.' }] },
    },
    artifacts: [
      { artifactId: 'a1', name: 'approval-record', parts: [{ data: { amount: 120, decision: 'approved' } }] },
      { artifactId: 'a2', parts: [{ text: 'line one\nline two' }] },
    ],
  });
}

export function page(nextPageToken = ''): ListTasksResponse {
  return ListTasksResponse.fromJSON({
    tasks: [Task.toJSON(waitingTask()), Task.toJSON(completedTask())],
    nextPageToken,
    pageSize: 2,
    totalSize: 7,
  });
}
