/** The task's event log, as the workflow keeps it and streams and push deliveries read it. */
import type { TaskStateName } from './states.js';
import type { WireArtifact, WireTask, WireTaskStatus } from './wire.js';

export type TaskEvent =
  | { seq: number; kind: 'status'; status: WireTaskStatus; final: boolean }
  | { seq: number; kind: 'artifact'; artifact: WireArtifact; append: boolean; lastChunk: boolean }
  | { seq: number; kind: 'message'; message: WireTask['status']['message'] & object };

export interface EventsSince {
  events: TaskEvent[];
  lastSeq: number;
  state: TaskStateName;
}
