/** The OpenAI-compatible endpoint LLM agents call (src/llm/model-settings.ts). */
import { group, httpUrl, setting, text } from '../setting.js';

export const LLM_SETTINGS = group('llm', {
  A2A_MODEL_BASE_URL: setting({
    parse: httpUrl,
    defaultText: "none: LLM agents' tasks fail saying what to set",
    description: 'The OpenAI-compatible endpoint, e.g. `https://api.openai.com/v1`.',
  }),
  A2A_MODEL_API_KEY: setting({ parse: text, secret: true, description: "The endpoint's API key." }),
  A2A_MODEL: setting({ parse: text, description: 'The model of LLM agents that name none.' }),
});
