/** How a channel says a notice cannot be sent however often it is tried (no address, a permanent refusal). */
import { ApplicationFailure } from '@temporalio/common';
import { NOTICE_REFUSED } from '../protocol/approvals.js';

export function refuseNotice(message: string): never {
  throw ApplicationFailure.nonRetryable(message, NOTICE_REFUSED);
}
