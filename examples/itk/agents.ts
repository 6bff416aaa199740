/**
 * The ITK node: an agent that follows the A2A interop kit's instruction protocol (a2aproject/a2a-itk,
 * `protos/instruction.proto`). The kit routes one nested instruction through agents of every SDK; each
 * agent runs its steps: CallAgent sends the nested instruction to the next agent over the transport named
 * and answers with what it answered, ReturnResponse answers a fixed text, SeriesOfSteps runs steps in turn
 * and answers their answers one per line (CONCAT). The task completes with that text as its status
 * message, which is where the kit's agents read an answer.
 */
import {
  AgentFailure,
  defineAgent,
  type AgentContext,
  type CallAgentOptions,
  type RemoteTransport,
  type WirePart,
} from 'a2a-temporal';
import type * as activities from './activities.js';
import type { CallAgent, Instruction } from './instruction.js';

const INSTRUCTION_MEDIA_TYPE = 'application/x-protobuf';
const INSTRUCTION_FILENAME = 'instruction.bin';
/** A held task's answer ends with this line: the kit's resubscribing callers read until they see it. */
const TASK_FINISHED = 'task-finished';
/**
 * A held task completes by itself after this unless its caller cancels it first, as the kit's agents
 * do (after 10 s), since a caller that read the answer need not cancel. The kit's callers never wait
 * for the completion.
 */
const HOLD = '1 minute';

/** The kit's transport names (its agents take these spellings, case aside) as agent cards name them. */
const TRANSPORTS: Record<string, RemoteTransport> = {
  JSONRPC: 'JSONRPC',
  GRPC: 'GRPC',
  HTTP_JSON: 'HTTP+JSON',
  'HTTP+JSON': 'HTTP+JSON',
  REST: 'HTTP+JSON',
};

export const itkNode = defineAgent({
  name: 'itk',
  description: 'A node of the A2A interop kit: runs the instruction it is sent, calling other agents as it says.',
  skills: [
    {
      id: 'itk-instruction',
      name: 'ITK instruction',
      description: 'Runs an a2a-itk instruction (protobuf, application/x-protobuf) and answers its responses.',
      tags: ['interop'],
    },
  ],
  defaultInputModes: [INSTRUCTION_MEDIA_TYPE, 'text/plain'],
  async run(ctx) {
    const instruction = await readInstruction(ctx);
    const answer = (await perform(ctx, instruction)).join('\n');
    if (!holds(instruction)) return answer;
    const held = `${answer}\n${TASK_FINISHED}`;
    ctx.status(held);
    await ctx.sleep(HOLD, 'held for a resubscribing caller');
    return held;
  },
});

export default [itkNode];

function codec(ctx: AgentContext) {
  return ctx.activities<typeof activities>({ startToCloseTimeout: '10 seconds' });
}

/** The instruction: a protobuf part, or (as the kit's agents also take it) base64 protobuf in a text part. */
async function readInstruction(ctx: AgentContext): Promise<Instruction> {
  const { decodeItkInstruction } = codec(ctx);
  for (const part of ctx.message.parts) {
    const encoded = isInstructionPart(part) ? part.raw : part.text;
    const instruction = encoded ? await decodeItkInstruction(encoded) : null;
    if (instruction) return instruction;
  }
  throw new AgentFailure('No ITK instruction in the message (a protobuf part, or base64 protobuf in a text part).');
}

function isInstructionPart(part: WirePart): boolean {
  return part.mediaType === INSTRUCTION_MEDIA_TYPE || part.filename === INSTRUCTION_FILENAME;
}

async function perform(ctx: AgentContext, instruction: Instruction): Promise<string[]> {
  if (instruction.callAgent) return [await callAgent(ctx, instruction.callAgent)];
  if (instruction.returnResponse) return [instruction.returnResponse.response ?? ''];
  if (instruction.steps) {
    const generator = instruction.steps.responseGenerator;
    if (generator && generator !== 'RESPONSE_GENERATOR_CONCAT' && generator !== 'RESPONSE_GENERATOR_UNSPECIFIED') {
      throw new AgentFailure(`Unknown response generator ${generator}`);
    }
    const responses: string[] = [];
    for (const step of instruction.steps.instructions ?? []) responses.push(...(await perform(ctx, step)));
    return responses;
  }
  throw new AgentFailure('An instruction with no step');
}

/** Whether any ReturnResponse in the instruction asks to hold the task open. */
function holds(instruction: Instruction): boolean {
  return Boolean(instruction.returnResponse?.holdTask) || (instruction.steps?.instructions ?? []).some(holds);
}

async function callAgent(ctx: AgentContext, call: CallAgent): Promise<string> {
  if (!call.agentCardUri) throw new AgentFailure('CallAgent without agent_card_uri');
  const raw = await codec(ctx).encodeItkInstruction(call.instruction ?? {});
  const result = await ctx.callAgent(
    call.agentCardUri,
    { parts: [{ raw, mediaType: INSTRUCTION_MEDIA_TYPE, filename: INSTRUCTION_FILENAME }] },
    callOptions(call),
  );
  // A held remote task answers with the marker line; the answer is what comes before it.
  return result.text.replaceAll(`\n${TASK_FINISHED}`, '').replaceAll(TASK_FINISHED, '');
}

function callOptions(call: CallAgent): CallAgentOptions {
  const transport = call.transport ? TRANSPORTS[call.transport.toUpperCase()] : undefined;
  if (call.transport && !transport) throw new AgentFailure(`Unknown transport ${call.transport}`);
  const pushUrl = call.pushNotification?.url;
  return {
    ...(transport && { transport }),
    ...(call.streaming && { streaming: true }),
    // The kit's resubscribing callers take the held task's answer at its marker, then cancel the task.
    ...(call.resubscribe && { resubscribe: true, finishedMarker: TASK_FINISHED }),
    // The kit's agents register `<url>/notifications` with this token for the remote task.
    ...(pushUrl && { pushNotification: { url: `${withScheme(pushUrl)}/notifications`, token: 'itk-token' } }),
  };
}

function withScheme(url: string): string {
  return /^https?:\/\//.test(url) ? url : `http://${url}`;
}
