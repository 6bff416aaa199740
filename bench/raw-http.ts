/**
 * The raw floor behind HTTP: the recorded workflows (raw-workflows.ts) behind a plain express JSON
 * endpoint in this process, called with the same fetch client as the gateway. It is what any HTTP
 * service on Temporal pays for the hop and for the records the project writes, with no A2A and no
 * project code: the gap between it and the project is the A2A layer and the task workflow alone.
 */
import express, { type RequestHandler } from 'express';
import type { AddressInfo } from 'node:net';
import { postJson } from './http.js';
import { recordedMessage, type RawFloor } from './raw.js';

export class RawHttpFront {
  private constructor(
    private readonly url: string,
    private readonly server: ReturnType<express.Express['listen']>,
  ) {}

  static async start(raw: RawFloor): Promise<RawHttpFront> {
    const app = express();
    app.use(express.json());
    app.post(
      '/echo',
      answer((body) => raw.echoRecorded(body.text)),
    );
    app.post(
      '/waiting',
      answer(() => raw.waitingRecorded()),
    );
    app.post(
      '/resume',
      answer((body) => raw.resumeRecorded(body.workflowId, body.text)),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const { port } = server.address() as AddressInfo;
    return new RawHttpFront(`http://127.0.0.1:${port}`, server);
  }

  /** A new recorded echo workflow, answered and completed: one update-with-start behind the hop. */
  async echo(): Promise<void> {
    await this.call('/echo', { text: recordedMessage('echo') });
  }

  /** A recorded workflow waiting for its reply; resolves with its ID. */
  async waiting(): Promise<string> {
    return (await this.call('/waiting', {})) as string;
  }

  /** The reply that resolves the wait; returns once the workflow has settled. */
  async resume(workflowId: string): Promise<void> {
    await this.call('/resume', { workflowId, text: recordedMessage('hitl') });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async call(path: string, body: unknown): Promise<unknown> {
    const { status, body: answer } = await postJson(`${this.url}${path}`, body);
    if (status !== 200) throw new Error(`raw HTTP ${path} failed (HTTP ${status}): ${JSON.stringify(answer)}`);
    return answer.result;
  }
}

/** Runs `operation` on the request's JSON body and answers `{ result }`, or 500 with the error. */
function answer(operation: (body: any) => Promise<unknown>): RequestHandler {
  return (request, response) => {
    operation(request.body).then(
      (result) => response.json({ result }),
      (error: unknown) => response.status(500).json({ error: String(error) }),
    );
  };
}
