/**
 * Every environment variable the package reads, read once: each entrypoint (the CLI's commands, the
 * dev stack's serving process) calls readSettings and hands the values down; nothing below them
 * reads the environment. Each variable is declared once, in its feature's file under settings/
 * (parser, default, secret or not, one line of description): `a2a-temporal config` shows them and
 * docs/configuration.md is generated from them (scripts/config-table.ts).
 */
import { ConfigError } from './config-error.js';
import type { SettingValue } from './setting.js';
import { AUTH_SETTINGS } from './settings/auth.js';
import { CHANNEL_SETTINGS } from './settings/channels.js';
import { CLI_SETTINGS } from './settings/cli.js';
import { DEV_SETTINGS } from './settings/dev.js';
import { GATEWAY_SETTINGS } from './settings/gateway.js';
import { LLM_SETTINGS } from './settings/llm.js';
import { OBSERVABILITY_SETTINGS } from './settings/observability.js';
import { PUSH_SETTINGS } from './settings/push.js';
import { TEMPORAL_GRPC_META_PREFIX, TEMPORAL_SETTINGS } from './settings/temporal.js';
import { WORKER_SETTINGS } from './settings/worker.js';

export const SETTINGS = {
  ...DEV_SETTINGS,
  ...AUTH_SETTINGS,
  ...TEMPORAL_SETTINGS,
  ...GATEWAY_SETTINGS,
  ...WORKER_SETTINGS,
  ...PUSH_SETTINGS,
  ...CHANNEL_SETTINGS,
  ...LLM_SETTINGS,
  ...OBSERVABILITY_SETTINGS,
  ...CLI_SETTINGS,
};

export type SettingName = keyof typeof SETTINGS;

/** The values of every declared variable, parsed; plus Temporal's gRPC metadata (by a prefix, not a name). */
export type Settings = { readonly [K in SettingName]: SettingValue<(typeof SETTINGS)[K]> } & {
  /** `TEMPORAL_GRPC_META_*` as given, for `@temporalio/envconfig`. */
  readonly temporalGrpcMeta: Readonly<Record<string, string>>;
};

/** The variable as given, or undefined when unset or blank; trimmed unless it is a secret (which keeps its spaces). */
export function givenValue(env: NodeJS.ProcessEnv, name: SettingName): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return SETTINGS[name].secret ? raw : raw.trim();
}

/** Parses every declared variable of `env`; each wrong one is named in one ConfigError. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const declaration = SETTINGS[name];
    const raw = givenValue(env, name);
    if (raw === undefined) {
      values[name] = declaration.default;
      continue;
    }
    const parsed = declaration.parse.safeParse(raw);
    if (parsed.success) values[name] = parsed.data;
    else {
      const shown = declaration.secret ? '' : ` (got "${raw}")`;
      problems.push(`${name} ${parsed.error.issues.map((issue) => issue.message).join('; ')}${shown}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  const temporalGrpcMeta = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[0].startsWith(TEMPORAL_GRPC_META_PREFIX) && Boolean(entry[1]),
    ),
  );
  return { ...values, temporalGrpcMeta } as Settings;
}
