/**
 * Signed decision receipts and the audit export, end to end: a real gateway, worker and Temporal
 * dev server; the answer given with the CLI (`tasks reply`), the receipt checked with `receipts
 * verify` against the JWKS the gateway serves, the export written and checked with `audit export`
 * and `audit verify`; then each refused once one byte or one line is changed. Without a key, an
 * answer schedules no signing activity (release 15): the task's history says so.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { Task, TaskState } from '@a2a-js/sdk';
import { run } from '../../../src/cli/run.js';
import { readSettings } from '../../../src/config/settings.js';
import type { Io } from '../../../src/cli/io.js';
import { RECEIPTS_JWKS_PATH } from '../../../src/receipts/receipts.js';
import { SIGN_RECEIPT_ACTIVITY } from '../../../src/protocol/receipts.js';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { EXPENSE_REQUEST, useGatewayHarness, userMessage } from '../../support/gateway-harness.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const temp = useTempDirs();
let dir: string;
const startedAt = new Date();

function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, now: () => new Date() };
  return run(args, io).then((code) => ({ code, out: out.join('\n'), err: err.join('\n') }));
}

/** One byte of the text changed: a character of its middle swapped for another. */
function oneByteChanged(text: string): string {
  const at = Math.floor(text.length / 2);
  return `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
}

/** The task's receipts: the compact JWS of each decision-receipt artifact. */
function receiptsOf(task: Task): string[] {
  const json = Task.toJSON(task) as { artifacts?: { name?: string; parts: { text?: string }[] }[] };
  return (json.artifacts ?? []).filter((a) => a.name === 'decision-receipt').map((a) => a.parts[0]!.text!);
}

/** How many times the task's history scheduled the signing activity. */
async function signingsOf(harness: ReturnType<typeof useGatewayHarness>, taskId: string): Promise<number> {
  const { events } = await harness.temporal.workflow.getHandle(workflowIdForTask(taskId)).fetchHistory();
  return (events ?? []).filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === SIGN_RECEIPT_ACTIVITY,
  ).length;
}

beforeAll(() => {
  dir = temp.make('a2a-receipts-');
});

describe('with A2A_RECEIPT_SIGNING_KEY', () => {
  let key: JWK;
  beforeAll(async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    key = { ...(await exportJWK(privateKey)), kid: 'receipts-1', alg: 'ES256' };
  });
  // The worker's signing activity and the gateway's JWKS route take the key as they start.
  const harness = useGatewayHarness(() => ({
    settings: readSettings({ A2A_RECEIPT_SIGNING_KEY: JSON.stringify(key) }),
    gateway: { receiptSigningKey: key },
  }));
  let taskId: string;
  let receiptFile: string;

  it('signs the answer given with the CLI into a receipt that verifies, refused once one byte changes', async () => {
    const client = await harness.a2a('JSONRPC');
    const asked = (await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never)) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    taskId = asked.id;
    const gateway = ['--url', harness.gateway.url, '--agent', 'expense-approval'];
    expect((await cli(['tasks', 'reply', taskId, 'approve', '--as', 'alice', ...gateway])).code).toBe(0);

    const [jws, more] = receiptsOf(await client.getTask({ id: taskId } as never));
    expect(jws).toBeDefined();
    expect(more).toBeUndefined();
    expect(await signingsOf(harness, taskId)).toBe(1);
    receiptFile = join(dir, 'receipt.jws');
    writeFileSync(receiptFile, jws!);

    // The public keys the gateway serves, without the private part; offline from a file.
    const served = await fetch(`${harness.gateway.url}${RECEIPTS_JWKS_PATH}`);
    expect(served.status).toBe(200);
    const jwks = (await served.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kid: 'receipts-1', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const jwksFile = join(dir, 'jwks.json');
    writeFileSync(jwksFile, JSON.stringify(jwks));

    const verified = await cli(['receipts', 'verify', receiptFile, '--jwks', jwksFile]);
    expect(verified.code).toBe(0);
    const receipt = JSON.parse(verified.out) as Record<string, unknown>;
    expect(receipt).toMatchObject({
      v: 1,
      task: taskId,
      agent: 'expense-approval',
      decision: 'approve',
      data: null,
      approver: 'alice',
      actingFor: null,
      channel: 'cli',
    });
    expect(receipt['question']).toMatch(/^[0-9a-f]{64}$/);
    expect(receipt['request']).toMatch(/^[0-9a-f]{64}$/);
    // The JWKS from the gateway itself, by default.
    expect((await cli(['receipts', 'verify', receiptFile, '--url', harness.gateway.url])).code).toBe(0);

    const altered = join(dir, 'altered.jws');
    writeFileSync(altered, oneByteChanged(jws!));
    const refused = await cli(['receipts', 'verify', altered, '--jwks', jwksFile]);
    expect(refused.code).toBe(6);
    expect(refused.err).toMatch(/Receipt refused: /);
  });

  it('exports the questions, answers and decisions with receipts, chained: verified, refused once a line is removed', async () => {
    const exported = join(dir, 'audit.jsonl');
    const window = ['--since', startedAt.toISOString(), '--address', inject('temporalAddress')];
    const exportRun = await cli(['audit', 'export', ...window, '--agent', 'expense-approval', '--out', exported]);
    expect(exportRun.code).toBe(0);
    const lines = readFileSync(exported, 'utf8').trimEnd().split('\n');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const ours = records.filter((record) => record['task'] === taskId);
    expect(ours.map((record) => record['kind'])).toEqual(['request', 'question', 'answer', 'decision']);
    expect(ours[0]).toMatchObject({ channel: 'a2a', prev: null });
    expect(ours[2]).toMatchObject({ by: 'alice', channel: 'cli', text: 'approve' });
    expect(ours[3]).toMatchObject({ by: 'alice', channel: 'cli', decision: 'approve', actingFor: null });
    expect(ours[3]!['receipt']).toBe(readFileSync(receiptFile, 'utf8'));
    expect(records.at(-1)).toMatchObject({ kind: 'end', lines: lines.length - 1 });

    expect((await cli(['audit', 'verify', exported])).code).toBe(0);

    const cut = join(dir, 'cut.jsonl');
    const answerLine = lines.findIndex((line) => line.includes(`"task":"${taskId}"`) && line.includes('"answer"'));
    writeFileSync(cut, `${lines.filter((_, index) => index !== answerLine).join('\n')}\n`);
    const refused = await cli(['audit', 'verify', cut]);
    expect(refused.code).toBe(6);
    expect(refused.err).toMatch(/Audit export refused: line \d+: the chain is broken/);

    const edited = join(dir, 'edited.jsonl');
    writeFileSync(
      edited,
      `${lines.map((line, index) => (index === answerLine ? line.replace('alice', 'mallory') : line)).join('\n')}\n`,
    );
    expect((await cli(['audit', 'verify', edited])).code).toBe(6);
  });
});

describe('without a signing key', () => {
  const harness = useGatewayHarness();

  it('answers as before, with no receipt, no signing activity and no JWKS', async () => {
    const client = await harness.a2a('JSONRPC');
    const asked = (await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never)) as Task;
    const done = (await client.sendMessage({ message: userMessage('approve', { taskId: asked.id }) } as never)) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(receiptsOf(await client.getTask({ id: asked.id } as never))).toEqual([]);
    // The blocking reply did not wait for an activity that had nothing to sign with.
    expect(await signingsOf(harness, asked.id)).toBe(0);
    expect((await fetch(`${harness.gateway.url}${RECEIPTS_JWKS_PATH}`)).status).toBe(404);
    // Nothing to check a receipt against: said, exit 3 (the gateway's answer).
    const anyReceipt = join(dir, 'any.jws');
    writeFileSync(anyReceipt, 'a.b.c');
    const missing = await cli(['receipts', 'verify', anyReceipt, '--url', harness.gateway.url]);
    expect(missing.code).toBe(3);
    expect(missing.err).toMatch(/signs no receipts/);
  });
});
