/**
 * The remote task's artifacts as a stream shows them, sent on to the calling task in batches
 * (`remoteArtifactsSignal`), which publishes them as its own artifact chunks. Each artifact is known
 * by its parts in order, and a batch says from which index its parts are: a stream resumed after a
 * drop starts with the whole task again, and the calling task takes only the parts it lacks.
 * Batches follow `followSpacingMs` (the first at once), and the parts carried stay within what a
 * call carries back anyway (carried-results.ts): each artifact up to 512 KB, 1 MB in all; the result's
 * `artifactsOmitted` says what was left out.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { followSpacingMs, remoteArtifactsSignal, type RemoteArtifactChunks } from '../protocol/delegation.js';
import { MAX_ARTIFACT_BYTES } from '../protocol/message-checks.js';
import type { WireArtifact, WirePart } from '../protocol/wire.js';
import { byteLength, CARRIED_ARTIFACT_BYTES } from '../delegation/carried-results.js';

interface MirroredArtifact {
  name?: string;
  parts: WirePart[];
  /** Parts within the byte limits: the rest are never sent, so every attempt sends the same. */
  carried: number;
  bytes: number;
  /** A part did not fit: none after it is carried either. */
  full: boolean;
  sent: number;
  lastChunk: boolean;
}

export class ArtifactMirror {
  private readonly artifacts = new Map<string, MirroredArtifact>();
  private taskId?: string;
  private bytes = 0;
  private readonly since = Date.now();
  private lastBatch?: number;
  private timer?: NodeJS.Timeout;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly workflow: WorkflowHandle,
    private readonly callId: string,
  ) {}

  /** A whole task (a stream's first event): its artifacts as they are now. */
  snapshot(taskId: string, artifacts: WireArtifact[]): void {
    for (const artifact of artifacts) this.take(taskId, artifact, artifact.parts, false);
  }

  update(taskId: string, event: { artifact: WireArtifact; append?: boolean; lastChunk?: boolean }): void {
    const known = this.artifacts.get(event.artifact.artifactId);
    const parts = event.append && known ? [...known.parts, ...event.artifact.parts] : event.artifact.parts;
    this.take(taskId, event.artifact, parts, event.lastChunk ?? false);
  }

  /** Sends what is left, and waits until the calling task has it. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.batch();
  }

  private take(taskId: string, artifact: WireArtifact, parts: WirePart[], lastChunk: boolean): void {
    this.taskId ??= taskId;
    let mirrored = this.artifacts.get(artifact.artifactId);
    if (!mirrored) {
      mirrored = {
        ...(artifact.name && { name: artifact.name }),
        parts: [],
        carried: 0,
        bytes: 0,
        full: false,
        sent: 0,
        lastChunk,
      };
      this.artifacts.set(artifact.artifactId, mirrored);
    }
    mirrored.parts = parts;
    mirrored.lastChunk ||= lastChunk;
    // Parts are carried in order while they fit; past the first that does not, none of the artifact.
    while (!mirrored.full && mirrored.carried < parts.length) {
      const bytes = byteLength(parts[mirrored.carried]);
      mirrored.full = mirrored.bytes + bytes > MAX_ARTIFACT_BYTES || this.bytes + bytes > CARRIED_ARTIFACT_BYTES;
      if (mirrored.full) break;
      mirrored.bytes += bytes;
      this.bytes += bytes;
      mirrored.carried++;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    const due =
      this.lastBatch === undefined ? 0 : this.lastBatch + followSpacingMs(Date.now() - this.since) - Date.now();
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        // A failed signal fails the activity at `close` (which waits for the same batch); not here.
        this.batch().catch(() => undefined);
      },
      Math.max(due, 0),
    );
  }

  /** One signal with every artifact's new parts; batches go one after another, in order. */
  private batch(): Promise<void> {
    this.sending = this.sending.then(async () => {
      const chunks: RemoteArtifactChunks['chunks'] = [];
      for (const [artifactId, mirrored] of this.artifacts) {
        if (mirrored.sent >= mirrored.carried) continue;
        const complete = mirrored.carried === mirrored.parts.length;
        chunks.push({
          artifactId,
          ...(mirrored.name && { name: mirrored.name }),
          offset: mirrored.sent,
          parts: mirrored.parts.slice(mirrored.sent, mirrored.carried),
          ...(complete && mirrored.lastChunk && { lastChunk: true }),
        });
        mirrored.sent = mirrored.carried;
      }
      if (chunks.length === 0 || !this.taskId) return;
      this.lastBatch = Date.now();
      await this.workflow.signal(remoteArtifactsSignal, { callId: this.callId, taskId: this.taskId, chunks });
    });
    return this.sending;
  }
}
