/**
 * The parts of the channels that need no server: the directory (validation, groups expanded), the
 * SMTP settings (clear errors for bad variables), the notice text (everything escaped in HTML), the
 * masking of addresses and the config's `approvals` checks.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDirectory, readDirectory, resolveApprovers } from '../../../src/channels/directory.js';
import { smtpSettingsFromEnv } from '../../../src/channels/email.js';
import { maskEmail, maskUrl } from '../../../src/channels/mask.js';
import { answerLinks, answerLinkSettingsFromEnv, readAnswerToken } from '../../../src/channels/answer-links.js';
import { noticeHtml, noticeSubject, noticeText } from '../../../src/channels/notice-text.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { gatewaySettings } from '../../../src/gateway/config.js';
import type { ApproverNotice } from '../../../src/protocol/approvals.js';
import { ConfigError } from '../../../src/config/config-error.js';
import { readSettings } from '../../../src/config/settings.js';

const directory = parseDirectory(
  {
    principals: { alice: { email: 'alice@example.com' }, bob: { email: 'bob@example.com' } },
    groups: { finance: ['alice', 'bob'], legal: ['carol'] },
  },
  'test',
);

describe('the approver directory', () => {
  it('expands groups in place, each principal once, without the excluded requester', () => {
    expect(resolveApprovers(directory, { responders: ['bob', 'group:finance', 'group:legal'] })).toEqual({
      approvers: ['bob', 'alice', 'carol'],
      unknown: [],
    });
    expect(resolveApprovers(directory, { responders: ['group:finance'], exclude: 'alice' }).approvers).toEqual(['bob']);
    expect(resolveApprovers(directory, { responders: ['group:ops'] })).toEqual({
      approvers: [],
      unknown: ['group:ops'],
    });
    // A question that names nobody goes to the owner.
    expect(resolveApprovers(directory, { fallback: 'dave' }).approvers).toEqual(['dave']);
  });

  it('says what is wrong with a file, and where', async () => {
    expect(() => parseDirectory({ principals: { alice: { email: 'not an address' } } }, 'dir.json')).toThrow(
      /The approver directory dir.json is not valid: principals.alice.email: /,
    );
    expect(() => parseDirectory({ principals: {}, groups: { a: ['group:b'] } }, 'dir.json')).toThrow(
      'group a lists group:b; list principals',
    );
    expect(() => parseDirectory({ people: {} }, 'dir.json')).toThrow(ConfigError);
    const dir = mkdtempSync(join(tmpdir(), 'a2a-directory-'));
    writeFileSync(join(dir, 'bad.json'), '{ not json');
    await expect(readDirectory(join(dir, 'bad.json'))).rejects.toThrow(/bad.json is not JSON/);
    await expect(readDirectory(join(dir, 'missing.json'))).rejects.toThrow(/Cannot read the approver directory/);
  });
});

describe('the SMTP settings', () => {
  it('defaults to STARTTLS on 587 and implicit TLS on 465', () => {
    expect(smtpSettingsFromEnv(readSettings({}))).toBeUndefined();
    const base = { A2A_SMTP_HOST: 'smtp.example.com', A2A_SMTP_FROM: 'approvals@example.com' };
    expect(smtpSettingsFromEnv(readSettings(base))).toEqual({ ...hostAndFrom(), port: 587, tls: 'starttls' });
    expect(smtpSettingsFromEnv(readSettings({ ...base, A2A_SMTP_PORT: '465' }))).toMatchObject({
      port: 465,
      tls: 'implicit',
    });
    expect(smtpSettingsFromEnv(readSettings({ ...base, A2A_SMTP_TLS: 'implicit' }))).toMatchObject({ port: 465 });
  });

  it('refuses settings it cannot use, naming the variable', () => {
    const base = { A2A_SMTP_HOST: 'smtp.example.com', A2A_SMTP_FROM: 'approvals@example.com' };
    expect(() => smtpSettingsFromEnv(readSettings({ A2A_SMTP_HOST: 'smtp.example.com' }))).toThrow(
      'set A2A_SMTP_FROM too',
    );
    expect(() => smtpSettingsFromEnv(readSettings({ ...base, A2A_SMTP_TLS: 'maybe' }))).toThrow(ConfigError);
    expect(() => smtpSettingsFromEnv(readSettings({ ...base, A2A_SMTP_PORT: 'smtp' }))).toThrow(
      'A2A_SMTP_PORT must be a port',
    );
    expect(() => smtpSettingsFromEnv(readSettings({ ...base, A2A_SMTP_USER: 'u' }))).toThrow('A2A_SMTP_PASSWORD');
  });
});

function hostAndFrom() {
  return { host: 'smtp.example.com', from: 'approvals@example.com' };
}

describe('the notice text', () => {
  const notice: ApproverNotice = {
    id: 't:3:alice:email:ask',
    kind: 'ask',
    channel: 'email',
    approver: 'alice',
    taskId: 't',
    agent: 'purchase',
    question: 'Approve <b>450 EUR</b> & more?',
    request: 'Buy "monitors"',
    askedAt: '2026-11-25T14:00:00.000Z',
    deadline: '2026-11-28T14:00:00.000Z',
  };

  it('puts agent and user text in HTML as text, never markup', () => {
    const html = noticeHtml(notice, 'https://x.example/inbox/task?agent=purchase&id=t');
    expect(html).toContain('Approve &lt;b&gt;450 EUR&lt;/b&gt; &amp; more?');
    expect(html).toContain('Buy &quot;monitors&quot;');
    expect(html).toContain('href="https://x.example/inbox/task?agent=purchase&amp;id=t"');
    expect(html).not.toContain('<b>');
  });

  it('says the question, the request, the deadline and the link in plain text', () => {
    const text = noticeText(notice, 'https://x.example/inbox/task?agent=purchase&id=t');
    expect(text).toContain('Question: Approve <b>450 EUR</b> & more?');
    expect(text).toContain('Deadline: 2026-11-28 14:00 UTC');
    expect(text).toContain('Answer it here: https://x.example/inbox/task?agent=purchase&id=t');
    expect(noticeSubject({ ...notice, kind: 'answered', answeredBy: 'bob' })).toBe(
      'Answered by bob: Approve <b>450 EUR</b> & more?',
    );
  });

  it('masks addresses', () => {
    expect(maskEmail('alice.martin@example.com')).toBe('a***@example.com');
    expect(maskUrl('https://hooks.example.com/T000/B000/secret')).toBe('webhook at hooks.example.com');
  });
});

describe("the config's approvals", () => {
  /** A project whose config says `approvals`; each in a folder of its own (imports are cached by path). */
  function project(approvals: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-approvals-config-'));
    const agent = "{ name: 'x', description: 'x', skills: [], run: async () => 'ok' }";
    writeFileSync(join(dir, 'agents.ts'), `export default [${agent}];\n`);
    writeFileSync(join(dir, 'directory.json'), '{}');
    writeFileSync(
      join(dir, 'a2a-temporal.config.ts'),
      `export default { agents: './agents.ts', approvals: ${approvals} };\n`,
    );
    return dir;
  }

  it('refuses an unknown channel and a reminder it cannot read', async () => {
    await expect(loadConfig(undefined, project(`{ notify: ['sms'] }`))).rejects.toThrow(
      'approvals.notify: unknown channel "sms"',
    );
    await expect(loadConfig(undefined, project(`{ remind: ['tomorrow'] }`))).rejects.toThrow(
      `approvals.remind: "tomorrow" must read like '1 day before'`,
    );
    await expect(loadConfig(undefined, project(`{ directory: './people.json' }`))).rejects.toThrow(
      'approvals.directory ./people.json does not exist',
    );
  });

  it('resolves the directory against the config file', async () => {
    const dir = project(`{ directory: './directory.json', notify: ['email'], remind: ['1 day before'] }`);
    expect((await loadConfig(undefined, dir)).approvals).toEqual({
      directory: join(dir, 'directory.json'),
      notify: ['email'],
      remind: ['1 day before'],
    });
  });
});

describe('the email answer links', () => {
  const secret = 'a'.repeat(32);

  it('are off without a secret, and refuse a short secret or a TTL they cannot read', () => {
    expect(answerLinkSettingsFromEnv(readSettings({}))).toBeUndefined();
    expect(answerLinkSettingsFromEnv(readSettings({ A2A_APPROVAL_LINK_SECRET: secret }))).toMatchObject({
      ttlMs: 7 * 86_400_000,
    });
    expect(() => answerLinkSettingsFromEnv(readSettings({ A2A_APPROVAL_LINK_SECRET: 'short' }))).toThrow(
      'at least 32 bytes',
    );
    expect(() =>
      answerLinkSettingsFromEnv(readSettings({ A2A_APPROVAL_LINK_SECRET: secret, A2A_APPROVAL_LINK_TTL: 'soon' })),
    ).toThrow('A2A_APPROVAL_LINK_TTL must be a duration');
  });

  it("expire at the question's deadline or after the TTL, and only questions and reminders carry them", () => {
    const settings = answerLinkSettingsFromEnv(
      readSettings({ A2A_APPROVAL_LINK_SECRET: secret, A2A_APPROVAL_LINK_TTL: '1 day' }),
    )!;
    const now = Date.parse('2026-11-25T14:00:00.000Z');
    const notice = {
      id: 't:3:alice:email:ask',
      kind: 'ask' as const,
      channel: 'email' as const,
      approver: 'alice',
      taskId: 't',
      agent: 'purchase',
      question: 'Approve?',
      askedAt: '2026-11-25T14:00:00.000Z',
    };
    const expiry = (deadline?: string) => {
      const links = answerLinks('https://x.example', settings, { ...notice, ...(deadline && { deadline }) }, now)!;
      const reading = readAnswerToken(settings.secret, new URL(links.deny).searchParams.get('token'), now);
      return 'claims' in reading ? new Date(reading.claims.expiresAt).toISOString() : reading.problem;
    };
    expect(expiry()).toBe('2026-11-26T14:00:00.000Z');
    expect(expiry('2026-11-25T18:00:00.000Z')).toBe('2026-11-25T18:00:00.000Z');
    expect(answerLinks('https://x.example', settings, { ...notice, kind: 'answered' }, now)).toBeUndefined();
  });

  it("are served by the gateway with the workers' directory: the project config's, else A2A_APPROVER_DIRECTORY", () => {
    const env = { A2A_APPROVAL_LINK_SECRET: secret };
    const named = { approvals: { directory: '/srv/project/people.json' } };
    const linksWith = (given: NodeJS.ProcessEnv, project: typeof named | object) =>
      gatewaySettings(readSettings(given), 'development', project).answerLinks?.directory;
    expect(linksWith(env, named)).toBe('/srv/project/people.json');
    expect(linksWith({ ...env, A2A_APPROVER_DIRECTORY: '/etc/people.json' }, {})).toBe('/etc/people.json');
    // The config wins, as on the worker.
    expect(linksWith({ ...env, A2A_APPROVER_DIRECTORY: '/etc/people.json' }, named)).toBe('/srv/project/people.json');
    expect(gatewaySettings(readSettings({}), 'development', named).answerLinks).toBeUndefined();
  });

  it("map Slack clicks with the workers' directory too, and refuse a signing secret without one", () => {
    const env = { A2A_SLACK_SIGNING_SECRET: 'slack-signing-secret' };
    const named = { approvals: { directory: '/srv/project/people.json' } };
    expect(gatewaySettings(readSettings(env), 'development', named).slackInteractions?.directory).toBe(
      '/srv/project/people.json',
    );
    expect(() => gatewaySettings(readSettings(env), 'development', {})).toThrow(
      'A2A_SLACK_SIGNING_SECRET is set (Slack buttons), but no approver directory is',
    );
  });
});
