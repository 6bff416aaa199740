/**
 * Prints a SendStreamingMessage / SubscribeToTask stream live, one line per event (time, state,
 * text), and keeps what the caller needs afterwards: the task, its last state, its artifacts with
 * chunks assembled. Pure apart from the `write` and `now` it is given.
 */
import type { Artifact, Message, Part, StreamResponse, Task } from '@a2a-js/sdk';
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
  /** The details of the last status message (a waiting task's question: its `answers`, ...). */
  statusDetails?: unknown;
  /** Set when the agent answered with a direct message instead of a task. */
  message?: Message;
  /** The first task snapshot of the stream (its metadata holds the timeline). */
  snapshot?: Task;
  /** Artifacts by ID, appended chunks joined. */
  artifacts: Map<string, Artifact>;
}

export class StreamPrinter {
  readonly outcome: StreamOutcome = { artifacts: new Map() };
  /** Streamed artifacts with chunks not printed yet. */
  private readonly unprinted = new Set<string>();
  /** Characters of each streamed artifact's text printed so far. */
  private readonly printed = new Map<string, number>();

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
        this.outcome.statusDetails = dataOf(status?.message);
        return this.line(undefined, stateName(status?.state), text);
      }
      case 'artifactUpdate': {
        const { taskId, contextId, artifact, append, lastChunk } = payload.value;
        this.track(taskId, contextId);
        if (!artifact) return;
        if (!append) this.printed.delete(artifact.artifactId);
        this.merge(artifact, append);
        // A streamed artifact (a model's answer in batches) prints joined: when its last chunk is in,
        // or before the next line, not one line per batch.
        this.unprinted.add(artifact.artifactId);
        if (lastChunk) this.flush();
        return;
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

  /** Prints what streamed artifacts have received since they were last printed; at the stream's end too. */
  flush(): void {
    for (const artifactId of this.unprinted) {
      const artifact = this.outcome.artifacts.get(artifactId)!;
      const text = partsText(artifact.parts);
      const printed = this.printed.get(artifactId) ?? 0;
      this.printed.set(artifactId, text.length);
      // Printed earlier (an event came between its chunks): the rest continues it.
      if (text.length > printed) {
        this.write(
          this.lineText(
            undefined,
            printed > 0 ? 'artifact +' : 'artifact',
            `${artifactTitle(artifact)}: ${text.slice(printed)}`,
          ),
        );
      }
    }
    this.unprinted.clear();
  }

  private onTask(task: Task): void {
    this.outcome.snapshot ??= task;
    this.track(task.id, task.contextId);
    const text = messageText(task.status?.message);
    this.outcome.state = knownState(task.status?.state);
    this.outcome.statusText = text;
    this.outcome.statusDetails = dataOf(task.status?.message);
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

  private merge(artifact: Artifact, append: boolean): void {
    const previous = this.outcome.artifacts.get(artifact.artifactId);
    const merged = append && previous ? { ...previous, parts: joinedParts(previous.parts, artifact.parts) } : artifact;
    this.outcome.artifacts.set(artifact.artifactId, merged);
  }

  /** `at` only for snapshots (which may be old); live events show when they arrived, so times never run backwards. */
  private line(at: string | undefined, label: string, text: string): void {
    this.flush();
    this.write(this.lineText(at, label, text));
  }

  private lineText(at: string | undefined, label: string, text: string): string {
    const body = indent(text, TEXT_COLUMN).trimStart();
    return `${clock(at || this.now())}  ${label.padEnd(LABEL_WIDTH)}  ${body}`.trimEnd();
  }
}

/** Parts and an appended chunk's: text continuing text joins it, as the task keeps a streamed answer. */
function joinedParts(parts: readonly Part[], chunk: readonly Part[]): Part[] {
  const joined = [...parts];
  for (const part of chunk) {
    const last = joined.at(-1);
    if (part.content?.$case === 'text' && last?.content?.$case === 'text' && !last.metadata && !part.metadata) {
      joined[joined.length - 1] = {
        ...last,
        content: { $case: 'text', value: last.content.value + part.content.value },
      };
    } else {
      joined.push(part);
    }
  }
  return joined;
}

/** The value of a message's first DataPart: a question's details, as the task's status message carries them. */
function dataOf(message: Message | undefined): unknown {
  const part = message?.parts.find((candidate) => candidate.content?.$case === 'data');
  return part?.content?.$case === 'data' ? part.content.value : undefined;
}
