/** Console output of libraries becomes structured log entries that a request cannot forge. */
import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { routeConsoleToLogger, traceFields } from '../../src/logging.js';

const saved = { ...console };
afterEach(() => Object.assign(console, saved));

describe('routeConsoleToLogger', () => {
  it('writes one JSON entry per console call, however hostile the text', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
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
