/**
 * The chat command's memory between runs: per gateway URL and agent, the conversation's context ID
 * and the task waiting for an answer. Small JSON file, written atomically (temp file + rename) so
 * a crash or two chats at once never leave half a file; a damaged file is set aside, not fatal.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { withoutTrailingSlashes } from '../protocol/base-url.js';

const ConversationSchema = z.object({
  contextId: z.string().optional(),
  /** The task waiting for input or auth, answered by the next line typed. */
  pendingTaskId: z.string().optional(),
  updatedAt: z.string(),
});

const StateFileSchema = z.object({
  version: z.literal(1),
  conversations: z.record(z.string(), ConversationSchema),
});

export type Conversation = z.infer<typeof ConversationSchema>;
type StateFile = z.infer<typeof StateFileSchema>;

/** A2A_CLI_STATE, else $XDG_STATE_HOME/a2a-temporal/chat.json, else ~/.local/state/a2a-temporal/chat.json. */
export function chatStatePath(env: NodeJS.ProcessEnv, home: string = homedir()): string {
  if (env.A2A_CLI_STATE) return env.A2A_CLI_STATE;
  // The XDG spec says relative values are invalid and must be ignored.
  const stateHome = env.XDG_STATE_HOME?.startsWith('/') ? env.XDG_STATE_HOME : join(home, '.local', 'state');
  return join(stateHome, 'a2a-temporal', 'chat.json');
}

/** One conversation per gateway and agent: the same agent on two gateways is two conversations. */
export function conversationKey(gatewayUrl: string, agent: string): string {
  return `${withoutTrailingSlashes(gatewayUrl)} ${agent}`;
}

export class ChatStateStore {
  constructor(
    readonly path: string,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  get(key: string): Conversation | undefined {
    return this.read().conversations[key];
  }

  /** Saves (or, with undefined, forgets) one conversation, keeping the others as they are on disk. */
  set(key: string, conversation: Omit<Conversation, 'updatedAt'> | undefined, now: Date = new Date()): void {
    const state = this.read();
    if (conversation && (conversation.contextId || conversation.pendingTaskId)) {
      state.conversations[key] = { ...conversation, updatedAt: now.toISOString() };
    } else {
      delete state.conversations[key];
    }
    this.write(state);
  }

  private read(): StateFile {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty();
      throw error;
    }
    try {
      return StateFileSchema.parse(JSON.parse(text));
    } catch {
      const aside = `${this.path}.damaged-${Date.now()}`;
      try {
        renameSync(this.path, aside);
        this.warn(`The chat state file ${this.path} was unreadable; moved it to ${aside} and started afresh.`);
      } catch {
        this.warn(`The chat state file ${this.path} is unreadable; it will be overwritten.`);
      }
      return empty();
    }
  }

  private write(state: StateFile): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    // Context and task IDs are not secrets, but they are nobody else's business either.
    writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}

function empty(): StateFile {
  return { version: 1, conversations: {} };
}
