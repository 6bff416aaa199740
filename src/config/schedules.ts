/**
 * The config's `schedules`, checked with zod so a mistake is named before any Schedule is made:
 * the entry, the field and what is wrong with it.
 */
import { z } from 'zod';
import { msToNumber } from '../protocol/temporal-sdk-compat.js';
import { SCHEDULE_OVERLAPS, type ScheduledTask } from './define-config.js';

/** A config's schedule with its defaults. */
export type CheckedSchedule = ScheduledTask & Required<Pick<ScheduledTask, 'overlap'>>;

/** The ID is part of workflow IDs and of command lines: nothing that needs quoting. */
const SCHEDULE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function scheduleSchema(agents: readonly string[]) {
  return z
    .strictObject({
      id: z
        .string()
        .regex(SCHEDULE_ID, 'must be letters, digits, ".", "_" or "-" (at most 100), not starting with a sign'),
      agent: z
        .string()
        .refine((name) => agents.includes(name), { error: `is not one of the agents (${agents.join(', ')})` }),
      every: z
        .string()
        .refine((text) => durationMs(text) !== undefined && durationMs(text)! >= 1_000, {
          error: "must be a duration of at least 1 second, e.g. '30 minutes' or '1 hour'",
        })
        .optional(),
      cron: z.string().trim().min(1, 'must not be empty').optional(),
      message: z.string().trim().min(1, 'must not be empty'),
      owner: z.string().trim().min(1, 'must not be empty'),
      overlap: z.enum(SCHEDULE_OVERLAPS, { error: `must be one of ${SCHEDULE_OVERLAPS.join(', ')}` }).default('skip'),
    })
    .refine((entry) => (entry.every === undefined) !== (entry.cron === undefined), {
      error: 'give either `every` or `cron` (exactly one of them)',
    });
}

/** Checked schedules with their defaults, or a message naming each mistake (`schedules[1].overlap: ...`). */
export function checkedSchedules(
  raw: unknown,
  agents: readonly string[],
): { schedules: CheckedSchedule[] } | { problems: string } {
  const parsed = z
    .array(scheduleSchema(agents))
    .refine((entries) => new Set(entries.map((entry) => entry.id)).size === entries.length, {
      error: 'two schedules have the same id',
    })
    .safeParse(raw);
  if (parsed.success) return { schedules: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const path = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
    return `schedules${path}: ${issue.message}`;
  });
  return { problems: problems.join('; ') };
}

function durationMs(text: string): number | undefined {
  try {
    const ms = msToNumber(text as Parameters<typeof msToNumber>[0]);
    return Number.isFinite(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}
