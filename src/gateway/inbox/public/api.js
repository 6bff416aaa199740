/**
 * The inbox API, on this origin. The session is an HttpOnly cookie the browser sends by itself; the
 * CSRF token (bound to the session) rides in a header on every state-changing request. No
 * credential is ever kept by the page.
 */
let csrfToken = '';

export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `The gateway answered ${status}`);
    this.status = status;
    this.kind = error?.kind ?? 'failed';
    this.error = error ?? {};
  }
}

async function read(response) {
  const body = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, body?.error);
  return body;
}

export async function getJson(path) {
  return read(await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' }));
}

export async function postJson(path, body) {
  const headers = { 'content-type': 'application/json', 'x-csrf-token': csrfToken };
  return read(await fetch(path, { method: 'POST', headers, body: JSON.stringify(body), credentials: 'same-origin' }));
}

/** Who is signed in, how one signs in, and this session's CSRF token. */
export async function whoAmI() {
  const me = await getJson('api/me');
  csrfToken = me.csrfToken;
  return me;
}

export async function signIn(method, credential) {
  const me = await postJson('api/session', { method, credential });
  csrfToken = me.csrfToken;
  return me;
}

export async function signOut() {
  const me = await postJson('api/signout', {});
  csrfToken = me.csrfToken;
  return me;
}
