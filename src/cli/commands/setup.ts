/**
 * `setup`: registers the A2A search attributes on a Temporal namespace, adding only the missing
 * ones, so it is safe to run on every deploy. The dev server registers them itself as it starts;
 * real clusters need this once per namespace.
 */
import { Connection } from '@temporalio/client';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Command } from '../command.js';
import { CliError, ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../protocol/search-attributes.js';
import { temporalSettings, type TemporalSettings } from '../../temporal/connection.js';
import { grpcCode } from '../../temporal/grpc-code.js';
import { registerSearchAttributes } from '../../temporal/search-attributes.js';
import { renderTable } from '../table.js';
import { readSettings } from '../../config/settings.js';

type SetupCommand = Extract<Command, { kind: 'setup' }>;

export async function runSetup(command: SetupCommand, io: Io): Promise<ExitCode> {
  const settings = commandTemporalSettings(command, io.env);
  const where = temporalWhere(settings);
  const connection = await connectTemporal(settings);
  try {
    const results = await registerSearchAttributes(connection, settings.namespace);
    const conflict = results.find((result) => result.status === 'other-type');
    if (conflict) {
      // Changing a type would need a new attribute; workflows already write the old one.
      throw new CliError(
        `Search attribute ${conflict.name} exists with another type (IndexedValueType ${String(conflict.existingType)}, wanted ${conflict.type}); ` +
          'remove it or use another namespace',
        ExitCode.Remote,
      );
    }
    if (command.json) {
      io.out(JSON.stringify({ address: settings.address, namespace: settings.namespace, searchAttributes: results }));
    } else {
      io.out(
        renderTable(
          ['NAME', 'TYPE', 'STATUS'],
          results.map((r) => [r.name, r.type, r.status]),
        ),
      );
      const added = results.filter((r) => r.status === 'added').length;
      io.out('');
      io.out(
        added > 0
          ? `Added ${added} search attribute(s) on ${where}.`
          : `All search attributes already exist on ${where}.`,
      );
    }
    return ExitCode.Ok;
  } catch (error) {
    throw temporalError(error, where);
  } finally {
    await connection.close();
  }
}

/**
 * Refuses to serve a namespace that lacks a search attribute the tasks write: Temporal would fail
 * every workflow task that upserts it, and tasks would sit unanswered (an upgrade that adds one, run
 * before `setup`). A namespace whose attributes cannot be listed (no operator permission) is let
 * through with a warning.
 */
export async function checkSearchAttributes(
  connection: { operatorService: Connection['operatorService'] },
  namespace: string,
  warn: (message: string) => void,
): Promise<void> {
  let existing: Record<string, unknown>;
  try {
    existing = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (error) {
    warn(
      `Could not list the search attributes of namespace ${namespace} (${error instanceof Error ? error.message : String(error)}); ` +
        'if tasks fail with BadSearchAttributes, run `a2a-temporal setup`',
    );
    return;
  }
  const missing = SEARCH_ATTRIBUTE_DEFINITIONS.filter(
    ({ name }) => existing[name] === undefined || existing[name] === null,
  );
  if (missing.length === 0) return;
  throw new CliError(
    `Search attribute(s) ${missing.map(({ name }) => name).join(', ')} are not registered on namespace ${namespace}: ` +
      'run `a2a-temporal setup` (once per namespace, safe to repeat) before starting the worker',
    ExitCode.Remote,
  );
}

/** The Temporal a one-off command (setup, schedules) talks to: its flags, else the environment's. */
export function commandTemporalSettings(
  command: { address?: string; namespace?: string },
  env: NodeJS.ProcessEnv,
): TemporalSettings {
  return temporalSettings({
    ...readSettings(env),
    ...(command.address && { TEMPORAL_ADDRESS: command.address }),
    ...(command.namespace && { TEMPORAL_NAMESPACE: command.namespace }),
  });
}

/** Where a one-off command talks to, as its messages name it. */
export function temporalWhere(settings: TemporalSettings): string {
  return `${settings.address} (namespace ${settings.namespace})`;
}

/** A connection for a one-off command (setup, check-deploy): it fails fast, saying what to do. */
export async function connectTemporal(settings: TemporalSettings): Promise<Connection> {
  try {
    return await Connection.connect({ ...settings.connection, connectTimeout: '5 seconds' });
  } catch (error) {
    throw temporalError(error, temporalWhere(settings));
  }
}

/**
 * Temporal failures in terms of what to do next. `setAddress`: how this command is pointed
 * elsewhere (a worker has no --address).
 */
export function temporalError(error: unknown, where: string, setAddress = 'TEMPORAL_ADDRESS or --address'): CliError {
  if (error instanceof CliError) return error;
  const code = grpcCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (
    code === GrpcStatus.UNAVAILABLE ||
    (code === undefined && /connect|ECONNREFUSED|deadline|transport/i.test(message))
  ) {
    // The native connection's error is Rust's debug print: its innermost message is what happened.
    const reason = /message: "([^"]+)"/.exec(message)?.[1] ?? message;
    return new CliError(
      `Cannot reach Temporal at ${where}: is it running? Set ${setAddress}. (${reason})`,
      ExitCode.Unreachable,
    );
  }
  if (code === GrpcStatus.NOT_FOUND)
    return new CliError(`Temporal at ${where}: ${message} (does the namespace exist?)`, ExitCode.Remote);
  if (
    code === GrpcStatus.PERMISSION_DENIED ||
    code === GrpcStatus.UNIMPLEMENTED ||
    code === GrpcStatus.UNAUTHENTICATED
  ) {
    return new CliError(
      `Temporal at ${where} refused: ${message}. On Temporal Cloud, add the search attributes in the Cloud UI ` +
        'or with tcld; elsewhere, use credentials allowed to call the operator API.',
      ExitCode.Remote,
    );
  }
  return new CliError(`Temporal at ${where}: ${message}`, ExitCode.Remote);
}
