/**
 * Which models LLM agents talk to: an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio,
 * ...), read by the worker from A2A_MODEL_BASE_URL, A2A_MODEL_API_KEY and A2A_MODEL, and any AI SDK
 * providers the project names (an agent's `model: 'anthropic:claude-sonnet-4-5'`).
 */
import type { Provider } from 'ai';
import type { Settings } from '../config/settings.js';

/** An AI SDK provider (`createAnthropic(...)`, `createGoogleGenerativeAI(...)`, ...): what the worker asks of it. */
export type ModelProvider = Pick<Provider, 'languageModel'>;

/** The models a worker's LLM agents run on: an OpenAI-compatible endpoint, and AI SDK providers by name. */
export interface ModelSettings {
  /** e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama). */
  baseURL?: string;
  /** The endpoint's API key. */
  apiKey?: string;
  /** The model agents use unless they name one. */
  model?: string;
  /** Providers by the name agents use before a colon: `anthropic` for `model: 'anthropic:claude-sonnet-4-5'`. */
  providers?: Record<string, ModelProvider>;
}

/** The provider and model ID a model name means: `provider:model` when `provider` is configured. */
export function providerModel(
  settings: ModelSettings,
  model: string,
): { provider: string; modelId: string } | undefined {
  const colon = model.indexOf(':');
  // Not every colon names a provider: `llama3.1:8b` is a model of the OpenAI-compatible endpoint.
  if (colon <= 0 || !settings.providers?.[model.slice(0, colon)]) return undefined;
  return { provider: model.slice(0, colon), modelId: model.slice(colon + 1) };
}

export const MODEL_ENV = { baseURL: 'A2A_MODEL_BASE_URL', apiKey: 'A2A_MODEL_API_KEY', model: 'A2A_MODEL' } as const;

export function modelSettingsFromEnv(env: Pick<Settings, (typeof MODEL_ENV)[keyof typeof MODEL_ENV]>): ModelSettings {
  return {
    ...(env[MODEL_ENV.baseURL] && { baseURL: env[MODEL_ENV.baseURL] }),
    ...(env[MODEL_ENV.apiKey] && { apiKey: env[MODEL_ENV.apiKey] }),
    ...(env[MODEL_ENV.model] && { model: env[MODEL_ENV.model] }),
  };
}

/** Why LLM agents cannot run with these settings, or undefined when they can. */
export function missingModelSetting(settings: ModelSettings, model?: string): string | undefined {
  const named = model ?? settings.model;
  if (named && providerModel(settings, named)) return undefined;
  if (!settings.baseURL) {
    return `No model endpoint is configured: set ${MODEL_ENV.baseURL} (e.g. http://localhost:11434/v1 for Ollama, https://api.openai.com/v1 with ${MODEL_ENV.apiKey}) and ${MODEL_ENV.model} on the worker`;
  }
  if (!(model ?? settings.model))
    return `No model is named: set ${MODEL_ENV.model} on the worker (e.g. gpt-4o-mini, llama3.1)`;
  return undefined;
}
