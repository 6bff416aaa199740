/**
 * Where remote A2A tasks push to this gateway (`callAgent(…, { pushNotification: true })`):
 * `POST <REMOTE_PUSH_PATH>/<calling task id>` with the call's token in X-A2A-Notification-Token.
 * The push only wakes the call, which reads the remote task itself (GetTask stays the truth), so its
 * body is not read. The token is checked by the calling task's update validator: a push with another
 * token, or one while the call is already woken, is refused before anything is written to its history.
 */
import { Router, type Request, type Response } from 'express';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { workflowIdForTask } from '../../protocol/contract.js';
import { REMOTE_PUSH_PENDING, REMOTE_PUSH_UNKNOWN, remotePushUpdate } from '../../protocol/delegation.js';
import { NOTIFICATION_TOKEN_HEADER } from '../../protocol/push.js';
import { restErrorBody } from './refusals.js';

/** A push waits no longer for the calling task's worker: a remote agent's push has its own timeout. */
const UPDATE_DEADLINE_MS = 10_000;

export function remotePushRouter(client: Client): Router {
  const router = Router();
  router.post('/:taskId', (req: Request, res: Response, next) => {
    const token = req.get(NOTIFICATION_TOKEN_HEADER);
    const refuse = () =>
      void res.status(401).json(restErrorBody(401, 'UNAUTHENTICATED', 'Not a push this gateway waits for'));
    if (!token) return refuse();
    const handle = client.workflow.getHandle(workflowIdForTask(String(req.params.taskId)));
    client
      .withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        handle.executeUpdate(remotePushUpdate, { args: [{ token }] }),
      )
      .then(
        () => void res.status(204).end(),
        (error: unknown) => {
          const type =
            error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type;
          // Already woken: the call reads the task anyway, this push is as good as taken.
          if (type === REMOTE_PUSH_PENDING) return void res.status(204).end();
          if (type === REMOTE_PUSH_UNKNOWN || error instanceof WorkflowNotFoundError) return refuse();
          next(error);
        },
      );
  });
  return router;
}
