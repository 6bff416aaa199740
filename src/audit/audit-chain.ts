/**
 * The hash chains of an audit export (docs/approval-policies.md). Each task's lines come together,
 * each with `prev`: the SHA-256 (hex) of the task's previous line as written (null on its first);
 * the last line sums up the file: how many tasks and lines, and `chains`, the SHA-256 of each
 * task's last line hash in order. An edited line breaks the link to it; a removed line too, or,
 * when it is a task's last or a whole task, the closing sum; a file cut short has no closing line.
 */
import { createHash, type Hash } from 'node:crypto';
import type { AuditRecord } from './audit-records.js';

/** What the closing line says of the export, besides its sums. */
export interface ExportScope {
  since: string;
  until: string;
  agent?: string;
}

interface ClosingLine extends ExportScope {
  kind: 'end';
  tasks: number;
  lines: number;
  chains: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Links records into chains as they are written, and sums them up: one task's state at a time. */
export class AuditChains {
  private task: string | undefined;
  private last: string | undefined;
  private readonly chains: Hash = createHash('sha256');
  private tasks = 0;
  private lines = 0;

  /** The record as a line of the file (no newline). */
  line(record: AuditRecord): string {
    if (record.task !== this.task) this.closeChain(record.task);
    const text = JSON.stringify({ ...record, prev: this.last ?? null });
    this.last = sha256(text);
    this.lines++;
    return text;
  }

  /** The closing line. */
  end(scope: ExportScope): string {
    this.closeChain(undefined);
    const closing: ClosingLine = {
      kind: 'end',
      ...scope,
      tasks: this.tasks,
      lines: this.lines,
      chains: this.chains.digest('hex'),
    };
    return JSON.stringify(closing);
  }

  private closeChain(next: string | undefined): void {
    if (this.last !== undefined) {
      this.chains.update(this.last);
      this.tasks++;
    }
    this.task = next;
    this.last = undefined;
  }
}

/** Why an export was refused, naming the line. */
export class AuditRefused extends Error {
  override name = 'AuditRefused';
}

/** Checks an export's lines as they are read; resolves with its sums, or throws AuditRefused. */
export async function verifyAuditLines(lines: AsyncIterable<string>): Promise<{ tasks: number; lines: number }> {
  const chains = new AuditChains();
  let closing: ClosingLine | undefined;
  let number = 0;
  for await (const text of lines) {
    number++;
    if (closing) throw new AuditRefused(`line ${number}: a line after the closing line`);
    let parsed: (AuditRecord & { prev?: unknown }) | ClosingLine;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new AuditRefused(`line ${number}: not JSON`);
    }
    if (parsed.kind === 'end') {
      closing = parsed as ClosingLine;
      continue;
    }
    const { prev, ...record } = parsed as AuditRecord & { prev?: unknown };
    const relinked = chains.line(record as AuditRecord);
    if (relinked !== text) {
      const why = prev === null ? 'its task has lines before it' : `its prev is not the hash of the line before it`;
      throw new AuditRefused(`line ${number}: the chain is broken (${why}): a line was removed or edited`);
    }
  }
  if (!closing) throw new AuditRefused('no closing line: the file was cut short');
  const expected = JSON.parse(chains.end(closing)) as ClosingLine;
  if (expected.tasks !== closing.tasks || expected.lines !== closing.lines || expected.chains !== closing.chains) {
    throw new AuditRefused(
      `the closing line does not sum up the chains (${expected.tasks} tasks and ${expected.lines} lines found, ${closing.tasks} and ${closing.lines} written): a task's last lines or a whole task were removed`,
    );
  }
  return { tasks: closing.tasks, lines: closing.lines };
}
