/**
 * The identity bar both pages share: who is signed in (and a sign-out button for a session this page
 * made), or the development-mode banner with its "your name" field, kept in this browser only.
 */
import { signOut } from './api.js';
import { byId, h } from './dom.js';

const NAME_KEY = 'a2a-inbox-responder';

/**
 * Fills the bar for `me`. `onSignOut` runs when the Sign out button is clicked, with the promise of
 * what the gateway says once the session is ended: from then on, the page's own requests are refused.
 */
export function showIdentity(me, onSignOut) {
  const who = byId('who');
  who.replaceChildren();
  const banner = byId('dev-banner');
  banner.hidden = me.mode !== 'development';
  if (me.mode === 'development') {
    const input = byId('dev-name');
    input.value = localStorage.getItem(NAME_KEY) ?? '';
    input.onchange = () => localStorage.setItem(NAME_KEY, input.value.trim());
    who.append(h('span', { class: 'mode', text: 'Development mode' }));
    return;
  }
  if (!me.principal) return;
  const groups = me.principal.groups.length > 0 ? ` (${me.principal.groups.join(', ')})` : '';
  who.append(h('span', { text: `Signed in as ${me.principal.id}${groups}` }));
  // Behind an authenticating proxy, signing out is the proxy's business.
  if (me.principal.via === 'trusted-header') return;
  const button = h('button', { type: 'button', class: 'link', text: 'Sign out' });
  button.addEventListener('click', () => {
    button.disabled = true;
    onSignOut(signOut());
  });
  who.append(button);
}

/** Development mode: the name to answer as. */
export function responderName() {
  const input = document.getElementById('dev-name');
  return input?.value.trim() || undefined;
}
