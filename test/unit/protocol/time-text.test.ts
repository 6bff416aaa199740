import { describe, expect, it } from 'vitest';
import { spanText, utcMinuteText } from '../../../src/protocol/time-text.js';
import { deadlineText } from '../../../src/workflows/task-runtime.js';

describe('times as people read them', () => {
  it('says how long, coarsely, in two units at most', () => {
    expect(spanText(3 * 86_400_000 + 2 * 3_600_000 + 59_000)).toBe('3d 2h');
    expect(spanText(-70_000)).toBe('1m 10s');
    expect(spanText(71 * 3_600_000)).toBe('2d 23h');
    expect(spanText(400)).toBe('0s');
  });

  it('gives a UTC time to the minute, whatever the time zone', () => {
    expect(utcMinuteText('2026-11-25T14:00:59.999Z')).toBe('2026-11-25 14:00 UTC');
    expect(utcMinuteText(new Date('2026-11-25T23:30:00+02:00'))).toBe('2026-11-25 21:30 UTC');
  });

  it('tells a deadline in the current details as a date and as the time given to answer', () => {
    expect(deadlineText('2026-11-22T14:00:00.000Z', '2026-11-25T14:00:00.000Z')).toBe(
      'deadline 2026-11-25 14:00 UTC, 3d after it was asked',
    );
  });
});
