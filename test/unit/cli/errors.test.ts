import {
  fromJsonRpcErrorResponse,
  fromRestErrorBody,
  JsonRpcTaskNotFoundError,
  RestTaskNotCancelableError,
  TaskNotFoundError,
  toJsonRpcError,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import { describe, expect, it } from 'vitest';
import { ExitCode, networkErrorCode, toCliError, UsageError } from '../../../src/cli/errors.js';
import { TemporalBusyError, TemporalUnavailableError } from '../../../src/tasks/errors.js';

const context = { gatewayUrl: 'http://127.0.0.1:8080' };

function fetchFailure(code: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('socket'), { code }) });
}

describe('toCliError', () => {
  it('reports A2A errors with their JSON-RPC code, whatever the transport (exit 3)', () => {
    const rpc = toCliError(
      new JsonRpcTaskNotFoundError({ message: 'Task x not found', envelopeCode: -32001 }),
      context,
    );
    expect(rpc).toMatchObject({
      exitCode: ExitCode.Remote,
      code: -32001,
      message: 'A2A error -32001: Task x not found',
    });
    const rest = toCliError(
      new RestTaskNotCancelableError({ message: 'Task x is completed', statusCode: 409 }),
      context,
    );
    expect(rest).toMatchObject({ exitCode: ExitCode.Remote, code: -32002 });
    expect(toCliError(new TaskNotFoundError('gone'), context).code).toBe(-32001);
  });

  it('says the gateway is unreachable, and how to start it (exit 2)', () => {
    const failure = toCliError(fetchFailure('ECONNREFUSED'), context);
    expect(failure.exitCode).toBe(ExitCode.Unreachable);
    expect(failure.message).toBe('Cannot reach the gateway at http://127.0.0.1:8080: is it running? (npm start)');
  });

  it('names the task that keeps running when a stream drops', () => {
    const failure = toCliError(fetchFailure('UND_ERR_SOCKET'), { ...context, taskId: 't1' });
    expect(failure.exitCode).toBe(ExitCode.Unreachable);
    expect(failure.message).toMatch(/Lost the connection .* a2a-temporal tasks show t1/);
  });

  it('treats the gateway losing Temporal as unreachable too, by its ErrorInfo reason or HTTP 503, not its text', () => {
    const wire = toJsonRpcError(new TemporalUnavailableError());
    const rpc = fromJsonRpcErrorResponse({ jsonrpc: '2.0', id: 1, error: wire });
    expect(toCliError(rpc, context)).toMatchObject({
      exitCode: ExitCode.Unreachable,
      message: expect.stringContaining('cannot reach Temporal'),
    });
    const rest = fromRestErrorBody(toRestErrorBody(new TemporalUnavailableError(), 503).error, { statusCode: 503 });
    expect(toCliError(rest, context)).toMatchObject({ exitCode: ExitCode.Unreachable });
    const sameText = fromJsonRpcErrorResponse({ jsonrpc: '2.0', id: 1, error: { ...wire, data: [] } });
    expect(toCliError(sameText, context)).toMatchObject({ exitCode: ExitCode.Remote });
  });

  it('treats Temporal busy as a call to retry later, by its ErrorInfo reason', () => {
    const wire = toJsonRpcError(new TemporalBusyError());
    const rpc = fromJsonRpcErrorResponse({ jsonrpc: '2.0', id: 1, error: wire });
    expect(toCliError(rpc, context)).toMatchObject({
      exitCode: ExitCode.Unreachable,
      message: 'The gateway at http://127.0.0.1:8080 answered: Temporal is busy, retry later.',
    });
    // HTTP+JSON, inside a stream: the 200 of the stream, and no reason (the SDK drops it); the words remain.
    const rest = fromRestErrorBody(toRestErrorBody(new TemporalBusyError(), 503).error, { statusCode: 200 });
    expect(toCliError(rest, context)).toMatchObject({ exitCode: ExitCode.Unreachable });
  });

  it('treats Temporal lost in the middle of a stream as unreachable too, on both HTTP transports', () => {
    // REST: an error event inside the stream comes with the stream's 200, and the SDK drops the reason.
    const rest = fromRestErrorBody(toRestErrorBody(new TemporalUnavailableError(), 503).error, { statusCode: 200 });
    expect(toCliError(rest, { ...context, taskId: 't1' })).toMatchObject({
      exitCode: ExitCode.Unreachable,
      message: expect.stringContaining('tasks show t1'),
    });
    // JSON-RPC: the SDK's stream reader throws a plain Error whose cause is the A2A error.
    const wire = toJsonRpcError(new TemporalUnavailableError());
    const rpc = new Error('SSE event contained an error', {
      cause: fromJsonRpcErrorResponse({ jsonrpc: '2.0', id: 1, error: wire }),
    });
    expect(toCliError(rpc, context)).toMatchObject({ exitCode: ExitCode.Unreachable });
    const otherRest = fromRestErrorBody(
      { code: 500, status: 'INTERNAL', message: 'Internal error (ref 1a2b3c4d)' },
      {
        statusCode: 200,
      },
    );
    expect(toCliError(otherRest, context)).toMatchObject({ exitCode: ExitCode.Remote });
  });

  it('passes CLI errors through and reports anything else as a remote failure', () => {
    const usage = new UsageError('bad');
    expect(toCliError(usage, context)).toBe(usage);
    expect(toCliError(new Error('HTTP error 500'), context)).toMatchObject({
      exitCode: ExitCode.Remote,
      message: 'HTTP error 500',
    });
  });

  it('finds network codes anywhere in the cause chain', () => {
    const nested = new Error('outer', {
      cause: new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]),
    });
    expect(networkErrorCode(nested)).toBe('ECONNREFUSED');
    expect(networkErrorCode(new Error('plain'))).toBeUndefined();
  });
});
