/**
 * How a task workflow starts, the same whoever starts it: the gateway (update-with-start, the first
 * message as the Update) and a Schedule's action (the first message in the input). Pure module.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { workflowIdForTask, type IncomingMessage } from './contract.js';
import { AGENT_ATTRIBUTE, CONTEXT_ID_ATTRIBUTE, OWNER_ATTRIBUTE, TASK_STATE_ATTRIBUTE } from './search-attributes.js';
import { uiText } from './ui-text.js';
import { textOf } from './wire.js';

export interface TaskStart {
  /** The agent: the workflow type. */
  agent: string;
  taskQueue: string;
  /** The task's ID; a Schedule's runs add the time of each run to it (see ScheduledTaskInput). */
  taskId: string;
  /** Absent for a Schedule's runs: each makes a new one, and writes the attribute itself. */
  contextId?: string;
  first: IncomingMessage;
}

/** The start options of a task's workflow, as both starters pass them to Temporal. */
export function taskStartOptions({ agent, taskQueue, taskId, contextId, first }: TaskStart) {
  const owner = ownerOf(first);
  const typedSearchAttributes: SearchAttributePair[] = [
    ...(contextId ? [{ key: CONTEXT_ID_ATTRIBUTE, value: contextId }] : []),
    { key: AGENT_ATTRIBUTE, value: agent },
    { key: TASK_STATE_ATTRIBUTE, value: 'submitted' },
    // Who asked (the owner when authenticated): an account ID, never an e-mail address (search attributes are not encrypted).
    ...(owner ? [{ key: OWNER_ATTRIBUTE, value: owner }] : []),
  ];
  return {
    workflowId: workflowIdForTask(taskId),
    taskQueue,
    // The UI renders it as Markdown: the request is shown as text.
    staticSummary: uiText(`${agent}: ${firstWords(first)}`),
    typedSearchAttributes,
  };
}

/** Who owns the task a first message starts: its authenticated caller, else who it says it is from. */
export function ownerOf(incoming: IncomingMessage): string | undefined {
  return incoming.caller?.id ?? incoming.responder;
}

/** The static summary operators see in the Temporal UI. */
function firstWords(incoming: IncomingMessage): string {
  const text = textOf(incoming.parts ?? []) || incoming.text || '(no text)';
  const words = text.split(/\s+/).filter(Boolean).slice(0, 12).join(' ');
  return words.length > 120 ? `${words.slice(0, 117)}...` : words;
}
