/** The token buckets behind the new-task and sign-in limits, on a clock of the test's own. */
import { describe, expect, it } from 'vitest';
import { RateLimit } from '../../../../src/gateway/auth/rate-limit.js';

describe('RateLimit', () => {
  it('allows perMinute at once, then says how many seconds until the next', () => {
    let now = 0;
    const limit = new RateLimit(20, () => now);
    const waits = Array.from({ length: 21 }, () => limit.take('203.0.113.7'));
    expect(waits.slice(0, 20)).toEqual(Array(20).fill(0));
    expect(waits[20]).toBe(3);
    expect(limit.take('198.51.100.1')).toBe(0);
    now += 3_000;
    expect(limit.take('203.0.113.7')).toBe(0);
  });

  it('forgets full buckets once it holds many: addresses from the network cannot grow it without end', () => {
    let now = 0;
    const limit = new RateLimit(10, () => now);
    for (let address = 0; address <= 10_000; address++) limit.take(`client ${address}`);
    expect(limit.size).toBe(10_001);
    now += 60_000;
    limit.take('one more');
    expect(limit.size).toBe(1);
  });
});
