/**
 * `setup`: registers the A2A search attributes on a Temporal namespace, adding only the missing
 * ones, so it is safe to run on every deploy. The dev stack registers them itself (start-dev
 * --search-attribute); real clusters need this once per namespace.
 */
import { Connection, isGrpcServiceError, ServiceError } from '@temporalio/client';
// The SDK's own name <-> proto enum mapping for IndexedValueType; the public index does not export it.
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import type { Command } from '../args.js';
import { CliError, ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../protocol/search-attributes.js';
import { temporalSettings } from '../../temporal/connection.js';
import { renderTable } from '../table.js';

type SetupCommand = Extract<Command, { kind: 'setup' }>;

export interface AttributeStatus {
  name: string;
  type: 'Keyword' | 'Datetime';
  status: 'exists' | 'added';
}

/** gRPC status codes (the numbers are part of the gRPC spec). */
const GRPC = { NOT_FOUND: 5, PERMISSION_DENIED: 7, UNIMPLEMENTED: 12, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

export async function runSetup(command: SetupCommand, io: Io): Promise<ExitCode> {
  const settings = temporalSettings({
    ...io.env,
    ...(command.address && { TEMPORAL_ADDRESS: command.address }),
    ...(command.namespace && { TEMPORAL_NAMESPACE: command.namespace }),
  });
  const where = `${settings.address} (namespace ${settings.namespace})`;
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...settings.connection, connectTimeout: '5 seconds' });
  } catch (error) {
    throw temporalError(error, where);
  }
  try {
    const results = await registerSearchAttributes(connection, settings.namespace);
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

export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<AttributeStatus[]> {
  const existing = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  const missing: Record<string, number> = {};
  const results: AttributeStatus[] = [];
  for (const { name, cliType } of SEARCH_ATTRIBUTE_DEFINITIONS) {
    const wanted = indexedType(cliType);
    const current = existing[name];
    if (current === undefined || current === null) {
      missing[name] = wanted;
      results.push({ name, type: cliType, status: 'added' });
    } else if (Number(current) !== wanted) {
      // Changing a type would need a new attribute; workflows already write the old one.
      throw new CliError(
        `Search attribute ${name} exists with another type (IndexedValueType ${String(current)}, wanted ${cliType}); ` +
          'remove it or use another namespace',
        ExitCode.Remote,
      );
    } else {
      results.push({ name, type: cliType, status: 'exists' });
    }
  }
  if (Object.keys(missing).length > 0) {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  }
  return results;
}

function indexedType(cliType: 'Keyword' | 'Datetime'): number {
  const encoded = encodeSearchAttributeIndexedValueType(cliType === 'Keyword' ? 'KEYWORD' : 'DATETIME');
  if (encoded === undefined) throw new Error(`No IndexedValueType for ${cliType}`);
  return encoded;
}

function grpcCode(error: unknown): number | undefined {
  if (isGrpcServiceError(error)) return error.code;
  if (error instanceof ServiceError && isGrpcServiceError(error.cause)) return error.cause.code;
  return undefined;
}

/** Temporal failures in terms of what to do next. */
export function temporalError(error: unknown, where: string): CliError {
  if (error instanceof CliError) return error;
  const code = grpcCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === GRPC.UNAVAILABLE || (code === undefined && /connect|ECONNREFUSED|deadline|transport/i.test(message))) {
    return new CliError(
      `Cannot reach Temporal at ${where}: is it running? Set TEMPORAL_ADDRESS or --address. (${message})`,
      ExitCode.Unreachable,
    );
  }
  if (code === GRPC.NOT_FOUND)
    return new CliError(`Temporal at ${where}: ${message} (does the namespace exist?)`, ExitCode.Remote);
  if (code === GRPC.PERMISSION_DENIED || code === GRPC.UNIMPLEMENTED || code === GRPC.UNAUTHENTICATED) {
    return new CliError(
      `Temporal at ${where} refused: ${message}. On Temporal Cloud, add the search attributes in the Cloud UI ` +
        'or with tcld; elsewhere, use credentials allowed to call the operator API.',
      ExitCode.Remote,
    );
  }
  return new CliError(`Temporal at ${where}: ${message}`, ExitCode.Remote);
}
