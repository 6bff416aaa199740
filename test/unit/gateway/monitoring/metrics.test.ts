/**
 * The inbox's first-view timing: each question's first view is observed once, questions told apart
 * by their ids (several asked in one workflow task share their askedAt).
 */
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../../../src/gateway/monitoring/metrics.js';
import { APPROVAL_METRICS } from '../../../../src/protocol/telemetry.js';

/** Metrics of no gateway: their waiting-approvals gauges count nothing here. */
function gatewayMetrics(): GatewayMetrics {
  return new GatewayMetrics();
}

async function firstViews(metrics: GatewayMetrics): Promise<number | undefined> {
  const histogram = await metrics.registry.getSingleMetric(APPROVAL_METRICS.firstView)!.get();
  const count = `${APPROVAL_METRICS.firstView}_count`;
  return histogram.values.find((sample) => (sample as { metricName?: string }).metricName === count)?.value;
}

describe('the first view of a question', () => {
  it('is timed once per question, for questions asked at the same instant too', async () => {
    const metrics = gatewayMetrics();
    const askedAt = new Date().toISOString();
    const desk = { id: 'ask:1', kind: 'input' as const, prompt: 'Desk?', askedAt };
    const chair = { id: 'ask:2', kind: 'input' as const, prompt: 'Chair?', askedAt };
    for (const question of [desk, chair, desk, chair]) metrics.questionViewed('test-ask', 'task-1', question);
    expect(await firstViews(metrics)).toBe(2);
  });
});
