/**
 * The alert rules and the Grafana dashboard in deploy/observability/ query metrics that exist: each
 * `a2a_` name in their expressions is one the gateway registers or the worker exports (the names
 * the metrics tests scrape), and the dashboard shows every approval SLA metric. `promtool check
 * rules` checks their syntax where it is installed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Client } from '@temporalio/client';
import { GatewayMetrics } from '../../../src/gateway/monitoring/metrics.js';
import { APPROVAL_METRICS, MODEL_METRICS, TASK_METRICS, UNBLOCK_METRIC } from '../../../src/protocol/telemetry.js';
import { testClient } from '../../support/worker.js';

const DIR = new URL('../../../deploy/observability/', import.meta.url);
const read = (file: string) => readFileSync(fileURLToPath(new URL(file, DIR)), 'utf8');

/** The worker's own metrics, as its Prometheus exporter names them (counters `_total`, durations `_seconds`). */
const WORKER_METRICS = [
  ...Object.values(TASK_METRICS).map((name) => `${name}_total`),
  ...Object.values(MODEL_METRICS).map((name) => `${name}_total`),
  `${UNBLOCK_METRIC}_total`,
  `${APPROVAL_METRICS.decision}_seconds`,
  `${APPROVAL_METRICS.expired}_total`,
  `${APPROVAL_METRICS.escalated}_total`,
];

/** The `a2a_` metrics an expression reads, a histogram's series named by the histogram. */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/\ba2a_\w+/g)].map(([name]) => name.replace(/_(bucket|count|sum)$/, ''));
}

/** The expressions of the dashboard's panels. */
function dashboardExprs(): string[] {
  const dashboard = JSON.parse(read('approvals-dashboard.json')) as {
    panels: Array<{ targets: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
}

let client: Client;
beforeAll(async () => {
  client = await testClient();
});
afterAll(() => client?.connection.close());

describe('deploy/observability', () => {
  it('alerts and dashboard read only metrics that are exported', () => {
    const gateway = new GatewayMetrics();
    const exported = new Set([...gateway.registry.getMetricsAsArray().map((metric) => metric.name), ...WORKER_METRICS]);
    const rules = (parse(read('alerts.yml')) as { groups: Array<{ rules: Array<{ expr: string }> }> }).groups.flatMap(
      (group) => group.rules.map((rule) => rule.expr),
    );
    const exprs = [...rules, ...dashboardExprs()];
    expect(exprs.length).toBeGreaterThan(6);
    for (const expr of exprs) {
      const names = metricsOf(expr);
      expect(names.length, expr).toBeGreaterThan(0);
      for (const name of names) expect(exported, `${name} in ${expr}`).toContain(name);
    }
  });

  it('the dashboard has a panel for each approval SLA metric', () => {
    const shown = dashboardExprs().flatMap(metricsOf);
    for (const metric of Object.values(APPROVAL_METRICS)) {
      // The worker's exporter appends `_total` or `_seconds` to its own.
      expect(
        shown.some((name) => name.startsWith(metric)),
        metric,
      ).toBe(true);
    }
  });
});
