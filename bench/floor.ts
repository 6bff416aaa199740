/**
 * The machine's own floor, measured by the raw floor at the start of every run: one update-with-start
 * (a new workflow answering the update and completing) and one Update (to a workflow waiting in
 * `condition`), one at a time. Ratios are taken against the same run's raw figures; these two say
 * how fast Temporal itself is on this machine, so runs on different machines can be compared.
 */
import { Sample } from './measure.js';
import type { RawFloor } from './raw.js';

export interface MachineFloor {
  updateWithStart: Sample;
  update: Sample;
}

export async function measureFloor(raw: RawFloor, count: number): Promise<MachineFloor> {
  const floor = { updateWithStart: new Sample(), update: new Sample() };
  for (let i = 0; i < count; i++) {
    await floor.updateWithStart.time(() => raw.echo('floor'));
    const workflowId = await raw.waiting();
    await floor.update.time(() => raw.resume(workflowId, 'floor'));
  }
  return floor;
}

export function describeFloor(floor: MachineFloor, load: readonly number[]): string {
  const figures = (sample: Sample) =>
    `p50 ${sample.p(50).toFixed(1)} ms, p95 ${sample.p(95).toFixed(1)} ms (${sample.latencies.length})`;
  return (
    `machine floor (raw Temporal, this run): one update-with-start ${figures(floor.updateWithStart)}; ` +
    `one Update ${figures(floor.update)}; load average ${load.map((l) => l.toFixed(1)).join(' / ')}`
  );
}
