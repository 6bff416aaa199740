/**
 * The Temporal UI renders a workflow's summary and details, and its timers' and activities'
 * summaries, as Markdown (HTML included): what a person or an agent wrote must reach it as text.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { uiText } from '../../../src/protocol/ui-text.js';
import { reply, useTaskWorker, waitForState } from '../../support/tasks.js';

const tasks = useTaskWorker();

const HOSTILE = '<img src=x onerror=alert(1)><b>Confirm</b> **now** [here](https://evil.example)';

describe('agent and user text in the Temporal UI', () => {
  it('escapes the request and the question in the static summary, the current details and the timer summary', async () => {
    const { handle } = await tasks.start('test-ask', {
      text: `Buy ${HOSTILE}`,
      data: { question: `Confirm? ${HOSTILE}`, deadline: '1 hour' },
    });
    await waitForState(handle, 'input-required');

    const description = await handle.describe();
    expect(await description.staticSummary()).toBe(uiText(`test-ask: Buy ${HOSTILE}`));
    expect(await description.staticSummary()).toContain('\\<img src=x onerror=alert(1)\\>\\<b\\>Confirm\\</b\\>');

    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toMatch(/^\*\*input-required\*\*: Confirm\? /);
    expect(currentDetails).toContain(uiText(HOSTILE));
    expect(currentDetails).not.toMatch(/(?<!\\)</);

    const history = await handle.fetchHistory();
    const summaries = (history.events ?? [])
      .map((event) => event.userMetadata?.summary)
      .filter((summary) => summary !== undefined && summary !== null)
      .map((summary) => defaultPayloadConverter.fromPayload<string>(summary));
    const deadline = summaries.find((summary) => summary.startsWith('deadline: '));
    expect(deadline).toBe(`deadline: ${uiText(`Confirm? ${HOSTILE}`.slice(0, 60))}`);
    for (const summary of summaries) expect(summary).not.toMatch(/(?<!\\)</);

    await reply(handle, { text: 'approve' });
    await waitForState(handle, 'completed');
  });
});
