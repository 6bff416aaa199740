/** What `dev` runs on when TEMPORAL_ADDRESS is unset: its own dev server. None needs setting. */
import { group, port, setting, text } from '../setting.js';

export const DEV_SETTINGS = group('dev', {
  TEMPORAL_PORT: setting({
    parse: port,
    default: 7233,
    description: "The port of `dev`'s own Temporal dev server.",
  }),
  TEMPORAL_UI_PORT: setting({
    parse: port,
    default: 8233,
    description: "The port of `dev`'s Temporal UI.",
  }),
  A2A_DATA_DB: setting({
    parse: text,
    default: '.data/temporal.db',
    description: "The SQLite file `dev`'s dev server keeps tasks in, across restarts.",
  }),
  TEMPORAL_CLI_PATH: setting({
    parse: text,
    defaultText: 'see [Where the Temporal CLI comes from](troubleshooting.md#where-the-temporal-cli-comes-from)',
    description: 'The Temporal CLI that `dev` and tests run the dev server with.',
  }),
});
