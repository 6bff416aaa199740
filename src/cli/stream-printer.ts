/**
 * Prints a SendStreamingMessage / SubscribeToTask stream live, one line per event (time, state,
 * text), and keeps what the caller needs afterwards: the task, its last state, its artifacts with
 * chunks assembled. Pure apart from the `write` and `now` it is given.
 */
import type { Artifact, Message, StreamResponse, Task } from '@a2a-js/sdk';
import { TASK_STATES, type TaskStateName } from '../protocol/states.js';
import { artifactTitle, clock, indent, knownState, messageText, partsText, stateName } from './format.js';

/** Labels are states, `artifact +` or `message`: as wide as the longest state name. */
const LABEL_WIDTH = Math.max(...TASK_STATES.map((state) => state.length));
/** Continuation lines of a multi-line text start under the text column. */
const TEXT_COLUMN = ' '.repeat('HH:MM:SS'.length + 2 + LABEL_WIDTH + 2);

export interface StreamOutcome {
  taskId?: string;
  contextId?: string;
  /** Last state seen, e.g. `input-required`; undefined while none or one this version does not know. */
  state?: TaskStateName | undefined;
  /** Text of the last status message. */
  statusText?: string;
  /** Set when the agent answered with a direct message instead of a task. */
  message?: Message;
  /** The first task snapshot of the stream (its metadata holds the timeline). */
  snapshot?: Task;
  /** Artifacts by ID, appended chunks joined. */
  artifacts: Map<string, Artifact>;
}

export class StreamPrinter {
  readonly outcome: StreamOutcome = { artifacts: new Map() };

  constructor(
    private readonly write: (line: string) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  handle(response: StreamResponse): void {
    const payload = response.payload;
    switch (payload?.$case) {
      case 'task':
        return this.onTask(payload.value);
      case 'statusUpdate': {
        const { taskId, contextId, status } = payload.value;
        this.track(taskId, contextId);
        const text = messageText(status?.message);
        this.outcome.state = knownState(status?.state);
        this.outcome.statusText = text;
        return this.line(undefined, stateName(status?.state), text);
      }
      case 'artifactUpdate': {
        const { taskId, contextId, artifact, append } = payload.value;
        this.track(taskId, contextId);
        if (!artifact) return;
        const merged = this.merge(artifact, append);
        // Appended chunks print only their own content: together the lines read as the whole artifact.
        return this.line(
          undefined,
          append ? 'artifact +' : 'artifact',
          `${artifactTitle(merged)}: ${partsText(artifact.parts)}`,
        );
      }
      case 'message': {
        const message = payload.value;
        this.outcome.message = message;
        this.track(message.taskId, message.contextId);
        return this.line(undefined, 'message', messageText(message));
      }
      default:
        return;
    }
  }

  private onTask(task: Task): void {
    this.outcome.snapshot ??= task;
    this.track(task.id, task.contextId);
    const text = messageText(task.status?.message);
    this.outcome.state = knownState(task.status?.state);
    this.outcome.statusText = text;
    this.line(task.status?.timestamp, stateName(task.status?.state), `task ${task.id}${text ? `: ${text}` : ''}`);
    // A snapshot may already hold artifacts (a resubscribe, or a retried send answered at once).
    for (const artifact of task.artifacts) {
      if (this.outcome.artifacts.has(artifact.artifactId)) continue;
      this.outcome.artifacts.set(artifact.artifactId, artifact);
      this.line(task.status?.timestamp, 'artifact', `${artifactTitle(artifact)}: ${partsText(artifact.parts)}`);
    }
  }

  private track(taskId: string | undefined, contextId: string | undefined): void {
    if (taskId) this.outcome.taskId = taskId;
    if (contextId) this.outcome.contextId = contextId;
  }

  private merge(artifact: Artifact, append: boolean): Artifact {
    const previous = this.outcome.artifacts.get(artifact.artifactId);
    const merged = append && previous ? { ...previous, parts: [...previous.parts, ...artifact.parts] } : artifact;
    this.outcome.artifacts.set(artifact.artifactId, merged);
    return merged;
  }

  /** `at` only for snapshots (which may be old); live events show when they arrived, so times never run backwards. */
  private line(at: string | undefined, label: string, text: string): void {
    const body = indent(text, TEXT_COLUMN).trimStart();
    this.write(`${clock(at || this.now())}  ${label.padEnd(LABEL_WIDTH)}  ${body}`.trimEnd());
  }
}
