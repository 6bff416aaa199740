/**
 * The inbox behind an authenticating proxy (the usual SSO setup): the proxy's headers name the
 * caller on every request, as on the A2A endpoints; there is nothing to sign in to. Without a browser:
 * the pages' API as they call it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import agents from '../../../../examples/agents/index.js';
import { createAuthenticator } from '../../../../src/gateway/auth/authenticator.js';
import { TRUSTED_PROXY_SECRET_HEADER } from '../../../../src/gateway/auth/settings.js';
import { CSRF_HEADER } from '../../../../src/gateway/inbox/guard.js';
import { askingAgent } from '../../../support/agents/test-agents.js';
import { useGatewayHarness } from '../../../support/gateway-harness.js';

const PROXY_SECRET = 'the-proxy-secret-of-at-least-32-bytes';
const harness = useGatewayHarness({
  gateway: {
    agents: [...agents, askingAgent],
    grpcPort: false,
    authenticator: createAuthenticator({
      methods: ['trusted-header'],
      apiKeys: [],
      trustedHeader: 'x-forwarded-user',
      trustedGroupsHeader: 'x-forwarded-groups',
      trustedProxySecret: PROXY_SECRET,
    }),
  },
});

/** What the proxy adds to every request it forwards for this person. */
const viaProxy = (user: string, groups: string) => ({
  'x-forwarded-user': user,
  'x-forwarded-groups': groups,
  [TRUSTED_PROXY_SECRET_HEADER]: PROXY_SECRET,
});

async function api(path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${harness.gateway.url}/inbox/api${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Record<string, unknown> & { csrfToken?: string };
  return { status: response.status, cookie: response.headers.get('set-cookie'), body: json };
}

describe('the inbox behind an authenticating proxy', () => {
  it("lists and answers as the proxy's user, with no sign-in; a forged identity is refused", async () => {
    const request = {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: `pay the invoice ${randomUUID()}` }, { data: { responders: ['group:finance'] } }],
        },
      },
    };
    const sent = await fetch(`${harness.gateway.url}/agents/test-ask`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...viaProxy('carol', 'finance') },
      body: JSON.stringify(request),
    });
    const taskId = ((await sent.json()) as { result: { task: { id: string } } }).result.task.id;

    const dave = viaProxy('dave', 'finance');
    const me = await api('/me', dave);
    expect(me.body).toMatchObject({ mode: 'signed-in', principal: { id: 'dave', groups: ['finance'] } });
    const listed = async (headers: Record<string, string>) =>
      ((await api('/questions', headers)).body as { questions: { taskId: string }[] }).questions.map((q) => q.taskId);
    await expect.poll(() => listed(dave), { timeout: 10_000 }).toContain(taskId);
    expect(await listed(viaProxy('bob', 'staff'))).not.toContain(taskId);
    // A client that reached the gateway without the proxy cannot name itself.
    const forged = await api('/questions', { 'x-forwarded-user': 'dave', 'x-forwarded-groups': 'finance' });
    expect(forged.status).toBe(401);

    // Answering still takes the page's CSRF token, bound to its session cookie, from this origin.
    const session = { cookie: me.cookie!.split(';')[0]!, origin: harness.gateway.url };
    const reply = `/tasks/test-ask/${taskId}/reply`;
    expect((await api(reply, { ...dave, ...session }, { text: 'approve' })).status).toBe(403);
    const answered = await api(reply, { ...dave, ...session, [CSRF_HEADER]: me.body.csrfToken! }, { text: 'approve' });
    expect(answered.status).toBe(200);
    const task = await api(`/tasks/test-ask/${taskId}`, dave);
    expect(JSON.stringify(task.body)).toContain('"by":"dave"');
  });
});
