/**
 * Everything the gateway serves on HTTP+JSON and JSON-RPC is the proto3 JSON of an a2a.proto message,
 * read by a strict parser (test/support/interop/a2a-schema.ts: unknown fields refused), with API keys
 * on so that the card carries security schemes. Clients that parse by the proto (Python a2a-sdk 1.x)
 * refuse anything else, such as ts-proto's internal `{"$case", "value"}` form of a oneof.
 */
import { randomUUID } from 'node:crypto';
import { canonicalizeAgentCard, type AgentCard } from '@a2a-js/sdk';
import {
  base64url,
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  flattenedVerify,
  generateKeyPair,
  type JSONWebKeySet,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPENSE_REQUEST, startHarness, type Harness } from '../../support/gateway-harness.js';
import { sseEvents, stateOf } from '../../support/sse.js';
import { loadA2aSchema, type A2aSchema } from '../../support/interop/a2a-schema.js';
import { API_KEY, apiKeyAuthenticator, pythonA2a1Installed } from '../../support/interop/foreign-clients.js';

const installed = pythonA2a1Installed('the strict proto3 JSON checks (they read a2a.proto from a2a-sdk 1.x)');
const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': API_KEY };
const HOOK = { id: 'hook', url: 'https://example.com/hook', token: 'a-token' };

/** What the gateway served, by the a2a.proto message it must be (`detail`: a typed error detail). */
type Served = [label: string, type: string, json: unknown];

let harness: Harness;
let schema: A2aSchema;
beforeAll(async () => {
  if (!installed) return;
  schema = loadA2aSchema();
  // Signed cards, so that their signatures go through the strict parser too.
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const cardSigningKey = { ...(await exportJWK(privateKey)), kid: 'card-1', alg: 'ES256' };
  harness = await startHarness({ gateway: { authenticator: apiKeyAuthenticator(), cardSigningKey } });
});
afterAll(async () => {
  await harness?.close();
});

/**
 * Checks a card's one signature with jose: a JWS over the canonical card (RFC 8785, without
 * `signatures`) as detached payload, by a key of the JWKS its `jku` names. Answers the key's ID.
 */
async function verifiedByJku(card: any): Promise<string> {
  expect(card.signatures).toHaveLength(1);
  const [signature] = card.signatures;
  const { jku, kid, typ } = decodeProtectedHeader(signature);
  expect({ jku, typ }).toEqual({ jku: `${harness.gateway.url}/.well-known/jwks.json`, typ: 'JOSE' });
  const jwks = createLocalJWKSet((await (await fetch(jku!)).json()) as JSONWebKeySet);
  const payload = base64url.encode(canonicalizeAgentCard(card as AgentCard));
  await flattenedVerify({ ...signature, payload }, jwks);
  // Not over what the card does not say.
  const tampered = base64url.encode(canonicalizeAgentCard({ ...card, description: 'else' } as AgentCard));
  await expect(flattenedVerify({ ...signature, payload: tampered }, jwks)).rejects.toThrow();
  return kid!;
}

/** Each served document that the strict parser refuses, with its label and the parser's reason. */
function refused(served: Served[]): string[] {
  const problems: string[] = [];
  for (const [label, type, json] of served) {
    try {
      if (type === 'detail') schema.parseDetail(json);
      else schema.parse(type, json);
    } catch (error) {
      problems.push(`${label} (${type}): ${(error as Error).message}`);
    }
  }
  return problems;
}

const agentUrl = (agent = 'expense-approval') => `${harness.gateway.url}/agents/${agent}`;
const message = (text: string, task?: { id: string; contextId: string }) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...(task && { taskId: task.id, contextId: task.contextId }),
});

/** The first `count` events of a stream, then it is dropped (a waiting task's stream stays open). */
async function firstEvents(response: Response, count = Infinity): Promise<any[]> {
  const events = [];
  for await (const event of sseEvents(response)) {
    events.push(event);
    if (events.length >= count) break;
  }
  return events;
}

describe.skipIf(!installed)('proto3 JSON on the wire (needs .tools/a2a-sdk-1, see above)', () => {
  it('the cards, public and extended, with security schemes', async () => {
    const served: Served[] = [];
    for (const agent of ['expense-approval', 'test-extended']) {
      const card = await (await fetch(`${agentUrl(agent)}/.well-known/agent-card.json`)).json();
      served.push([`${agent} card`, 'AgentCard', card]);
    }
    const rpc = await jsonRpc('GetExtendedAgentCard', {}, agentUrl('test-extended'));
    served.push(['JSON-RPC extended card', 'AgentCard', rpc.result]);
    const rest = await fetch(`${agentUrl('test-extended')}/rest/extendedAgentCard`, { headers: HEADERS });
    served.push(['HTTP+JSON extended card', 'AgentCard', await rest.json()]);
    expect(refused(served)).toEqual([]);
    expect((served[0]![2] as any).securitySchemes.apiKey).toHaveProperty('apiKeySecurityScheme');
    for (const [label, , card] of served) await expect(verifiedByJku(card), label).resolves.toBe('card-1');
    // The signature covers the v1.0 form: the v0.3 card, another form, goes without it.
    const legacy = await (await fetch(`${agentUrl()}/v0.3/.well-known/agent-card.json`)).json();
    expect(legacy).not.toHaveProperty('signatures');
  });

  it('every answer of JSON-RPC through a task’s life', async () => {
    const served: Served[] = [];
    const call = async (method: string, params: unknown, type: string) => {
      const body = await jsonRpc(method, params);
      served.push([method, type, body.result]);
      return body.result;
    };
    const stream = async (method: string, params: unknown, count?: number) => {
      const response = await fetch(agentUrl(), {
        method: 'POST',
        headers: { ...HEADERS, accept: 'text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const events = await firstEvents(response, count);
      served.push(...events.map((event, i): Served => [`${method} event ${i}`, 'StreamResponse', event.result]));
      return events.map((event) => event.result);
    };
    const task = (await call('SendMessage', { message: message(EXPENSE_REQUEST) }, 'SendMessageResponse')).task;
    await call('GetTask', { id: task.id, historyLength: 10 }, 'Task');
    await call('ListTasks', { contextId: task.contextId, includeArtifacts: true }, 'ListTasksResponse');
    await stream('SubscribeToTask', { id: task.id }, 1);
    await call('CreateTaskPushNotificationConfig', { taskId: task.id, ...HOOK }, 'TaskPushNotificationConfig');
    await call('GetTaskPushNotificationConfig', { taskId: task.id, id: HOOK.id }, 'TaskPushNotificationConfig');
    await call('ListTaskPushNotificationConfigs', { taskId: task.id }, 'ListTaskPushNotificationConfigsResponse');
    await jsonRpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: HOOK.id });
    const events = await stream('SendStreamingMessage', { message: message('approve', task) });
    expect(stateOf(events.at(-1))).toBe('TASK_STATE_COMPLETED');
    const other = (await call('SendMessage', { message: message(EXPENSE_REQUEST) }, 'SendMessageResponse')).task;
    await call('CancelTask', { id: other.id }, 'Task');
    const missing = await jsonRpc('GetTask', { id: 'no-such-task' });
    served.push(...(missing.error.data as unknown[]).map((detail): Served => ['GetTask error', 'detail', detail]));
    expect(refused(served)).toEqual([]);
  });

  it('every answer of HTTP+JSON through a task’s life', async () => {
    const served: Served[] = [];
    const call = async (method: string, path: string, type: string, body?: unknown) => {
      const response = await fetch(`${agentUrl()}/rest${path}`, {
        method,
        headers: HEADERS,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const json: any = await response.json();
      served.push([`${method} ${path}`, type, json]);
      return json;
    };
    const stream = async (method: string, path: string, body: unknown, count?: number) => {
      const response = await fetch(`${agentUrl()}/rest${path}`, {
        method,
        headers: { ...HEADERS, accept: 'text/event-stream' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const events = await firstEvents(response, count);
      served.push(...events.map((event, i): Served => [`${method} ${path} event ${i}`, 'StreamResponse', event]));
      return events;
    };
    const task = (await call('POST', '/message:send', 'SendMessageResponse', { message: message(EXPENSE_REQUEST) }))
      .task;
    const hooks = `/tasks/${task.id}/pushNotificationConfigs`;
    await call('GET', `/tasks/${task.id}?historyLength=10`, 'Task');
    await call('GET', `/tasks?contextId=${task.contextId}&includeArtifacts=true`, 'ListTasksResponse');
    await stream('GET', `/tasks/${task.id}:subscribe`, undefined, 1);
    await call('POST', hooks, 'TaskPushNotificationConfig', HOOK);
    await call('GET', `${hooks}/${HOOK.id}`, 'TaskPushNotificationConfig');
    await call('GET', hooks, 'ListTaskPushNotificationConfigsResponse');
    expect(await call('DELETE', `${hooks}/${HOOK.id}`, 'google.protobuf.Empty')).toEqual({});
    served.pop(); // google.protobuf.Empty is no a2a.proto message: `{}` was checked just now.
    const events = await stream('POST', '/message:stream', { message: message('approve', task) });
    expect(stateOf(events.at(-1))).toBe('TASK_STATE_COMPLETED');
    const other = (await call('POST', '/message:send', 'SendMessageResponse', { message: message(EXPENSE_REQUEST) }))
      .task;
    await call('POST', `/tasks/${other.id}:cancel`, 'Task');
    const missing: any = await (await fetch(`${agentUrl()}/rest/tasks/no-such-task`, { headers: HEADERS })).json();
    served.push(...(missing.error.details as unknown[]).map((detail): Served => ['GetTask error', 'detail', detail]));
    expect(refused(served)).toEqual([]);
  });
});

async function jsonRpc(method: string, params: unknown, url = agentUrl()): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return response.json();
}
