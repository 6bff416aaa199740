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
import type { Command } from '../args.js';
import { connectAgent } from '../client.js';
import { CliError, ExitCode, toCliError } from '../errors.js';
import {
  commandHint,
  isInterruptedName,
  isSettledName,
  isUnsuccessfulName,
  shellWord,
  taskStateName,
  type HintTarget,
} from '../format.js';
import type { Io } from '../io.js';
import { sendOptions, sendRequest } from '../message.js';
import { StreamPrinter, type StreamOutcome } from '../stream-printer.js';
import { resultView } from '../views.js';
import { viewOptions } from './tasks.js';

type SendCommand = Extract<Command, { kind: 'send' | 'tasks reply' }>;

export async function runSend(command: SendCommand, io: Io): Promise<ExitCode> {
  const client = await connectAgent(command.gateway, command.agent);
  const request = sendRequest(command.content, {
    ...(command.kind === 'tasks reply' && { taskId: command.id }),
    ...(command.responder && { responder: command.responder }),
  });
  const knownTask = command.kind === 'tasks reply' ? command.id : undefined;
  if (command.stream) return streamAndReport(client, request, command, io, knownTask);
  if (command.kind === 'send' && command.noWait) {
    request.configuration = SendMessageConfiguration.fromJSON({ returnImmediately: true });
  }

  let result: Message | Task;
  try {
    result = await client.sendMessage(request, sendOptions(request));
  } catch (error) {
    throw toCliError(error, {
      gatewayUrl: command.gateway.url,
      agent: command.agent,
      ...(knownTask && { taskId: knownTask }),
    });
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
  return isMessage ? ExitCode.Ok : exitCodeFor(taskStateName(result as Task));
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
  const outcome = await followStream(client, request, onEvent, {
    gatewayUrl: command.gateway.url,
    agent: command.agent,
    knownTask,
  });
  if (outcome === 'interrupted') {
    io.err(
      detachedMessage(printer.outcome.taskId ?? knownTask, { agent: command.agent, gatewayUrl: command.gateway.url }),
    );
    return ExitCode.Interrupted;
  }
  return finishStream(printer.outcome, command, io);
}

/** After the stream: tell how to answer a waiting task, and pick the exit code. */
function finishStream(outcome: StreamOutcome, command: SendCommand, io: Io): ExitCode {
  const json = command.json;
  const target = { agent: command.agent, gatewayUrl: command.gateway.url };
  if (outcome.message && !outcome.state) return ExitCode.Ok;
  const state = outcome.state ?? 'unknown';
  if (!isSettledName(state)) {
    const hint = outcome.taskId ? ` Follow it: ${commandHint(`tasks show ${shellWord(outcome.taskId)}`, target)}` : '';
    throw new CliError(`The stream ended while the task was still ${state}.${hint}`, ExitCode.Unreachable);
  }
  if (!json && isInterruptedName(state) && outcome.taskId) {
    io.out(`Answer:  ${commandHint(`tasks reply ${shellWord(outcome.taskId)} <answer>`, target)}`);
  }
  return exitCodeFor(state);
}

export interface FollowOptions {
  gatewayUrl: string;
  /** The agent the task was reached through, for the hints of errors. */
  agent?: string | undefined;
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

export function detachedMessage(taskId: string | undefined, target: HintTarget): string {
  return taskId
    ? `Detached from task ${taskId}; it keeps running. Follow it: ${commandHint(`tasks show ${shellWord(taskId)}`, target)}`
    : 'Interrupted before the gateway named the task.';
}

export function exitCodeFor(state: string): ExitCode {
  return isUnsuccessfulName(state) ? ExitCode.TaskUnsuccessful : ExitCode.Ok;
}
