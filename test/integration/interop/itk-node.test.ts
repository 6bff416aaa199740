/**
 * The ITK node (examples/itk) on the product's own worker and gateway: it runs the A2A interop kit's
 * instructions, calling an agent (itself, here) over each transport the instruction names, answers a
 * SeriesOfSteps one response a line, and holds a task open for a resubscribing caller until canceled.
 * scripts/itk.sh runs it beside the kit's Go and Python agents; this test needs none of them.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeItkInstruction } from '../../../examples/itk/activities.js';
import type { Instruction } from '../../../examples/itk/instruction.js';
import { freePort } from '../../../src/temporal/dev-server.js';
import {
  cleanUp,
  rpc,
  startGateway,
  startWorker,
  taskOf,
  uniqueQueue,
  userMessage,
  waitFor,
  waitForTaskState,
  type ServeProcess,
} from '../../support/product-processes.js';

const CONFIG = fileURLToPath(new URL('../../../examples/itk/a2a-temporal.config.ts', import.meta.url));

let gateway: ServeProcess;

beforeAll(async () => {
  const taskQueue = uniqueQueue('itk');
  [gateway] = await Promise.all([
    startGateway({ taskQueue, config: CONFIG, grpcPort: await freePort() }),
    startWorker({ taskQueue, config: CONFIG }),
  ]);
});
afterAll(cleanUp);

const respond = (response: string, holdTask = false): Instruction => ({ returnResponse: { response, holdTask } });
const steps = (...instructions: Instruction[]): Instruction => ({
  steps: { instructions, responseGenerator: 'RESPONSE_GENERATOR_CONCAT' },
});
const call = (transport: string, instruction: Instruction): Instruction => ({
  callAgent: { transport, agentCardUri: gateway.url, instruction, sendMessage: {} },
});
/** A call that leaves the send's stream, resubscribes, and (as the kit's callers) cancels a held task once answered. */
const resubscribe = (transport: string, instruction: Instruction): Instruction => ({
  callAgent: { transport, agentCardUri: gateway.url, instruction, streaming: true, resubscribe: {} },
});

/** Starts a task (a held one never settles, so no blocking send). */
async function send(parts: unknown[]) {
  const params = { message: userMessage(parts), configuration: { returnImmediately: true } };
  return taskOf(await rpc(gateway.url, 'SendMessage', params));
}

const instructionPart = async (instruction: Instruction) => ({
  raw: await encodeItkInstruction(instruction),
  mediaType: 'application/x-protobuf',
  filename: 'instruction.bin',
});

describe('the ITK node', () => {
  it('runs a nested instruction through itself over JSON-RPC, gRPC and HTTP+JSON, one response a line', async () => {
    const instruction = steps(
      respond('[start]'),
      call('grpc', steps(respond('[over grpc]'), call('http_json', respond('[over http_json]')))),
      call('jsonrpc', respond('[over jsonrpc]')),
    );
    const task = await waitForTaskState(
      gateway.url,
      (await send([await instructionPart(instruction)])).id,
      'TASK_STATE_COMPLETED',
    );
    expect(task.status.message.parts).toEqual([{ text: '[start]\n[over grpc]\n[over http_json]\n[over jsonrpc]' }]);
  });

  it('takes the instruction as base64 in a text part, and fails a message without one', async () => {
    const text = await encodeItkInstruction(respond('[from text]'));
    const answered = await waitForTaskState(gateway.url, (await send([{ text }])).id, 'TASK_STATE_COMPLETED');
    expect(answered.status.message.parts).toEqual([{ text: '[from text]' }]);

    const failed = await waitForTaskState(gateway.url, (await send([{ text: 'hello' }])).id, 'TASK_STATE_FAILED');
    expect(failed.status.message.parts[0].text).toMatch(/No ITK instruction in the message/);
  });

  it('holds a task working once it has answered "task-finished", until its caller cancels it', async () => {
    const { id } = await send([await instructionPart(steps(respond('[held]', true)))]);
    let task: any;
    await waitFor('the held answer', async () => {
      task = (await rpc(gateway.url, 'GetTask', { id })).result;
      return Boolean(task?.status?.message);
    });
    expect(task.status).toMatchObject({
      state: 'TASK_STATE_WORKING',
      message: { parts: [{ text: '[held]\ntask-finished' }] },
    });
    await rpc(gateway.url, 'CancelTask', { id });
    await waitForTaskState(gateway.url, id, 'TASK_STATE_CANCELED');
  });

  it('answers a resubscribing call with the held task\'s answer at "task-finished", and cancels that task', async () => {
    const instruction = steps(
      resubscribe('jsonrpc', respond('[held over jsonrpc]', true)),
      resubscribe('grpc', respond('[held over grpc]', true)),
    );
    const { id } = await send([await instructionPart(instruction)]);
    // Held tasks complete by themselves only after a minute: the call answered before, at the marker.
    const task = await waitForTaskState(gateway.url, id, 'TASK_STATE_COMPLETED');
    expect(task.status.message.parts).toEqual([{ text: '[held over jsonrpc]\n[held over grpc]' }]);
    const delegations: { taskId: string; state: string }[] = task.metadata.delegations;
    expect(delegations.map((delegation) => delegation.state)).toEqual(['canceled', 'canceled']);
    for (const delegation of delegations) await waitForTaskState(gateway.url, delegation.taskId, 'TASK_STATE_CANCELED');
  });
});
