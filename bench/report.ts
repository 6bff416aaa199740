/** Result rows: each path prints its rows as it finishes; the run ends with all of them in one table. */

type Target =
  /** project / raw at most `value` (latency). */
  | { kind: 'ratio-at-most'; value: number }
  /** project / raw at least `value` (throughput). */
  | { kind: 'ratio-at-least'; value: number }
  /** The project figure itself at most `value` (in the row's unit). */
  | { kind: 'at-most'; value: number; label?: string }
  | { kind: 'none' };

export interface Row {
  path: string;
  metric: string;
  unit: string;
  /** undefined: no raw comparison ("n/a"). */
  raw?: number;
  project: number;
  target: Target;
  note?: string;
}

export interface Verdict {
  met: boolean | undefined;
  /** How far off a missed target is, e.g. "+55% over". */
  by?: string;
}

function ratioOf(row: Row): number | undefined {
  return row.raw === undefined || !(row.raw > 0) ? undefined : row.project / row.raw;
}

export function verdict(row: Row): Verdict {
  const ratio = ratioOf(row);
  const { target } = row;
  if (target.kind === 'none') return { met: undefined };
  if (Number.isNaN(row.project)) return { met: false, by: 'no figure' };
  if (target.kind === 'at-most') {
    const met = row.project <= target.value;
    return met ? { met } : { met, by: `${format(row.project - target.value, row.unit)} over` };
  }
  if (ratio === undefined) return { met: undefined };
  if (target.kind === 'ratio-at-most') {
    const met = ratio <= target.value;
    return met ? { met } : { met, by: `${percent(ratio / target.value - 1)} over` };
  }
  const met = ratio >= target.value;
  return met ? { met } : { met, by: `${percent(1 - ratio / target.value)} under` };
}

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(0)}%`;
}

function format(value: number | undefined, unit: string): string {
  if (value === undefined) return 'n/a';
  if (Number.isNaN(value)) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

function targetText(row: Row): string {
  const { target } = row;
  switch (target.kind) {
    case 'ratio-at-most':
      return `<= ${target.value}x raw`;
    case 'ratio-at-least':
      return `>= ${Math.round(target.value * 100)}% of raw`;
    case 'at-most':
      return target.label ?? `<= ${format(target.value, row.unit)}`;
    case 'none':
      return 'none (reported)';
  }
}

function verdictText(row: Row): string {
  const { met, by } = verdict(row);
  return met === undefined ? '—' : met ? 'met' : `MISSED (${by})`;
}

function ratioText(row: Row): string {
  const ratio = ratioOf(row);
  return ratio === undefined ? 'n/a' : `${ratio.toFixed(2)}x`;
}

function cells(row: Row): string[] {
  return [
    row.path,
    row.metric,
    format(row.raw, row.unit),
    format(row.project, row.unit),
    ratioText(row),
    targetText(row),
    verdictText(row),
  ];
}

/** One path's rows, as it finishes. */
export function printRows(rows: readonly Row[]): void {
  for (const row of rows) {
    const [, metric, raw, project, ratio, target, result] = cells(row);
    console.log(
      `    ${metric}: raw ${raw} | project ${project} | ratio ${ratio} | target ${target} | ${result}` +
        (row.note ? `\n      (${row.note})` : ''),
    );
  }
}

export function printTable(rows: readonly Row[]): void {
  const header = ['path', 'metric', 'raw', 'project', 'ratio', 'target', 'result'];
  const lines = [header, ...rows.map(cells)];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  const render = (line: string[]) => line.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ');
  console.log(render(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const line of lines.slice(1)) console.log(render(line));
}
