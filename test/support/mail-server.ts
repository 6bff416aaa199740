/**
 * A real SMTP server for tests (the smtp-server package), on loopback, with authentication: it
 * parses every message it accepts (mailparser). While `refusing` is above zero, it answers each
 * message with 451 (try again later) and counts down, as a mail server that is down for a while.
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

const SMTP_USER = 'notifier';
const SMTP_PASSWORD = 'smtp-secret';

/** The A2A_SMTP_* settings of a worker that sends through the mail server on `port`. */
export function smtpEnv(port: number): Record<string, string> {
  return {
    A2A_SMTP_HOST: '127.0.0.1',
    A2A_SMTP_PORT: String(port),
    A2A_SMTP_TLS: 'none',
    A2A_SMTP_USER: SMTP_USER,
    A2A_SMTP_PASSWORD: SMTP_PASSWORD,
    A2A_SMTP_FROM: 'approvals@example.com',
  };
}

export interface ReceivedMail {
  to: string[];
  mail: ParsedMail;
}

export class MailServer {
  readonly received: ReceivedMail[] = [];
  refusing = 0;
  refused = 0;
  /**
   * Runs once a message is received and kept, before the server acknowledges it (250): a test may
   * kill the sender there, so that the message is delivered and its sender never learns it.
   */
  beforeAck?: (received: ReceivedMail) => Promise<void>;
  private readonly server = new SMTPServer({
    authOptional: false,
    // Loopback only, in a test: the channel's TLS modes are its own settings (A2A_SMTP_TLS=none here).
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _session, callback) => {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: SMTP_USER });
      else callback(new Error('Invalid username or password'));
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (this.refusing > 0) {
          this.refusing -= 1;
          this.refused += 1;
          return callback(Object.assign(new Error('Mail system busy, try again later'), { responseCode: 451 }));
        }
        simpleParser(Buffer.concat(chunks))
          .then(async (mail) => {
            const received = { to: session.envelope.rcptTo.map((rcpt) => rcpt.address), mail };
            this.received.push(received);
            await this.beforeAck?.(received);
          })
          .then(
            () => callback(),
            (error: Error) => callback(error),
          );
      });
    },
  });

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.server.address() as AddressInfo).port;
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((received) => received.to.includes(address));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `check` until it returns something other than undefined or false. */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
