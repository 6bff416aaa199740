/**
 * `send` (a new task) and `tasks reply` (an answer to a waiting task): one message out, then either
 * the blocking result or the live event stream. Both exit 4 when the task ends unsuccessfully.
 */
import {
  SendMessageConfiguration,
  SendMessageResponse,
  StreamResponse,
  type Message,
  type SendMessageRequest,
  type Task,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { isInterrupted, isSettled, isTerminal, type TaskStateName } from '../../protocol/states.js';
import type { Command, GatewayConnection } from '../command.js';
import { connectAgent } from '../client.js';
import { CliError, ExitCode, toCliError } from '../errors.js';
import { atTaskAgent } from '../task-agent.js';
import {
  answerHints,
  commandHint,
  messageText,
  openQuestionLines,
  openQuestionsOf,
  shellWord,
  taskState,
  type AgentAddress,
} from '../format.js';
import type { Io } from '../io.js';
import { sendOptions, sendRequest } from '../message.js';
import { StreamPrinter, type StreamOutcome } from '../stream-printer.js';
import { pendingView, resultView } from '../views.js';
import { viewOptions } from './tasks.js';

type SendCommand = Extract<Command, { kind: 'send' | 'tasks reply' }>;
type ReplyCommand = Extract<Command, { kind: 'tasks reply' }>;

export async function runSend(command: SendCommand, io: Io): Promise<ExitCode> {
  if (command.kind === 'send') return sendTo(command, io);
  // A reply without --agent finds its task's agent (task-agent.ts); hints then name that agent.
  return atTaskAgent(command.agent, (agent) => sendTo(agent === undefined ? command : { ...command, agent }, io));
}

async function sendTo(command: SendCommand, io: Io): Promise<ExitCode> {
  const client = await connectAgent(command.gateway, command.agent);
  const request = sendRequest(command.content, {
    ...(command.kind === 'tasks reply' && { taskId: command.id, question: command.question }),
    ...(command.responder && { responder: command.responder }),
  });
  const knownTask = command.kind === 'tasks reply' ? command.id : undefined;
  if (command.stream) return streamAndReport(client, request, command, io, knownTask);
  if (command.noWait) request.configuration = SendMessageConfiguration.fromJSON({ returnImmediately: true });

  let result: Message | Task;
  const progress = command.noWait ? undefined : reportProgress(client, knownTask, io);
  try {
    result = await client.sendMessage(request, sendOptions(request));
  } catch (error) {
    const refused = toCliError(error, { ...addressOf(command), ...(knownTask && { taskId: knownTask }) });
    throw command.kind === 'tasks reply' ? await unnamedQuestion(client, command, refused) : refused;
  } finally {
    progress?.stop();
  }
  const isMessage = 'messageId' in result;
  if (command.json) {
    const payload = isMessage
      ? { $case: 'message' as const, value: result as Message }
      : { $case: 'task' as const, value: result as Task };
    io.out(JSON.stringify(SendMessageResponse.toJSON({ payload })));
  } else {
    io.out(resultView(result, viewOptions(command, io)));
  }
  return isMessage ? ExitCode.Ok : exitCodeFor(taskState(result as Task));
}

/**
 * A reply that named no question, refused as invalid while the task waits on several: the refusal
 * with each open question's id, what it asks and who may answer, and the command that names one.
 */
async function unnamedQuestion(client: Client, command: ReplyCommand, refused: CliError): Promise<CliError> {
  if (command.question || refused.code !== A2A_ERROR_CODE.INVALID_PARAMS) return refused;
  const task = await client.getTask({ tenant: '', id: command.id, historyLength: 0 }).catch(() => undefined);
  const open = task ? openQuestionsOf(task).filter((question) => question.id) : [];
  if (open.length < 2) return refused;
  const lines = openQuestionLines(open);
  const example = commandHint(
    `tasks reply ${shellWord(command.id)} <answer> --question ${shellWord(open[0]!.id!)}`,
    addressOf(command),
  );
  const message = `${refused.message}\nTask ${command.id} waits on ${open.length} questions:\n${lines.join('\n')}\nName the one you answer with --question, e.g. ${example}`;
  return new CliError(message, refused.exitCode, refused.code, refused.cause);
}

/** How often a blocking call looks at its task while it waits, and when it first says it waits. */
const PROGRESS_INTERVAL_MS = 2_000;

/**
 * While a blocking call waits, stderr says so: a reply (its task known) prints the task's status
 * whenever it changes ("lookupOrder failed (attempt 2) and is being retried"), so a task held by a
 * retrying activity does not look like a hung command; a new task, whose ID the gateway has not
 * named yet, gets one line saying how to see more.
 */
function reportProgress(client: Client, taskId: string | undefined, io: Io): { stop(): void } {
  let last: string | undefined;
  let told = false;
  const look = async () => {
    if (!taskId) {
      if (!told)
        io.err('Waiting for the task to settle (Ctrl+C detaches; --stream shows progress, --no-wait returns at once)');
      told = true;
      return;
    }
    const task = await client.getTask({ tenant: '', id: taskId, historyLength: 0 }).catch(() => undefined);
    const state = task && taskState(task);
    const text = messageText(task?.status?.message);
    const line = state && `  ${state}${text ? `: ${text}` : ''}`;
    if (line && line !== last && state === 'working') io.err(line);
    last = line ?? last;
  };
  const timer = setInterval(() => void look(), PROGRESS_INTERVAL_MS);
  return { stop: () => clearInterval(timer) };
}

async function streamAndReport(
  client: Client,
  request: SendMessageRequest,
  command: SendCommand,
  io: Io,
  knownTask: string | undefined,
): Promise<ExitCode> {
  // In --json mode stdout carries one StreamResponse per line; the printer only keeps track.
  const printer = new StreamPrinter(command.json ? () => {} : io.out, io.now);
  const onEvent = command.json
    ? (event: StreamResponse) => {
        printer.handle(event);
        io.out(JSON.stringify(StreamResponse.toJSON(event)));
      }
    : (event: StreamResponse) => printer.handle(event);
  const outcome = await followStream(client, request, onEvent, { ...addressOf(command), knownTask });
  printer.flush();
  if (outcome === 'interrupted') {
    io.err(detachedMessage(printer.outcome.taskId ?? knownTask, addressOf(command)));
    return ExitCode.Interrupted;
  }
  return finishStream(client, printer.outcome, command, io);
}

/**
 * After the stream: tell how to answer a waiting task (the stream showed its last question; while
 * several wait, each with its id as `tasks show` lists them), and pick the exit code.
 */
async function finishStream(client: Client, outcome: StreamOutcome, command: SendCommand, io: Io): Promise<ExitCode> {
  const address = addressOf(command);
  const state = outcome.state;
  if (outcome.message && !state) return ExitCode.Ok;
  if (!state || !isSettled(state)) {
    const hint = outcome.taskId ? ` Follow it: ${commandHint(`tasks show ${shellWord(outcome.taskId)}`, address)}` : '';
    throw new CliError(`The stream ended while the task was still ${state ?? 'unknown'}.${hint}`, ExitCode.Unreachable);
  }
  if (!command.json && isInterrupted(state) && outcome.taskId) {
    const task = await client.getTask({ tenant: '', id: outcome.taskId, historyLength: 0 });
    if (openQuestionsOf(task).length > 1) {
      io.out(pendingView(task, viewOptions(command, io)).join('\n'));
      return exitCodeFor(state);
    }
    const [first, ...more] = answerHints(outcome.taskId, { details: outcome.statusDetails }, address);
    io.out(`Answer:  ${first}`);
    for (const hint of more) io.out(`    or:  ${hint}`);
  }
  return exitCodeFor(state);
}

/** Where the task is reached (for the hints of errors), and the task when it is already known. */
export interface FollowOptions extends AgentAddress {
  knownTask?: string | undefined;
  /** Stops following when it fires (besides Ctrl+C); the task keeps running. */
  signal?: AbortSignal;
}

/**
 * Runs a streaming send to its end, handing each event over. Ctrl+C detaches instead of killing
 * the process mid-line, so the caller can say which task keeps running.
 */
export async function followStream(
  client: Client,
  request: SendMessageRequest,
  onEvent: (event: StreamResponse) => void,
  options: FollowOptions,
): Promise<'done' | 'interrupted'> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;
  let taskId = options.knownTask;
  try {
    for await (const event of client.sendMessageStream(request, { ...sendOptions(request), signal })) {
      taskId ??= taskIdOf(event);
      onEvent(event);
    }
    return 'done';
  } catch (error) {
    if (signal.aborted) return 'interrupted';
    throw toCliError(error, { gatewayUrl: options.gatewayUrl, agent: options.agent, ...(taskId && { taskId }) });
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function taskIdOf(event: StreamResponse): string | undefined {
  const payload = event.payload;
  if (payload?.$case === 'task') return payload.value.id;
  if (payload?.$case === 'statusUpdate' || payload?.$case === 'artifactUpdate') return payload.value.taskId;
  return undefined;
}

export function detachedMessage(taskId: string | undefined, address: AgentAddress): string {
  return taskId
    ? `Detached from task ${taskId}; it keeps running. Follow it: ${commandHint(`tasks show ${shellWord(taskId)}`, address)}`
    : 'Interrupted before the gateway named the task.';
}

/** Exit code 4 when the task ended without completing: failed, rejected or canceled. */
export function exitCodeFor(state: TaskStateName | undefined): ExitCode {
  return state && isTerminal(state) && state !== 'completed' ? ExitCode.TaskUnsuccessful : ExitCode.Ok;
}

/** The agent a command talks to, on its gateway. */
export function addressOf(command: { gateway: GatewayConnection; agent?: string | undefined }): AgentAddress {
  return { gatewayUrl: command.gateway.url, agent: command.agent };
}
