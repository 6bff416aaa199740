/**
 * Which OpenAI-compatible endpoint LLM agents talk to (OpenAI, Ollama, vLLM, LM Studio, ...): read by
 * the worker from A2A_MODEL_BASE_URL, A2A_MODEL_API_KEY and A2A_MODEL.
 */
export interface ModelSettings {
  /** e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama). */
  baseURL?: string;
  apiKey?: string;
  /** The model agents use unless they name one. */
  model?: string;
}

export const MODEL_ENV = { baseURL: 'A2A_MODEL_BASE_URL', apiKey: 'A2A_MODEL_API_KEY', model: 'A2A_MODEL' } as const;

export function modelSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ModelSettings {
  return {
    ...(env[MODEL_ENV.baseURL] && { baseURL: env[MODEL_ENV.baseURL] }),
    ...(env[MODEL_ENV.apiKey] && { apiKey: env[MODEL_ENV.apiKey] }),
    ...(env[MODEL_ENV.model] && { model: env[MODEL_ENV.model] }),
  };
}

/** Why LLM agents cannot run with these settings, or undefined when they can. */
export function missingModelSetting(settings: ModelSettings, model?: string): string | undefined {
  if (!settings.baseURL) {
    return `No model endpoint is configured: set ${MODEL_ENV.baseURL} (e.g. http://localhost:11434/v1 for Ollama, https://api.openai.com/v1 with ${MODEL_ENV.apiKey}) and ${MODEL_ENV.model} on the worker`;
  }
  if (!(model ?? settings.model))
    return `No model is named: set ${MODEL_ENV.model} on the worker (e.g. gpt-4o-mini, llama3.1)`;
  return undefined;
}
