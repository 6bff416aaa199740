/**
 * `audit export`: the record of questions, notices, answers and decisions between two times, read
 * from Temporal as `setup` reaches it (src/audit); `audit verify FILE`: checks an export's chains.
 */
import { Client } from '@temporalio/client';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { AuditRefused, verifyAuditLines } from '../../audit/audit-chain.js';
import { exportAudit } from '../../audit/audit-export.js';
import type { Command } from '../command.js';
import { CliError, ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { commandTemporalSettings, connectTemporal, temporalError, temporalWhere } from './setup.js';

type ExportCommand = Extract<Command, { kind: 'audit export' }>;

export async function runAuditExport(command: ExportCommand, io: Io): Promise<ExitCode> {
  const until = command.until ?? io.now();
  if (until <= command.since) throw new CliError('--until must come after --since', ExitCode.Usage);
  const settings = commandTemporalSettings(command, io.env);
  const where = temporalWhere(settings);
  const connection = await connectTemporal(settings);
  const client = new Client({ connection, namespace: settings.namespace });
  const file = command.out === undefined ? undefined : createWriteStream(command.out);
  try {
    const window = { since: command.since, until, ...(command.agent && { agent: command.agent }) };
    const { tasks, lines } = await exportAudit(
      client,
      window,
      file ? (line) => writeLine(file, line) : async (line) => io.out(line),
    );
    io.err(`Exported ${lines} records of ${tasks} tasks from ${where}${command.out ? ` to ${command.out}` : ''}.`);
    return ExitCode.Ok;
  } catch (error) {
    throw temporalError(error, where);
  } finally {
    if (file) await new Promise((resolve) => file.end(resolve));
    await connection.close();
  }
}

/** One line; waits while the file's buffer is full, so reading Temporal never runs ahead of the disk. */
async function writeLine(file: WriteStream, line: string): Promise<void> {
  if (!file.write(`${line}\n`)) await once(file, 'drain');
}

export async function runAuditVerify(command: Extract<Command, { kind: 'audit verify' }>, io: Io): Promise<ExitCode> {
  const input = createReadStream(command.file, 'utf8');
  try {
    await once(input, 'open');
  } catch (error) {
    throw new CliError(`Cannot read ${command.file}: ${(error as Error).message}`, ExitCode.Usage);
  }
  try {
    const { tasks, lines } = await verifyAuditLines(createInterface({ input, crlfDelay: Infinity }));
    io.out(`Audit export verified: ${lines} records of ${tasks} tasks, no line removed or edited.`);
    return ExitCode.Ok;
  } catch (error) {
    if (error instanceof AuditRefused) throw new CliError(`Audit export refused: ${error.message}`, ExitCode.Refused);
    throw error;
  }
}
