/** Plain-text tables that fit the terminal: the widest column gives way first. */

export interface TableOptions {
  /** Total width to fit in (terminal columns); no limit when omitted. */
  maxWidth?: number;
  /** Indentation of every line. */
  indent?: string;
}

const GAP = '  ';
const MIN_SHRUNK_WIDTH = 8;

export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const indent = options.indent ?? '';
  const cells = [headers, ...rows].map((row) => headers.map((_, column) => oneLine(row[column] ?? '')));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  if (options.maxWidth !== undefined)
    shrink(widths, options.maxWidth - indent.length - GAP.length * (headers.length - 1));
  return cells
    .map((row) =>
      (indent + row.map((cell, column) => fit(cell, widths[column]!, column === row.length - 1)).join(GAP)).trimEnd(),
    )
    .join('\n');
}

/** Narrows the widest columns until the row fits, never below a readable minimum. */
function shrink(widths: number[], available: number): void {
  for (let total = sum(widths); total > available; total = sum(widths)) {
    const widest = widths.indexOf(Math.max(...widths));
    const next = Math.max(MIN_SHRUNK_WIDTH, widths[widest]! - (total - available));
    if (next >= widths[widest]!) return;
    widths[widest] = next;
  }
}

function fit(cell: string, width: number, last: boolean): string {
  const text = truncate(cell, width);
  return last ? text : text.padEnd(width);
}

/** Cuts text to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 1 ? text.slice(0, width) : `${text.slice(0, width - 1)}…`;
}

/** Table cells are single lines: newlines and tabs become spaces. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\t]+\s*/g, ' ').trim();
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
