/**
 * The caller as the gateway knows it after authentication, whatever the transport or method:
 * authorization and task ownership read this, never the raw headers.
 */

/** Who is calling, as authentication established it. */
export interface Principal {
  id: string;
  groups: string[];
  via: 'api-key' | 'jwt' | 'trusted-header';
}
