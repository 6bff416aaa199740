/**
 * A signed receipt for each answer that decides a question (release 10, task-patches.ts): the
 * worker's activity signs the decision's facts with its key (which never enters history, only the
 * JWS does), and the task carries the receipt as an artifact before the agent acts on the answer.
 * A worker without a key answers null, and the task carries none. From release 15 only a task whose
 * starter has the key asks for receipts (ReceiptRequest): the others' answers schedule no activity,
 * which the blocking reply would wait for.
 */
import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import {
  RECEIPT_ARTIFACT_NAME,
  RECEIPT_MEDIA_TYPE,
  SIGN_RECEIPT_ACTIVITY,
  type DecisionFacts,
} from '../protocol/receipts.js';
import type { ReplyWait } from './reply-wait.js';
import { signsReceipts, signsReceiptsWhenKeyed } from './task-patches.js';
import type { TaskRuntime } from './task-runtime.js';

type SignActivity = (facts: DecisionFacts) => Promise<{ jws: string } | null>;

/** Signing is quick and local to the worker: retried until a worker signs it (a bug, not an outage, would fail it). */
const sign = proxyActivities<Record<string, SignActivity>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  summary: 'sign decision receipt',
})[SIGN_RECEIPT_ACTIVITY]!;

/** Signs the decision `wait` came to and attaches the receipt to the task. */
export async function signDecision(runtime: TaskRuntime, wait: ReplyWait): Promise<void> {
  const { reply, answered, question } = wait;
  const { record } = runtime;
  const asked = signsReceiptsWhenKeyed() ? record.receiptsAsked : signsReceipts();
  if (!asked || !reply || !answered) return;
  const facts: DecisionFacts = {
    task: record.id,
    agent: record.agent,
    question: {
      prompt: question.prompt,
      askedAt: question.askedAt,
      ...(question.schema && { schema: question.schema }),
      ...(question.details && { details: question.details }),
    },
    decision: reply.text,
    ...(reply.data !== undefined && { data: reply.data }),
    approver: answered.by,
    ...(reply.actingFor && { actingFor: reply.actingFor }),
    channel: answered.channel,
    at: answered.at,
    ...(reply.votes && { votes: reply.votes }),
  };
  // Not cancellable: the decision was taken, so its receipt is made even if the task is canceled meanwhile.
  const receipt = await CancellationScope.nonCancellable(() => sign(facts));
  if (!receipt) return;
  record.addArtifact(
    {
      artifactId: `${RECEIPT_ARTIFACT_NAME}-${question.askedAt}`,
      name: RECEIPT_ARTIFACT_NAME,
      description: `Signed receipt of ${facts.approver}'s answer (check it: a2a-temporal receipts verify FILE)`,
      parts: [{ text: receipt.jws, mediaType: RECEIPT_MEDIA_TYPE }],
    },
    false,
    true,
  );
}
