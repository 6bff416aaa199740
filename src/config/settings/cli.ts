/**
 * The command-line client's defaults for its options (src/cli/spec.ts parses them as it parses
 * the options they stand for) and its credentials, which it takes from the environment only.
 */
import { group, setting, text } from '../setting.js';

export const CLI_SETTINGS = group('cli', {
  A2A_URL: setting({ parse: text, default: 'http://127.0.0.1:8080', description: 'The gateway (`--url`).' }),
  A2A_TRANSPORT: setting({
    parse: text,
    default: 'jsonrpc',
    description: 'The A2A transport, `jsonrpc` or `rest` (`--transport`).',
  }),
  A2A_AGENT: setting({
    parse: text,
    defaultText: "none: the gateway's default agent, or the task's own",
    description: 'The agent of task commands (`--agent`).',
  }),
  A2A_RESPONDER: setting({
    parse: text,
    description: 'Who answers or cancels, for allowed-responder checks and the audit timeline (`--as`).',
  }),
  A2A_API_KEY: setting({
    parse: text,
    secret: true,
    description: 'The API key for a gateway with authentication, sent as `X-API-Key`.',
  }),
  A2A_TOKEN: setting({
    parse: text,
    secret: true,
    description: 'A JWT for a gateway with authentication, sent as `Authorization: Bearer`.',
  }),
  A2A_CLI_STATE: setting({
    parse: text,
    defaultText: '`$XDG_STATE_HOME/a2a-temporal/chat.json`',
    description: "`chat`'s state file (the conversation to go on with).",
  }),
  XDG_STATE_HOME: setting({
    parse: text,
    defaultText: '`~/.local/state`',
    description: 'Where `chat` keeps its state file, unless A2A_CLI_STATE names one (an absolute path).',
  }),
});
