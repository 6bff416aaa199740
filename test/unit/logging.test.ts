/** Console output of libraries becomes structured log entries that a request cannot forge. */
import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { NoWorkerError, TaskBlockedError } from '../../src/tasks/errors.js';
import { createLogger, routeConsoleToLogger, traceFields } from '../../src/logging.js';

const saved = { ...console };
afterEach(() => Object.assign(console, saved));

describe('routeConsoleToLogger', () => {
  it('writes one JSON entry per console call, however hostile the text', () => {
    const { lines, sink } = lineSink();
    routeConsoleToLogger(pino({ base: null }, sink));
    const forgedId = '1\n{"level":30,"msg":"admin logged in"}';
    console.error(`Error during SSE streaming (request ${forgedId}):`, new Error('boom'));
    console.log('plain', 42);
    expect(lines).toHaveLength(2);
    const [error, plain] = lines.map((line) => JSON.parse(line));
    expect(error).toMatchObject({ level: 50, component: 'console', err: { message: 'boom' } });
    expect(error.msg).toBe('Error during SSE streaming (request 1\\n{"level":30,"msg":"admin logged in"}):');
    expect(plain).toMatchObject({ level: 30, msg: 'plain 42' });
  });

  it("logs a client's mistake at info without a stack, an internal error at error with it, and no text whole", () => {
    const { lines, sink } = lineSink();
    routeConsoleToLogger(pino({ base: null }, sink));
    console.error('Pre-stream error for request 1:', new TaskNotFoundError('Task x not found'));
    console.error(`Error during SSE streaming (request ${'i'.repeat(100_000)}):`, new RequestMalformedError('bad'));
    console.error('Error during SSE streaming (request 3):', new Error('Internal error (ref 1a2b3c4d)'));
    const [notFound, malformed, internal] = lines.map((line) => JSON.parse(line));
    expect(notFound).toEqual({
      level: 30,
      time: expect.any(Number),
      component: 'console',
      clientError: { name: 'TaskNotFoundError', reason: 'TASK_NOT_FOUND', message: 'Task x not found' },
      msg: 'Pre-stream error for request 1:',
    });
    expect(malformed).toMatchObject({ level: 30, clientError: { reason: 'INVALID_PARAMS' } });
    expect(malformed.msg.length).toBeLessThan(2_100);
    expect(internal).toMatchObject({ level: 50, err: { message: 'Internal error (ref 1a2b3c4d)' } });
    expect(internal.err.stack).toMatch(/\n\s+at /);
  });

  it('logs a refusal that needs an operator (a blocked task, no worker) at warn without a stack', () => {
    const { lines, sink } = lineSink();
    routeConsoleToLogger(pino({ base: null }, sink));
    console.error('Pre-stream error for request 1:', new TaskBlockedError('Task x is blocked by a deploy', 'why'));
    console.error('Pre-stream error for request 2:', new NoWorkerError('no worker is polling queue q'));
    const [blocked, noWorker] = lines.map((line) => JSON.parse(line));
    expect(blocked).toMatchObject({ level: 40, refusal: { reason: 'TASK_BLOCKED' } });
    expect(noWorker).toMatchObject({ level: 40, refusal: { reason: 'NO_WORKER' } });
    expect(blocked.err).toBeUndefined();
  });
});

/** A stream collecting the lines written to it. */
function lineSink(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, sink };
}

/** A logger writing JSON lines into an array. */
function capturedLogger(): { log: ReturnType<typeof createLogger>; lines: () => Array<Record<string, unknown>> } {
  const { lines, sink } = lineSink();
  const log = createLogger({ LOG_FORMAT: 'json', LOG_LEVEL: 'info' }, sink);
  return { log, lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it("never carries one line's fields into another's", () => {
    const { log, lines } = capturedLogger();
    log.info({ taskId: 'task-of-bob', contextId: 'ctx-of-bob' }, 'bob reads his task');
    log.warn({ err: new Error('stale') }, 'a failure');
    log.child({ requestId: 'req-2' }).info({ caller: 'mallory' }, 'request refused');
    log.info('plain line');
    const [bob, failure, refused, plain] = lines();
    expect(bob).toMatchObject({ taskId: 'task-of-bob', contextId: 'ctx-of-bob' });
    expect(failure).toMatchObject({ err: { message: 'stale' } });
    expect(failure).not.toHaveProperty('taskId');
    expect(refused).toMatchObject({ requestId: 'req-2', caller: 'mallory' });
    expect(refused).not.toHaveProperty('taskId');
    expect(refused).not.toHaveProperty('contextId');
    expect(refused).not.toHaveProperty('err');
    for (const field of ['taskId', 'contextId', 'err', 'requestId', 'caller']) expect(plain).not.toHaveProperty(field);
  });
});

describe('traceFields', () => {
  it('joins a log line to the active span, and adds nothing outside one', () => {
    new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }).register();
    expect(traceFields()).toEqual({});
    trace.getTracer('test').startActiveSpan('request', (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(traceFields()).toEqual({ trace_id: traceId, span_id: spanId });
      span.end();
    });
  });
});
