/** Push notifications: where webhooks may go, and their signatures (see [Push notifications](push-notifications.md)). */
import { commaList, group, privateJwk, setting } from '../setting.js';

export const PUSH_SETTINGS = group('push', {
  A2A_PUSH_ALLOWED_HOSTS: setting({
    parse: commaList,
    default: [],
    defaultText: 'none: webhook hosts that resolve inward are refused',
    description: 'Comma-separated webhook hosts allowed although they resolve to private addresses.',
  }),
  A2A_PUSH_SIGNING_KEY: setting({
    parse: privateJwk,
    secret: true,
    defaultText: 'none: notifications unsigned',
    description: 'A private JWK (with `kid` and `alg`) notifications are signed with; workers and gateways alike.',
  }),
  A2A_RECEIPT_SIGNING_KEY: setting({
    parse: privateJwk,
    secret: true,
    defaultText: 'none: no decision receipts',
    description:
      'A private JWK (with `kid` and `alg`) decision receipts are signed with; set it on gateways and workers alike: gateways publish its public half and start tasks that ask for receipts, workers sign.',
  }),
});
