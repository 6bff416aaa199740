/**
 * `chat`: a conversation with one agent. Every line either answers the task waiting for input or
 * starts a new task in the same context. The context and the waiting task survive restarts of the
 * CLI (state-file.ts), because an approval may wait for days and the human comes back later.
 */
import { createInterface } from 'node:readline';
import type { Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { isInterrupted, isSettled } from '../../protocol/states.js';
import type { Command } from '../command.js';
import { connectAgent } from '../client.js';
import { ExitCode, toCliError } from '../errors.js';
import { messageText, openQuestionLines, openQuestionsOf, questionText, taskState, taskStateName } from '../format.js';
import type { Io } from '../io.js';
import { sendRequest } from '../message.js';
import { ChatStateStore, chatStatePath, conversationKey, type Conversation } from '../state-file.js';
import { StreamPrinter } from '../stream-printer.js';
import { addressOf, detachedMessage, followStream } from './send.js';

type ChatCommand = Extract<Command, { kind: 'chat' }>;
type Memory = Omit<Conversation, 'updatedAt'>;

const COMMANDS_HELP =
  '/quit leaves (so does Ctrl+D), /new starts a new conversation, /status shows the waiting task, ' +
  '/answer <id> <answer> answers one of several waiting questions.';
/** `/answer <question id> <answer>`: the answer to the one question it names, as `tasks reply --question`. */
const ANSWER_COMMAND = /^\/answer\s+(\S+)\s+(\S.*)$/;

export interface ChatStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

export async function runChat(
  command: ChatCommand,
  io: Io,
  streams: ChatStreams = { input: process.stdin, output: process.stdout },
): Promise<ExitCode> {
  const store = new ChatStateStore(chatStatePath(io.env), io.err);
  const key = conversationKey(command.gateway.url, command.agent);
  if (command.fresh) store.set(key, undefined);
  const session = new ChatSession(await connectAgent(command.gateway, command.agent), command, io, (memory) =>
    store.set(key, memory),
  );
  const saved = store.get(key);
  io.out(`Chatting with ${command.agent} at ${command.gateway.url}. ${COMMANDS_HELP}`);
  if (saved?.contextId) io.out(`Continuing conversation ${saved.contextId} (remembered in ${store.path}).`);
  await session.start(saved ?? {});

  const terminal = streams.input.isTTY === true;
  const rl = createInterface({ input: streams.input, ...(terminal && { output: streams.output }), terminal });
  rl.setPrompt('you> ');
  // On a terminal readline takes Ctrl+C itself: detach from a streaming answer, or leave when idle.
  rl.on('SIGINT', () => (session.busy ? session.detach() : rl.close()));
  if (terminal) rl.prompt();
  for await (const raw of rl) {
    const line = raw.trim();
    if (!terminal && line) io.out(`you> ${line}`);
    if (line === '/quit' || line === '/exit') break;
    if (line) await session.handle(line);
    if (terminal) rl.prompt();
  }
  rl.close();
  return ExitCode.Ok;
}

class ChatSession {
  private memory: Memory = {};
  /** The waiting task's state is unknown (we detached or the stream broke): look before answering it. */
  private unsure = false;
  private turn: AbortController | undefined;
  /** The waiting task asks several questions (shown with their ids): a line must name the one it answers. */
  private several = false;

  constructor(
    private readonly client: Client,
    private readonly command: ChatCommand,
    private readonly io: Io,
    private readonly save: (memory: Memory) => void,
  ) {}

  get busy(): boolean {
    return this.turn !== undefined;
  }

  detach(): void {
    this.turn?.abort();
  }

  /** Picks up the saved conversation: a task that waited when we left may have moved on since. */
  async start(saved: Memory): Promise<void> {
    this.memory = { ...saved };
    if (this.memory.pendingTaskId) await this.refresh('start');
  }

  async handle(line: string): Promise<void> {
    try {
      await this.dispatch(line);
    } catch (error) {
      const failure = toCliError(error, { gatewayUrl: this.command.gateway.url });
      this.io.err(`error: ${failure.message}`);
      // A rejected answer usually means the task moved on (answered elsewhere, deadline): look again.
      if (failure.exitCode === ExitCode.Remote && this.memory.pendingTaskId)
        await this.refresh('status').catch(() => {});
    }
  }

  private async dispatch(line: string): Promise<void> {
    if (line === '/new') {
      this.remember({});
      this.io.out('Started a new conversation.');
    } else if (line === '/status') {
      await this.refresh('status');
    } else if (ANSWER_COMMAND.test(line)) {
      const [, question, text] = ANSWER_COMMAND.exec(line)!;
      if (this.memory.pendingTaskId && !this.unsure) await this.send(text!, question);
      else await this.refresh('status');
    } else if (line.startsWith('/')) {
      this.io.out(`Unknown command ${line}. ${COMMANDS_HELP}`);
    } else if (!((this.unsure || this.several) && this.memory.pendingTaskId && (await this.refresh('turn')))) {
      await this.send(line);
    }
  }

  /** Sends a line: the answer to the waiting task (to its question `question`, by id), else a new task. */
  private async send(text: string, question?: string): Promise<void> {
    // A task whose state is unsure (still working) is not answered: the line starts a new task.
    const pending = this.unsure ? undefined : this.memory.pendingTaskId;
    const request = sendRequest(
      { text },
      {
        ...(pending && { taskId: pending, question }),
        ...(this.memory.contextId && { contextId: this.memory.contextId }),
        ...(this.command.responder && { responder: this.command.responder }),
      },
    );
    const printer = new StreamPrinter(this.io.out, this.io.now);
    this.turn = new AbortController();
    try {
      const result = await followStream(this.client, request, (event) => printer.handle(event), {
        ...addressOf(this.command),
        knownTask: pending,
        signal: this.turn.signal,
      });
      printer.flush();
      const { taskId, contextId, state } = printer.outcome;
      const context = contextId ?? this.memory.contextId;
      if (result === 'interrupted' || !state || !isSettled(state)) {
        if (result === 'interrupted') this.io.err(detachedMessage(taskId, addressOf(this.command)));
        else if (taskId) this.io.err(`The stream ended while task ${taskId} was still ${state ?? 'starting'}.`);
        // Remember it: it may stop to ask something later, and /status or the next line will look.
        this.unsure = taskId !== undefined;
        this.remember({ ...(context && { contextId: context }), ...(taskId && { pendingTaskId: taskId }) });
        return;
      }
      this.unsure = false;
      const waiting = taskId && isInterrupted(state) ? { pendingTaskId: taskId } : {};
      this.remember({ ...(context && { contextId: context }), ...waiting });
      // The stream showed the last question asked: when several wait, show each with its id.
      if (waiting.pendingTaskId) this.showSeveral(await this.read(waiting.pendingTaskId));
    } finally {
      this.turn = undefined;
    }
  }

  /**
   * Looks at the remembered task and says where it stands. Returns true when it waits for an
   * answer (the question was just shown). `turn`: called before sending a line.
   */
  private async refresh(reason: 'start' | 'status' | 'turn'): Promise<boolean> {
    const taskId = this.memory.pendingTaskId;
    if (!taskId) {
      this.io.out('No task is waiting for an answer; your next line starts a new task.');
      return false;
    }
    let task;
    try {
      task = await this.read(taskId);
    } catch (error) {
      if (!(error instanceof TaskNotFoundError)) throw toCliError(error, { gatewayUrl: this.command.gateway.url });
      this.io.out(
        `Task ${taskId} no longer exists (a different Temporal server?); starting afresh in this conversation.`,
      );
      this.remember({ ...(this.memory.contextId && { contextId: this.memory.contextId }) });
      return false;
    }
    this.unsure = false;
    const state = taskState(task);
    if (state && isInterrupted(state)) {
      if (!this.showSeveral(task)) this.io.out(`Task ${taskId} is ${state}: ${questionText(task)}`);
      if (reason === 'turn') {
        this.io.out(
          this.several
            ? 'Your line was not sent: answer one question with /answer <id> <answer>.'
            : 'Your line was not sent: type your answer to that question.',
        );
      }
      return true;
    }
    this.several = false;
    const message = messageText(task.status?.message);
    this.io.out(
      `Task ${taskId} is ${taskStateName(task)}${message ? `: ${message}` : ''}${/[.!?]$/.test(message) ? '' : '.'}`,
    );
    if (state && isSettled(state))
      this.remember({ ...(this.memory.contextId && { contextId: this.memory.contextId }) });
    else this.unsure = true;
    return false;
  }

  private read(taskId: string): Promise<Task> {
    return this.client.getTask({ tenant: '', id: taskId, historyLength: 0 });
  }

  /** When the task waits on several questions, lists each with its id (as `tasks show` names them). */
  private showSeveral(task: Task): boolean {
    const open = openQuestionsOf(task).filter((question) => question.id !== undefined);
    this.several = open.length > 1;
    if (!this.several) return false;
    this.io.out(`Task ${task.id} waits on ${open.length} questions; answer one with /answer <id> <answer>:`);
    for (const line of openQuestionLines(open)) this.io.out(line);
    return true;
  }

  private remember(memory: Memory): void {
    if (memory.pendingTaskId !== this.memory.pendingTaskId) this.several = false;
    this.memory = memory;
    try {
      this.save(memory);
    } catch (error) {
      // Losing the memory file must not end the conversation; the next start just begins afresh.
      this.io.err(`warning: could not save the chat state: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
