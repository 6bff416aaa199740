/**
 * A model call's token usage beyond the task's own record: counters on the worker's Prometheus
 * endpoint (through Temporal's metric meter, by agent and model) and attributes of the activity's
 * span as the OpenTelemetry GenAI semantic conventions name them. Node only: the model activity calls it.
 */
import { trace } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import type { LanguageModelUsage } from 'ai';
import type { TokenUsage } from '../protocol/llm.js';
import { MODEL_METRICS } from '../protocol/telemetry.js';

/** The endpoint's counts, 0 for what it did not report (some OpenAI-compatible servers report none). */
export function tokenUsage(usage: LanguageModelUsage | undefined): TokenUsage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: usage?.totalTokens ?? inputTokens + outputTokens };
}

export function recordModelUsage(call: {
  agent: string | undefined;
  model: string;
  usage: TokenUsage;
  finishReason: string;
}): void {
  const { agent = 'unknown', model, usage } = call;
  const meter = Context.current().metricMeter;
  const tokens = meter.createCounter(
    MODEL_METRICS.tokens,
    undefined,
    'Tokens LLM agents used, by agent, model and type',
  );
  tokens.add(usage.inputTokens, { agent, model, type: 'input' });
  tokens.add(usage.outputTokens, { agent, model, type: 'output' });
  meter.createCounter(MODEL_METRICS.calls, undefined, 'Model calls LLM agents completed, by agent and model').add(1, {
    agent,
    model,
  });
  // The RunActivity span of the model call (Temporal's tracing interceptor makes it the active one).
  trace.getActiveSpan()?.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': model,
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'gen_ai.response.finish_reasons': [call.finishReason],
  });
}
