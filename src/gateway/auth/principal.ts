/**
 * The caller as the gateway knows it after authentication, whatever the transport or method:
 * authorization and task ownership read this, never the raw headers.
 */

/** Who is calling, as authentication established it. */
export interface Principal {
  /** The account: an API key's principal, a JWT's `sub`, the proxy's user header. */
  id: string;
  /** Its groups, which `group:NAME` responders match. */
  groups: string[];
  /**
   * 'slack': a Slack button click, its signature checked and its user mapped by the approver directory;
   * 'email': an email's one-click answer link, its signed token naming the principal.
   */
  via: 'api-key' | 'jwt' | 'trusted-header' | 'slack' | 'email';
}
