/** What the command line parses into (args.ts), and what the runners in commands/ take. */
import type { TaskStateName } from '../protocol/states.js';

export type Transport = 'JSONRPC' | 'HTTP+JSON';

/** How the CLI reaches a gateway: base URL (no trailing slash), transport, and the caller's credential headers. */
export interface GatewayConnection {
  url: string;
  transport: Transport;
  credentials?: Record<string, string>;
}

/** Text and/or structured content of an outgoing message. */
export interface Content {
  text?: string;
  data?: unknown;
}

/** What the commands about one agent's tasks share; no agent: the gateway's default agent (served at its root). */
type TaskCommand = { gateway: GatewayConnection; agent?: string; json: boolean };
/** A message out: `send` starts a task with it, `tasks reply` answers one. */
type Outgoing = { content: Content; stream: boolean; responder?: string };
/** Where setup and schedules reach Temporal; absent: TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, else the defaults. */
type TemporalTarget = { namespace?: string; address?: string };
type ListFilters = { state?: TaskStateName; contextId?: string; pageSize?: number; pageToken?: string };

/** What the runners in commands/ take. `noWait`: returnImmediately, the submitted task instead of a settled one. */
export type Command =
  | { kind: 'help'; topic?: string }
  | { kind: 'init'; dir: string; name?: string }
  | { kind: 'dev' | 'worker' | 'gateway'; config?: string }
  | { kind: 'config'; config?: string; json: boolean }
  | ({ kind: 'setup'; json: boolean } & TemporalTarget)
  | ({ kind: 'schedules list'; json: boolean } & TemporalTarget)
  | ({ kind: 'schedules pause'; id: string; note?: string } & TemporalTarget)
  | ({ kind: 'schedules resume'; id: string } & TemporalTarget)
  | ({ kind: 'schedules trigger'; id: string } & TemporalTarget)
  | (TaskCommand & { kind: 'inbox'; sort: 'deadline' | 'age' })
  | { kind: 'check-deploy'; json: boolean; config?: string; sample?: number; histories?: string }
  | { kind: 'chat'; gateway: GatewayConnection; agent: string; fresh: boolean; responder?: string }
  | (TaskCommand & Outgoing & { kind: 'send'; agent: string; noWait: boolean })
  | (TaskCommand & Outgoing & { kind: 'tasks reply'; id: string; noWait: boolean; question?: string })
  | (TaskCommand & ListFilters & { kind: 'tasks list' })
  | (TaskCommand & { kind: 'tasks show'; id: string; historyLength?: number })
  | (TaskCommand & { kind: 'tasks cancel'; id: string; responder?: string })
  | ({ kind: 'tasks unblock'; id?: string; all: boolean } & TemporalTarget)
  | { kind: 'receipts verify'; file: string; jwks?: string; gateway: Pick<GatewayConnection, 'url'> }
  | ({
      kind: 'audit export';
      since: Date;
      until?: Date;
      agent?: string;
      format: 'jsonl';
      out?: string;
    } & TemporalTarget)
  | { kind: 'audit verify'; file: string };
