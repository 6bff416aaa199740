/**
 * The agent the official A2A conformance suite (a2aproject/a2a-tck, 1.0 line) talks to. The suite
 * picks behaviour by messageId prefix; the longest matching prefix wins.
 */
import type { AgentContext, AgentResult } from 'a2a-temporal';
import { defineAgent } from 'a2a-temporal';

type Behaviour = (ctx: AgentContext) => AgentResult | Promise<AgentResult>;

const FILE = { filename: 'output.txt', mediaType: 'text/plain' };

/** Working status, one text artifact, then completion: the suite's streaming scenarios. */
function streamText(text: string): Behaviour {
  return (ctx) => {
    ctx.status('Streaming');
    ctx.artifact({ name: 'stream', text });
    return 'Stream complete';
  };
}

const BEHAVIOURS: Record<string, Behaviour> = {
  'tck-complete-task': () => 'Hello from TCK',
  'tck-artifact-text': (ctx) => (ctx.artifact({ name: 'text', text: 'Generated text content' }), 'Done'),
  'tck-artifact-file': (ctx) => (ctx.artifact({ name: 'file', parts: [{ raw: 'dGNr', ...FILE }] }), 'Done'),
  'tck-artifact-file-url': (ctx) => (
    ctx.artifact({ name: 'file', parts: [{ url: 'https://example.com/output.txt', ...FILE }] }),
    'Done'
  ),
  'tck-artifact-data': (ctx) => (ctx.artifact({ name: 'data', data: { key: 'value', count: 42 } }), 'Done'),
  'tck-message-response': () => ({ text: 'Direct message response', asMessage: true }),
  'tck-reject-task': (ctx) => ctx.reject('Rejected by TCK request'),
  'tck-stream-001': streamText('Stream hello from TCK'),
  'tck-stream-002': () => 'Stream complete',
  'tck-stream-003': streamText('Stream task lifecycle'),
  'tck-stream-ordering-001': streamText('Ordered output'),
  'tck-stream-artifact-text': streamText('Streamed text content'),
  'tck-stream-artifact-file': (ctx) => {
    ctx.status('Streaming');
    ctx.artifact({ name: 'file', parts: [{ raw: 'dGNr', ...FILE }] });
    return 'Stream complete';
  },
  'tck-stream-artifact-chunked': (ctx) => {
    ctx.status('Streaming');
    const artifactId = ctx.artifact({ name: 'chunked', text: 'chunk-1 ', append: true });
    ctx.artifact({ artifactId, text: 'chunk-2', append: true, lastChunk: true });
    return 'Stream complete';
  },
  'test-resubscribe-message-id': async (ctx) => {
    ctx.status('Working for a few seconds');
    await ctx.sleep('4 seconds', 'resubscribe window');
    return 'Resubscribe test complete';
  },
};

const PREFIXES = Object.keys(BEHAVIOURS).sort((a, b) => b.length - a.length);

function behaviourFor(messageId: string): Behaviour | undefined {
  const prefix = PREFIXES.find((candidate) => messageId.startsWith(candidate));
  return prefix ? BEHAVIOURS[prefix] : undefined;
}

export const conformance = defineAgent({
  name: 'conformance',
  description: 'Behaves as the A2A conformance suite (a2a-tck) expects, chosen by messageId prefix.',
  mayAnswerWithMessage: true,
  skills: [
    {
      id: 'tck',
      name: 'Conformance behaviours',
      description: 'Completes, asks for input, emits artifacts or answers with a message, by messageId prefix.',
      tags: ['conformance', 'testing'],
    },
  ],
  // So that the suite's extended-card tests run too (an extendedAgentCard: false card skips them).
  extendedSkills: [
    {
      id: 'tck-extended',
      name: 'Extended conformance behaviours',
      description: 'Listed only in the extended agent card.',
      tags: ['conformance', 'testing'],
    },
  ],
  async run(ctx) {
    let message = ctx.message;
    // Each tck-input-required message (first or follow-up) keeps the task waiting for input.
    while (message.messageId.startsWith('tck-input-required')) {
      message = await ctx.ask('Input required by TCK: send a follow-up message');
    }
    const behaviour = behaviourFor(message.messageId);
    return behaviour ? behaviour(ctx) : `Unhandled messageId prefix: ${message.messageId}`;
  },
});

/**
 * The conformance agent behind an extension every request must name: the suite's required-extension
 * tests (CORE-CAP-004) run against this one, since every other test sends no extension at all.
 * Run them with `scripts/tck.sh http://127.0.0.1:8080/agents/conformance-extension -- -k ExtensionRequired`.
 */
export const conformanceExtension = defineAgent({
  ...conformance,
  name: 'conformance-extension',
  description: 'The conformance agent, for clients that name the suite extension it requires.',
  extensions: [
    { uri: 'urn:a2a:tck:required-extension', description: 'Required by the conformance suite', required: true },
  ],
});
