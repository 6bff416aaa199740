/** The commands the parser (args.ts) produces and the runners in commands/ take. */
import type { TaskStateName } from '../protocol/states.js';

export type Transport = 'JSONRPC' | 'HTTP+JSON';

export interface Gateway {
  /** Base URL without a trailing slash. */
  url: string;
  transport: Transport;
  /** Headers that authenticate the caller (from A2A_API_KEY or A2A_TOKEN). */
  credentials?: Record<string, string>;
}

/** Text and/or structured content of an outgoing message. */
export interface Content {
  text?: string;
  data?: unknown;
}

export type Command =
  | { kind: 'help'; topic?: string }
  | { kind: 'init'; dir: string; name?: string }
  | { kind: 'dev' | 'worker' | 'gateway'; config?: string }
  | {
      kind: 'send';
      gateway: Gateway;
      agent: string;
      content: Content;
      stream: boolean;
      /** returnImmediately: answer with the submitted task instead of waiting for it to settle. */
      noWait: boolean;
      json: boolean;
      responder?: string;
    }
  | { kind: 'chat'; gateway: Gateway; agent: string; fresh: boolean; responder?: string }
  | {
      kind: 'tasks list';
      gateway: Gateway;
      /** Absent: the gateway's default agent (served at its root). */
      agent?: string;
      json: boolean;
      state?: TaskStateName;
      contextId?: string;
      pageSize?: number;
      pageToken?: string;
    }
  | { kind: 'tasks show'; gateway: Gateway; agent?: string; json: boolean; id: string; historyLength?: number }
  | {
      kind: 'tasks reply';
      gateway: Gateway;
      agent?: string;
      json: boolean;
      id: string;
      content: Content;
      stream: boolean;
      responder?: string;
    }
  | { kind: 'tasks cancel'; gateway: Gateway; agent?: string; json: boolean; id: string; responder?: string }
  | { kind: 'setup'; json: boolean; namespace?: string; address?: string };
