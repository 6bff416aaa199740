/**
 * The contract between an LLM agent's loop (workflow) and the model activity (Node): the
 * conversation as plain JSON, one model call's input and result, and the signal the activity
 * streams the model's text through. Pure, so both sides import it.
 */
import { defineSignal } from '@temporalio/workflow';

export interface LlmToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model sent them (JSON text; may be malformed). */
  arguments: string;
}

export interface LlmToolResult {
  id: string;
  name: string;
  output: string;
  isError?: boolean;
}

export type LlmMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text?: string; toolCalls?: LlmToolCall[] }
  | { role: 'tool'; results: LlmToolResult[] };

export interface LlmToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ModelCallInput {
  /** Model name at the endpoint; the worker's A2A_MODEL when absent. */
  model?: string;
  system: string;
  messages: LlmMessage[];
  tools: LlmToolSpec[];
  /** The text beyond this is cut (with a note), so the conversation stays within Temporal's limits. */
  maxTextChars: number;
  /** Where to stream the text as it comes (a modelOutputSignal per batch); no streaming when absent. */
  stream?: { streamId: string; intervalMs: number };
  /** The agent's model settings (temperature, max tokens, provider options). */
  settings?: ModelCallSettings;
}

/** How an agent's model calls are made, as the AI SDK names these settings. */
export interface ModelCallSettings {
  /** Sampling temperature; default the provider's. */
  temperature?: number;
  /** Nucleus sampling; default the provider's. */
  topP?: number;
  /** The most tokens one answer may have; default the provider's. */
  maxOutputTokens?: number;
  /** Options for the provider, by provider name (e.g. `{ anthropic: { thinking: ... } }`). */
  providerOptions?: Record<string, Record<string, unknown>>;
}

export interface ModelCallResult {
  text: string;
  toolCalls: LlmToolCall[];
  finishReason: string;
  /** The model the call went to (the worker's A2A_MODEL when the agent names none). Absent in older histories. */
  model?: string;
  /** Tokens the endpoint reported for this call. Absent in older histories. */
  usage?: TokenUsage;
  /** The activity attempt that produced this result (1 for the first). Absent in older histories. */
  attempt?: number;
}

/** Tokens one model call used, as the endpoint reported them (0 for what it did not report). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** One model call's usage as the task records it. */
export interface ModelCallUsage extends TokenUsage {
  model: string;
}

/** A task's model spend (its `metadata.usage`): sums over all its model calls, and the latest calls one by one. */
export interface TaskUsage extends TokenUsage {
  modelCalls: number;
  calls: ModelCallUsage[];
}

/**
 * A batch of streamed model text: `text` starts at character `offset` of the stream's output. A
 * retried call streams again from offset 0 with its own `attempt`: the task then restarts the
 * artifact instead of splicing two attempts' texts (chunks without `attempt` are from older workers).
 */
export interface ModelOutputChunk {
  streamId: string;
  offset: number;
  text: string;
  attempt?: number;
}

export const modelOutputSignal = defineSignal<[ModelOutputChunk]>('modelOutput');

/** A tool call: the project's activity `activity` with `input`, run by the tool runner activity. */
export interface ToolRunInput {
  activity: string;
  input: unknown;
  /** The output (as text) beyond this is cut with a note. */
  maxOutputChars: number;
  /** The tool's retry attempts: the last failure comes back as an error result instead of failing the activity. */
  maxAttempts: number;
}

export interface ToolRunResult {
  output: string;
  isError?: boolean;
}

/** The activities the worker registers beside the project's own for LLM agents. */
export const MODEL_ACTIVITY = 'a2aTemporalModelCall';
export const TOOL_ACTIVITY = 'a2aTemporalToolCall';

/** Text cut to `max` characters, saying how much was cut: model answers and tool results in the conversation. */
export function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[truncated: ${text.length - max} more characters]`;
}
