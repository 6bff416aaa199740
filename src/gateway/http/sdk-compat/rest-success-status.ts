/**
 * Success statuses on HTTP+JSON. A2A 1.0 maps each method to HTTP by the `google.api.http`
 * annotation in a2a.proto, and that mapping (HTTP transcoding) answers every success 200 with the
 * response message as the body: the config for CreateTaskPushNotificationConfig, `{}`
 * (google.protobuf.Empty) for DeleteTaskPushNotificationConfig; the specification's text names no
 * other status. The SDK's adapter answers 201 and an empty 204 instead: a2a-go 2.3 reports any status
 * but 200 as an error, and Python a2a-sdk 1.3 parses every success body as JSON, so both failed on
 * calls that had succeeded. JS SDK clients accept any 2xx, and the conformance suite any status
 * below 400.
 *
 * Written against @a2a-js/sdk 1.3.0 (`restHandler` answers those two methods, and nothing else, 201
 * and 204). Goes away when the adapter answers 200 with the response message.
 */
import type { NextFunction, Request, Response } from 'express';

const CREATED = 201;
const NO_CONTENT = 204;
const EMPTY_MESSAGE = '{}';

export function restSuccessStatus(_req: Request, res: Response, next: NextFunction): void {
  const status = res.status.bind(res);
  res.status = (code: number) => {
    if (code === CREATED) return status(200);
    if (code !== NO_CONTENT) return status(code);
    // The adapter ends a 204 with a bare `res.end()`: that end writes the Empty message instead.
    const end = res.end.bind(res) as (body: string) => Response;
    res.end = (() => end(EMPTY_MESSAGE)) as Response['end'];
    return status(200);
  };
  next();
}
