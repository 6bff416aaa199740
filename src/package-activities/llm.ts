/**
 * The activities LLM agents run on: one model call through the AI SDK's OpenAI-compatible
 * provider (streaming its text back to the task in batches), and the tool runner that calls one of
 * the project's activities and returns its output as capped text. Node only.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  APICallError,
  jsonSchema,
  streamText,
  tool,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type ToolSet,
} from 'ai';
import { withHeartbeats } from '../activity-helpers/heartbeat.js';
import {
  cap,
  MODEL_ACTIVITY,
  TOOL_ACTIVITY,
  modelOutputSignal,
  type LlmMessage,
  type ModelCallInput,
  type ModelCallResult,
  type ModelCallSettings,
  type ToolRunInput,
  type ToolRunResult,
} from '../protocol/llm.js';
import { missingModelSetting, MODEL_ENV, providerModel, type ModelSettings } from '../llm/model-settings.js';
import { recordModelUsage, tokenUsage } from '../llm/usage-telemetry.js';

type ActivityFunction = (...args: never[]) => Promise<unknown>;

export function createLlmActivities(
  projectActivities: object = {},
  settings: ModelSettings,
): Record<string, (input: never) => Promise<unknown>> {
  return {
    [MODEL_ACTIVITY]: (input: ModelCallInput) => callModel(settings, input),
    [TOOL_ACTIVITY]: (input: ToolRunInput) => runTool(projectActivities as Record<string, ActivityFunction>, input),
  };
}

async function callModel(settings: ModelSettings, input: ModelCallInput): Promise<ModelCallResult> {
  const missing = missingModelSetting(settings, input.model);
  if (missing) throw ApplicationFailure.nonRetryable(missing, 'ModelNotConfigured');
  const model = input.model ?? settings.model!;
  const context = Context.current();
  const { attempt } = context.info;
  const workflowId = context.info.workflowExecution?.workflowId;
  const workflow = input.stream && workflowId ? context.client.workflow.getHandle(workflowId) : undefined;
  const target = languageModel(settings, model);
  return withHeartbeats(async (signal) => {
    const result = streamText({
      model: target.model,
      ...callSettings(input.settings),
      system: input.system,
      messages: toModelMessages(input.messages),
      tools: toToolSet(input),
      maxRetries: 0, // Temporal retries the activity
      abortSignal: signal,
    });
    let text = '';
    let sent = 0;
    let lastSent = Date.now();
    const flush = async () => {
      if (!input.stream || !workflow || sent >= Math.min(text.length, input.maxTextChars)) return;
      const chunk = text.slice(sent, input.maxTextChars);
      await workflow.signal(modelOutputSignal, { streamId: input.stream.streamId, offset: sent, text: chunk, attempt });
      sent += chunk.length;
      lastSent = Date.now();
    };
    for await (const part of result.fullStream) {
      if (part.type === 'error') throw callFailure(part.error, target, model);
      if (part.type !== 'text-delta') continue;
      text += part.text;
      // The first text at once, so a reader sees the answer start with the model's first tokens; then in batches.
      if (input.stream && (sent === 0 || Date.now() - lastSent >= input.stream.intervalMs)) await flush();
    }
    const toolCalls = (await result.toolCalls).map((call) => ({
      id: call.toolCallId,
      name: call.toolName,
      // Unparsable arguments stay as the model sent them: the agent hands the parse error back to the model.
      arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
    }));
    const finishReason = await result.finishReason;
    const reported = await result.usage;
    if (!hasCounts(reported)) warnOfNoUsage(target, model);
    const usage = tokenUsage(reported);
    recordModelUsage({ agent: context.info.workflowType, model, usage, finishReason });
    return { text: cap(text, input.maxTextChars), toolCalls, finishReason, model, usage, attempt };
  }).catch((error: unknown) => {
    throw callFailure(error, target, model);
  });
}

/** A model and where it runs, as failures name it: a configured provider by its name, else the endpoint's variable. */
interface ModelTarget {
  model: LanguageModel;
  provider: string;
}

/** A configured provider's model (`provider:model`), else the OpenAI-compatible endpoint's. */
function languageModel(settings: ModelSettings, model: string): ModelTarget {
  const named = providerModel(settings, model);
  if (named) {
    return {
      model: settings.providers![named.provider]!.languageModel(named.modelId),
      provider: `provider ${named.provider}`,
    };
  }
  const endpoint = createOpenAICompatible({
    name: 'a2a-temporal',
    baseURL: settings.baseURL!,
    ...(settings.apiKey && { apiKey: settings.apiKey }),
    // Streamed answers report their tokens only when asked to (stream_options.include_usage).
    includeUsage: true,
  }).chatModel(model);
  return { model: endpoint, provider: `the ${MODEL_ENV.baseURL} endpoint` };
}

/** The models (with their providers) whose missing usage this worker has warned of: once each. */
const warnedOfNoUsage = new Set<string>();

function hasCounts(usage: LanguageModelUsage): boolean {
  return [usage.inputTokens, usage.outputTokens, usage.totalTokens].some((count) => count !== undefined);
}

/** Without counts, the task's usage and its maxTokens budget count nothing for the call: say so, once. */
function warnOfNoUsage(target: ModelTarget, model: string): void {
  const key = `${target.provider}\n${model}`;
  if (warnedOfNoUsage.has(key)) return;
  warnedOfNoUsage.add(key);
  Context.current().log.warn(
    `Model ${model} of ${target.provider} reported no token usage: tasks count no tokens for its calls, and a maxTokens budget never fires. ` +
      "OpenAI-compatible servers report it in streams when asked (createOpenAICompatible's includeUsage: true); some never do.",
  );
}

type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;

function callSettings(settings: ModelCallSettings = {}) {
  const { providerOptions, ...rest } = settings;
  // JSON from the agent's definition: what the AI SDK takes as provider options.
  return { ...rest, ...(providerOptions && { providerOptions: providerOptions as ProviderOptions }) };
}

/**
 * A failed request, naming the model, its provider and the URL, so a wrong base URL or API shows
 * in the task's failure. An endpoint that says the request itself is wrong (401, 404, 400) will not
 * get better by retrying; one that is down may.
 */
function callFailure(error: unknown, target: ModelTarget, model: string): unknown {
  if (!APICallError.isInstance(error)) return error;
  const where = `model ${model} of ${target.provider} at ${error.url}`;
  if (error.isRetryable || error.statusCode === undefined) {
    return ApplicationFailure.retryable(`${where}: ${error.message}`, 'ModelCallFailed');
  }
  // createOpenAI's models speak OpenAI's Responses API, which other servers lack.
  const hint = error.statusCode === 404 && error.url.endsWith('/responses') ? RESPONSES_API_HINT : '';
  return ApplicationFailure.nonRetryable(
    `${where} answered ${error.statusCode}: ${error.message}${hint}`,
    'ModelRequestRejected',
  );
}

const RESPONSES_API_HINT =
  " (an OpenAI-compatible server serves /chat/completions: name it with @ai-sdk/openai-compatible's createOpenAICompatible, or use openai.chat(...))";

function toModelMessages(messages: LlmMessage[]): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    if (message.role === 'user') return { role: 'user', content: message.text };
    if (message.role === 'assistant') {
      return {
        role: 'assistant',
        content: [
          ...(message.text ? [{ type: 'text' as const, text: message.text }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: parseOr(call.arguments),
          })),
        ],
      };
    }
    return {
      role: 'tool',
      content: message.results.map((result) => ({
        type: 'tool-result' as const,
        toolCallId: result.id,
        toolName: result.name,
        output: result.isError
          ? { type: 'error-text' as const, value: result.output }
          : { type: 'text' as const, value: result.output },
      })),
    };
  });
}

/** Tools without `execute`: the SDK reports the model's calls and the agent's loop runs them. */
function toToolSet(input: ModelCallInput): ToolSet {
  return Object.fromEntries(
    input.tools.map((spec) => [
      spec.name,
      tool({
        description: spec.description,
        inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
      }),
    ]),
  );
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Runs the project's activity for a tool call; its last failure comes back as an error result for the model. */
async function runTool(activities: Record<string, ActivityFunction>, input: ToolRunInput): Promise<ToolRunResult> {
  const activity = activities[input.activity];
  if (typeof activity !== 'function') {
    throw ApplicationFailure.nonRetryable(
      `No activity named "${input.activity}" is registered on this worker (the tool names it)`,
      'UnknownToolActivity',
    );
  }
  try {
    const output = await withHeartbeats(() => (activity as (arg: unknown) => Promise<unknown>)(input.input));
    const text = typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
    return { output: cap(text, input.maxOutputChars) };
  } catch (error) {
    const context = Context.current();
    const lastAttempt = input.maxAttempts > 0 && context.info.attempt >= input.maxAttempts;
    const nonRetryable = error instanceof ApplicationFailure && error.nonRetryable;
    if (context.cancellationSignal.aborted || !(lastAttempt || nonRetryable)) throw error;
    return { output: cap(`The tool failed: ${(error as Error).message}`, input.maxOutputChars), isError: true };
  }
}
