/** The directory's delegates as a question's deputies (src/channels/directory.ts): windows, groups, and what never counts. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { deputiesFromDirectory, parseDirectory } from '../../../src/channels/directory.js';

const directory = parseDirectory(
  {
    principals: {
      bob: {
        delegates: [
          { to: 'carol', from: '2026-12-01', until: '2026-12-15' },
          { to: 'erin', until: '2026-11-01T09:00:00+01:00' },
        ],
      },
      carol: { delegates: [{ to: 'dave' }] },
      alice: { delegates: [{ to: 'frank' }] },
    },
    groups: { finance: ['alice', 'bob'] },
  },
  '(test)',
);
const NOW = Date.parse('2026-11-20T00:00:00Z');

describe('deputies from the directory', () => {
  it('cover whole days in UTC, follow group members (naming the group), drop ended windows, and name the directory by its hash', () => {
    const { deputies, directoryHash } = deputiesFromDirectory(directory, { responders: ['group:finance'] }, NOW);
    // The group each principal was reached through: a quorum rule of it counts their deputy's approval.
    expect(deputies).toEqual([
      { to: 'frank', for: 'alice', groups: ['finance'] },
      {
        to: 'carol',
        for: 'bob',
        from: '2026-12-01T00:00:00.000Z',
        until: '2026-12-16T00:00:00.000Z',
        groups: ['finance'],
      },
    ]);
    expect(directoryHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('name the same directory by the same hash, whatever order its file lists it in (RFC 8785)', () => {
    const reordered = parseDirectory(
      {
        groups: { finance: ['alice', 'bob'] },
        principals: {
          alice: { delegates: [{ to: 'frank' }] },
          carol: { delegates: [{ to: 'dave' }] },
          bob: {
            delegates: [
              { until: '2026-12-15', from: '2026-12-01', to: 'carol' },
              { until: '2026-11-01T09:00:00+01:00', to: 'erin' },
            ],
          },
        },
      },
      '(test)',
    );
    const hashOf = (parsed: typeof directory) =>
      deputiesFromDirectory(parsed, { responders: ['bob'] }, NOW).directoryHash;
    expect(hashOf(reordered)).toBe(hashOf(directory));
  });

  it('are never transitive, never for the requester nor the requester acting', () => {
    expect(deputiesFromDirectory(directory, { responders: ['bob'] }, NOW).deputies.map((d) => d.to)).toEqual(['carol']);
    expect(deputiesFromDirectory(directory, { responders: ['group:finance'], requester: 'bob' }, NOW).deputies).toEqual(
      [{ to: 'frank', for: 'alice', groups: ['finance'] }],
    );
    expect(deputiesFromDirectory(directory, { responders: ['alice'], requester: 'frank' }, NOW).deputies).toEqual([]);
  });

  it('refuse a group as a deputy', () => {
    const file = { principals: { bob: { delegates: [{ to: 'group:finance' }] } } };
    expect(() => parseDirectory(file, 'approvers.json')).toThrow(ConfigError);
  });
});
