/**
 * `LOG_FORMAT=json` holds for everything a worker process writes, Temporal's core (Rust) included:
 * a frontend that answers every poll "unavailable" makes core retry and warn about it, and those
 * warnings must reach the logs as JSON entries, not as the coloured lines core prints by itself.
 */
import {
  Server,
  ServerCredentials,
  status,
  type handleUnaryCall,
  type MethodDefinition,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Enough of Temporal's frontend for a worker to start: every other call, polls included, fails. */
const ANSWERED = ['GetSystemInfo', 'DescribeNamespace'];
const UNAVAILABLE = ['PollWorkflowTaskQueue', 'PollActivityTaskQueue', 'PollNexusTaskQueue', 'RecordWorkerHeartbeat'];

let frontend: Server;
let address: string;

/** A method of Temporal's WorkflowService whose messages stay bytes: the fake never reads them. */
function rawMethod(name: string): MethodDefinition<Buffer, Buffer> {
  const bytes = (buffer: Buffer) => buffer;
  return {
    path: `/temporal.api.workflowservice.v1.WorkflowService/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: bytes,
    requestDeserialize: bytes,
    responseSerialize: bytes,
    responseDeserialize: bytes,
  };
}

/** An empty message is a valid answer of every type: all its fields take their defaults. */
const answerEmpty: handleUnaryCall<Buffer, Buffer> = (_call, answer) => answer(null, Buffer.alloc(0));
const answerUnavailable: handleUnaryCall<Buffer, Buffer> = (_call, answer) =>
  answer({ code: status.UNAVAILABLE, details: 'down for the test' });

beforeAll(async () => {
  frontend = new Server();
  const methods = [...ANSWERED, ...UNAVAILABLE];
  const definition: ServiceDefinition = Object.fromEntries(methods.map((name) => [name, rawMethod(name)]));
  const implementation: UntypedServiceImplementation = Object.fromEntries(
    methods.map((name) => [name, ANSWERED.includes(name) ? answerEmpty : answerUnavailable]),
  );
  frontend.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    frontend.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  address = `127.0.0.1:${port}`;
});

afterAll(() => frontend.forceShutdown());

/** Runs the worker until core has warned about its retries (or `timeoutMs`), then stops it; its output, line by line. */
async function workerOutput(timeoutMs: number): Promise<string[]> {
  const child = spawn(process.execPath, ['bin/a2a-temporal.js', 'worker', 'test/fixtures/configs/good'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: 'default',
    },
  });
  let output = '';
  const stop = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (/retried \d+ times/.test(output)) child.kill('SIGTERM');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(stop);
  return output.split('\n').filter((line) => line.trim() !== '');
}

describe('a worker with LOG_FORMAT=json', () => {
  it("writes only JSON lines, Temporal core's retry warnings included", { timeout: 90_000 }, async () => {
    const lines = await workerOutput(45_000);
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    const entries = lines.map((line) => JSON.parse(line) as { msg?: string; component?: string });
    expect(entries.find((entry) => entry.msg === 'worker started')).toBeDefined();
    expect(entries.find((entry) => /retried \d+ times/.test(entry.msg ?? ''))).toMatchObject({
      component: 'temporal',
    });
  });
});
