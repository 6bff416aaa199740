/**
 * The approver directory: who the principals are reachable as (email, a webhook of their own) and
 * which principals each group has, so that `group:finance` among a question's responders reaches
 * every member. A JSON file the project configures (`approvals.directory` in a2a-temporal.config.ts,
 * or A2A_APPROVER_DIRECTORY), read by the worker's notification activities when they need it, so an
 * edit takes effect without a restart:
 *
 *   { "principals": { "alice": { "email": "alice@example.com", "name": "Alice Martin" },
 *                     "bob": { "delegates": [{ "to": "carol", "from": "2026-12-01", "until": "2026-12-15" }] } },
 *     "groups": { "finance": ["alice", "bob"] } }
 *
 * A principal's `delegates` name who may answer for them, and when (docs/approval-policies.md, Deputies).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { GROUP_PREFIX } from '../protocol/contract.js';
import type { ResolveApproversInput, ResolvedApprovers } from '../protocol/approvals.js';
import type { Deputy, ResolveDeputiesInput, ResolvedDeputies } from '../protocol/deputies.js';
import { canonicalSha256 } from '../receipts/receipts.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';

export const APPROVER_DIRECTORY_ENV = 'A2A_APPROVER_DIRECTORY';

/**
 * The directory the worker and the gateway both read: the one given (the project config's
 * `approvals.directory`, or a test's), else A2A_APPROVER_DIRECTORY; undefined when neither names one.
 */
export function approverDirectorySource<T>(
  given: T | undefined,
  env: Pick<Settings, typeof APPROVER_DIRECTORY_ENV>,
): T | string | undefined {
  return given ?? env[APPROVER_DIRECTORY_ENV];
}

/** How one approver is reached, by channel. */
export interface ApproverEntry {
  /** The approver's name, for people (`Alice Martin`). */
  name?: string;
  /** The approver's email address, for the email channel. */
  email?: string;
  /** A webhook of this approver's own (the webhook channel); else A2A_APPROVER_WEBHOOK_URL. */
  webhook?: string;
  /** A Slack user ID (U0123ABCD), for the Slack channel. */
  slack?: string;
  /** Who may answer for this principal while away, and when. */
  delegates?: ApproverDelegation[];
}

/** A deputy of a principal: `to` may answer what waits for them between `from` and `until`. */
export interface ApproverDelegation {
  /** The deputy's principal ID. */
  to: string;
  /** A date (UTC, the whole day included) or an ISO time; open-ended when omitted. */
  from?: string;
  /** A date (UTC, the whole day included) or an ISO time; open-ended when omitted. */
  until?: string;
}

/**
 * The approver directory: principals and how they are reached, and the members of each group.
 *
 * @example
 * const directory: ApproverDirectory = {
 *   principals: { alice: { name: 'Alice Martin', email: 'alice@example.com' }, bob: { slack: 'U0123ABCD' } },
 *   groups: { finance: ['alice', 'bob'] },
 * };
 */
export interface ApproverDirectory {
  /** Principals by their ID (as the gateway authenticates them). */
  principals: Record<string, ApproverEntry>;
  /** Groups by name (`finance` for `group:finance`): the IDs of their principals. */
  groups: Record<string, string[]>;
}

const PrincipalEntry = z.strictObject({
  name: z.string().optional(),
  email: z.email().optional(),
  webhook: z.url({ protocol: /^https?$/ }).optional(),
  slack: z
    .string()
    .regex(/^[UW][A-Z0-9]{2,}$/, 'a Slack user ID, e.g. U0123ABCD')
    .optional(),
  delegates: z
    .array(
      z.strictObject({
        to: z.string().min(1),
        from: z.union([z.iso.date(), z.iso.datetime({ offset: true })]).optional(),
        until: z.union([z.iso.date(), z.iso.datetime({ offset: true })]).optional(),
      }),
    )
    .optional(),
});

const DirectoryFile = z.strictObject({
  principals: z.record(z.string().min(1), PrincipalEntry).default({}),
  groups: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
}) satisfies z.ZodType<ApproverDirectory>;

/** The directory as `value` says it (a parsed file), or a ConfigError saying what is wrong and where. */
export function parseDirectory(value: unknown, source: string): ApproverDirectory {
  const parsed = DirectoryFile.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`);
    throw new ConfigError(`The approver directory ${source} is not valid: ${issues.join('; ')}`);
  }
  for (const [group, members] of Object.entries(parsed.data.groups)) {
    // Groups list principals: a `group:` member would read as a nested group, which the directory does not have.
    const nested = members.find((member) => member.startsWith(GROUP_PREFIX));
    if (nested)
      throw new ConfigError(`The approver directory ${source}: group ${group} lists ${nested}; list principals`);
  }
  for (const [principal, entry] of Object.entries(parsed.data.principals)) {
    // A deputy is a person: a group would let every member act for the principal.
    const group = entry.delegates?.find((delegate) => delegate.to.startsWith(GROUP_PREFIX));
    if (group)
      throw new ConfigError(
        `The approver directory ${source}: ${principal} delegates to ${group.to}; name a principal`,
      );
  }
  return parsed.data;
}

export async function readDirectory(file: string): Promise<ApproverDirectory> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read the approver directory ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`The approver directory ${file} is not JSON: ${(error as Error).message}`);
  }
  return parseDirectory(json, file);
}

/**
 * The principals a question reaches: its responders in order, each group replaced by its members,
 * each principal once; the fallback (the owner) when it names none. Groups the directory does not
 * know are returned apart, so the task can say so.
 */
export function resolveApprovers(directory: ApproverDirectory, input: ResolveApproversInput): ResolvedApprovers {
  const named = input.responders ?? (input.fallback ? [input.fallback] : []);
  const approvers: string[] = [];
  const unknown: string[] = [];
  for (const entry of named) {
    const members = entry.startsWith(GROUP_PREFIX) ? directory.groups[entry.slice(GROUP_PREFIX.length)] : [entry];
    if (!members) unknown.push(entry);
    for (const member of members ?? []) {
      if (member !== input.exclude && !approvers.includes(member)) approvers.push(member);
    }
  }
  return { approvers, unknown };
}

/**
 * The deputies of the principals a question reaches (its responders, groups expanded), whose window
 * has not ended at `now`, each with the groups their principal was reached through. Never transitive: a deputy's own delegates are not followed. Never for
 * one's own request: nobody acts for the requester, and the requester acts for nobody.
 */
function resolveDeputies(directory: ApproverDirectory, input: ResolveDeputiesInput, now: number): Deputy[] {
  const { requester } = input;
  const reached = resolveApprovers(directory, { responders: input.responders }).approvers;
  const deputies: Deputy[] = [];
  for (const principal of reached) {
    if (principal === requester) continue;
    const groups = groupsReaching(directory, input.responders, principal);
    for (const delegate of directory.principals[principal]?.delegates ?? []) {
      const deputy: Deputy = {
        to: delegate.to,
        for: principal,
        ...(delegate.from && { from: windowStart(delegate.from) }),
        ...(delegate.until && { until: windowEnd(delegate.until) }),
        ...(groups.length > 0 && { groups }),
      };
      const over = deputy.until !== undefined && Date.parse(deputy.until) <= now;
      const known = deputies.some((kept) => kept.to === deputy.to && kept.for === principal);
      if (delegate.to !== requester && delegate.to !== principal && !over && !known) deputies.push(deputy);
    }
  }
  return deputies;
}

/** The groups among `responders` that reach `principal`, by the directory's members (a quorum's group rules). */
function groupsReaching(directory: ApproverDirectory, responders: readonly string[], principal: string): string[] {
  return responders
    .filter((entry) => entry.startsWith(GROUP_PREFIX))
    .map((entry) => entry.slice(GROUP_PREFIX.length))
    .filter((group) => directory.groups[group]?.includes(principal));
}

/**
 * SHA-256 (hex) of the directory as parsed, in RFC 8785 canonical JSON (the same directory listed in
 * another order hashes the same): which snapshot a question's deputies came from. Computed in the
 * deputies activity, so a task's history keeps the hash it was given and replay never recomputes it.
 */
function directoryHash(directory: ApproverDirectory): string {
  return canonicalSha256(directory);
}

/** The question's deputies and the hash of the directory that named them (the deputies activity's answer). */
export function deputiesFromDirectory(
  directory: ApproverDirectory,
  input: ResolveDeputiesInput,
  now: number,
): ResolvedDeputies {
  return { deputies: resolveDeputies(directory, input, now), directoryHash: directoryHash(directory) };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** A window's start as an instant: a date starts at its midnight, UTC. */
function windowStart(text: string): string {
  return new Date(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text).toISOString();
}

/** A window's end as an instant: a date's whole day is in the window, so it ends at the next midnight, UTC. */
function windowEnd(text: string): string {
  return DATE_ONLY.test(text)
    ? new Date(Date.parse(`${text}T00:00:00Z`) + DAY_MS).toISOString()
    : new Date(text).toISOString();
}

/** The groups the directory puts `principal` in: its groups when it answers through a channel (Slack, an email link). */
export function groupsOf(directory: ApproverDirectory, principal: string): string[] {
  return Object.entries(directory.groups)
    .filter(([, members]) => members.includes(principal))
    .map(([group]) => group);
}

/**
 * The principal whose `slack` is this Slack user ID. Only an ID the directory names counts: a click
 * without a user must not match the principals that have no Slack user.
 */
export function principalOfSlackUser(directory: ApproverDirectory, slackUser: unknown): string | undefined {
  if (typeof slackUser !== 'string') return undefined;
  return Object.entries(directory.principals).find(([, entry]) => entry.slack === slackUser)?.[0];
}

/** The directory as given: a file (read anew, so an edit takes effect without a restart) or the directory itself. */
export function loadDirectory(source: string | ApproverDirectory): Promise<ApproverDirectory> {
  return typeof source === 'string' ? readDirectory(source) : Promise.resolve(parseDirectory(source, '(given)'));
}
