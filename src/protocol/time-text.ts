/**
 * Times as people read them, shared by the CLI and the workflow's "current details" line. Pure and
 * locale-free (no Intl), so it runs inside the workflow sandbox with the same result everywhere.
 */

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
];

/** A length of time, coarse on purpose, two units at most: "3d 2h", "1m 10s"; "0s" under a second. */
export function spanText(ms: number): string {
  let seconds = Math.round(Math.abs(ms) / 1000);
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    if (seconds >= size && parts.length < 2) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    } else if (parts.length > 0) break;
  }
  return parts.length > 0 ? parts.join(' ') : '0s';
}

/** "2026-11-25 14:00 UTC": to the minute, in UTC, whatever the worker's time zone. */
export function utcMinuteText(at: string | Date): string {
  const iso = new Date(at).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
