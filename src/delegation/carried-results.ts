/**
 * What of a remote task is carried into the calling task. A snapshot is an activity's result, and
 * Temporal refuses a payload over 2 MB: a larger one failed the activity again at every retry (the
 * remote task downloaded anew each time) while the calling task showed nothing. So artifacts are
 * carried whole while they fit, the rest are left out with a note saying which; a snapshot that
 * does not fit even without them ends the call.
 */
import { MAX_ARTIFACT_BYTES } from '../protocol/message-checks.js';
import type { RemoteTaskSnapshot } from '../protocol/delegation.js';
import type { WireArtifact } from '../protocol/wire.js';
import { unusable } from './remote-failures.js';

/**
 * The remote artifacts carried, all together: with the status and the calling task's own
 * journal, well under the 2 MB limit. Each one also within what `ctx.artifact` takes, so that an
 * agent can pass every artifact it got on as its own.
 */
export const CARRIED_ARTIFACT_BYTES = 2 * MAX_ARTIFACT_BYTES;
/** A snapshot larger than this without the artifacts left out (a huge status message) is not carried. */
const MAX_SNAPSHOT_BYTES = 1_500_000;

/**
 * `snapshot` with the artifacts that fit, in order; `remoteOmitted` when the remote agent says it
 * left some out itself (this runtime's `metadata.artifactsOmitted`, tasks over its result limit).
 */
export function carried(snapshot: RemoteTaskSnapshot, remoteOmitted: boolean): RemoteTaskSnapshot {
  const kept: WireArtifact[] = [];
  const left: string[] = [];
  let room = CARRIED_ARTIFACT_BYTES;
  for (const artifact of snapshot.artifacts) {
    const bytes = byteLength(artifact);
    if (bytes <= MAX_ARTIFACT_BYTES && bytes <= room) {
      kept.push(artifact);
      room -= bytes;
    } else {
      left.push(`${artifact.name ?? artifact.artifactId} (${megabytes(bytes)})`);
    }
  }
  const notes = [
    ...(left.length > 0
      ? [`left out ${left.join(', ')}: over the ${megabytes(CARRIED_ARTIFACT_BYTES)} carried from a remote task`]
      : []),
    ...(remoteOmitted ? ['the remote agent left out artifacts too large for its task'] : []),
  ];
  const result: RemoteTaskSnapshot = {
    ...snapshot,
    artifacts: kept,
    ...(notes.length > 0 && {
      artifactsOmitted: `Not all artifacts of the ${snapshot.agent} agent's task came back: ${notes.join('; ')}`,
    }),
  };
  const bytes = byteLength(result);
  if (bytes > MAX_SNAPSHOT_BYTES) {
    throw unusable(
      `The ${snapshot.agent} agent's task is ${megabytes(bytes)} without its artifacts, over the ${megabytes(MAX_SNAPSHOT_BYTES)} a remote task's status may take`,
    );
  }
  return result;
}

export function byteLength(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
