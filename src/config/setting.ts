/**
 * How one environment variable is declared (src/config/settings.ts lists them all): its parser, its
 * default, the feature it belongs to, whether it is secret, and one line saying what it does. The
 * settings module, the `config` command and docs/configuration.md all read these declarations.
 */
import type { Duration } from '@temporalio/common';
import type { JWK } from 'jose';
import { z } from 'zod';
import { msToNumber } from '../protocol/temporal-sdk-compat.js';

/** The features settings belong to, in the order docs/configuration.md lists them. */
export const SETTING_GROUPS = {
  dev: 'Nothing to set for `dev`',
  auth: 'Production: authentication',
  temporal: 'Temporal connection',
  gateway: 'Gateway',
  worker: 'Worker versioning',
  push: 'Push notifications',
  channels: 'Notifying approvers',
  llm: 'LLM agents',
  observability: 'Logs, metrics and traces',
  cli: 'Command-line client',
} as const;

export type SettingGroup = keyof typeof SETTING_GROUPS;

/** A parser from the variable's text (trimmed, never blank: a blank variable is unset) to its value. */
type Parser<T> = z.ZodType<T, string>;

export interface Declaration<T = unknown, D extends T | undefined = T | undefined> {
  group: SettingGroup;
  parse: Parser<T>;
  /** The value when the variable is unset. */
  default: D;
  /** The default as the docs say it, when the value alone does not (it depends on the mode, on other settings). */
  defaultText?: string;
  /** Masked wherever it is shown (the `config` command). */
  secret: boolean;
  /** One line: what it does. */
  description: string;
  /** Where the project config can set it too (the variable wins), for the `config` command to say so. */
  projectKey?: string;
}

interface DeclarationInput<T, D extends T | undefined> {
  parse: Parser<T>;
  default?: D;
  defaultText?: string;
  secret?: boolean;
  description: string;
  projectKey?: string;
}

/** The settings of one group, each declared once: `{ NAME: setting({...}) }`. */
export function group<const S extends Record<string, Omit<Declaration, 'group'>>>(
  name: SettingGroup,
  settings: S,
): { [K in keyof S]: S[K] & { group: SettingGroup } } {
  return Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, { ...value, group: name }])) as {
    [K in keyof S]: S[K] & { group: SettingGroup };
  };
}

export function setting<T, D extends T | undefined = undefined>(
  input: DeclarationInput<T, D>,
): Omit<Declaration<T, D>, 'group'> {
  return {
    parse: input.parse,
    default: input.default as D,
    secret: input.secret ?? false,
    description: input.description,
    ...(input.defaultText !== undefined && { defaultText: input.defaultText }),
    ...(input.projectKey !== undefined && { projectKey: input.projectKey }),
  };
}

/** A declaration's words (its description, its default's text) without their markdown, for a terminal. */
export function plainText(markdown: string): string {
  return markdown.replace(/`/g, '').replace(/\[([^\]]+)\]\([^)]+\)/g, '$1');
}

/** The default as a terminal shows it: the docs' words, else the value; undefined when there is none. */
export function plainDefault(declaration: Pick<Declaration, 'default' | 'defaultText'>): string | undefined {
  if (declaration.defaultText !== undefined) return plainText(declaration.defaultText);
  if (declaration.default === undefined) return undefined;
  return Array.isArray(declaration.default) ? declaration.default.join(',') || undefined : String(declaration.default);
}

/** The type of a declared setting's value: undefined only when it has no default. */
export type SettingValue<S> = S extends { parse: Parser<infer T>; default: infer D } ? T | D : never;

// The parsers settings share. Their messages follow the variable's name ("NAME: <message>").

export const text: Parser<string> = z.string();

export const port: Parser<number> = z
  .string()
  .regex(/^\d+$/, 'must be a port number (0 to 65535)')
  .transform(Number)
  .refine((value) => value <= 65_535, 'must be a port number (0 to 65535)');

/** A port, or "off" (false). */
export const portOrOff: Parser<number | false> = z.union([z.literal('off').transform(() => false as const), port], {
  error: 'must be a port number (0 to 65535) or "off"',
});

export const positiveNumber: Parser<number> = z
  .string()
  .transform(Number)
  .refine((value) => Number.isFinite(value) && value > 0, 'must be a positive number');

export const wholeSeconds: Parser<number> = z
  .string()
  .regex(/^\d+$/, 'must be a whole number of seconds, e.g. 30')
  .transform(Number);

/** `true` or `false`, in any case. */
export const flag: Parser<boolean> = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum(['true', 'false'], { error: 'must be true or false' }))
  .transform((value) => value === 'true');

/** One of `values`, in any case. */
export function oneOf<const V extends string>(values: readonly V[]): Parser<V> {
  return z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(values as [V, ...V[]], { error: `must be one of ${values.join(', ')}` })) as Parser<V>;
}

/** The items of a comma-separated text, trimmed, without empty ones. */
export function commaItems(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export const commaList: Parser<string[]> = z.string().transform(commaItems);

export const httpUrl: Parser<string> = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** A secret of at least `bytes` bytes (an HMAC key: RFC 7518 §3.2 wants the hash's length). */
export function secretOf(bytes: number): Parser<string> {
  return z
    .string()
    .refine(
      (value) => Buffer.byteLength(value, 'utf8') >= bytes,
      `must be at least ${bytes} bytes (e.g. \`openssl rand -base64 48\`)`,
    );
}

/** A duration as Temporal reads one ('3 days', '90m'), in milliseconds: as the workflows' timers read it. */
export const duration: Parser<number> = z
  .string()
  .transform((value) => {
    try {
      return msToNumber(value as Duration);
    } catch {
      return Number.NaN;
    }
  })
  .refine((ms) => Number.isFinite(ms) && ms > 0, "must be a duration such as '3 days'");

/** A private asymmetric JWK with `kid` and `alg` (JSON): a key that can sign and be published. */
export const privateJwk: Parser<JWK> = z
  .string()
  .transform((value, context) => {
    try {
      return JSON.parse(value) as JWK;
    } catch {
      context.addIssue({ code: 'custom', message: 'must be a private JWK (JSON)' });
      return z.NEVER;
    }
  })
  .refine(
    (key) => key.kty !== 'oct' && Boolean(key.d && key.kid && key.alg),
    'must be an asymmetric private JWK with "kid" and "alg" (e.g. ES256)',
  );
