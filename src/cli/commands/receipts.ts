/**
 * `receipts verify FILE`: checks a decision receipt (src/receipts) against the signer's public keys,
 * from a file (offline) or a URL (by default the gateway's), and prints what it says.
 */
import { readFile } from 'node:fs/promises';
import type { JWK } from 'jose';
import { withoutTrailingSlashes } from '../../protocol/base-url.js';
import { RECEIPTS_JWKS_PATH, ReceiptRefused, verifyReceipt } from '../../receipts/receipts.js';
import type { Command } from '../command.js';
import { CliError, ExitCode, toCliError } from '../errors.js';
import type { Io } from '../io.js';

type VerifyCommand = Extract<Command, { kind: 'receipts verify' }>;

export async function runReceiptsVerify(command: VerifyCommand, io: Io): Promise<ExitCode> {
  const jws = await readText(command.file, 'the receipt');
  const jwks = await loadJwks(command.jwks ?? `${withoutTrailingSlashes(command.gateway.url)}${RECEIPTS_JWKS_PATH}`);
  try {
    const receipt = await verifyReceipt(jws, jwks);
    io.out(JSON.stringify(receipt, null, 2));
    io.err(
      `Receipt verified: ${receipt.approver} answered "${receipt.decision}" on task ${receipt.task} at ${receipt.at}.`,
    );
    return ExitCode.Ok;
  } catch (error) {
    if (error instanceof ReceiptRefused) throw new CliError(`Receipt refused: ${error.message}`, ExitCode.Refused);
    throw error;
  }
}

async function loadJwks(source: string): Promise<{ keys: JWK[] }> {
  const text =
    URL.canParse(source) && /^https?:/.test(source) ? await fetchText(source) : await readText(source, 'the JWKS');
  try {
    const jwks = JSON.parse(text) as { keys?: unknown };
    if (Array.isArray(jwks.keys)) return jwks as { keys: JWK[] };
  } catch {
    // Said below.
  }
  throw new CliError(`${source} is not a JWKS (a JSON object with "keys")`, ExitCode.Usage);
}

async function fetchText(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: 'application/json' } });
  } catch (error) {
    throw toCliError(error, { gatewayUrl: new URL(url).origin });
  }
  if (response.status === 404) {
    throw new CliError(`${url} is 404: the gateway signs no receipts (A2A_RECEIPT_SIGNING_KEY unset)`, ExitCode.Remote);
  }
  if (!response.ok) throw new CliError(`${url} answered HTTP ${response.status}`, ExitCode.Remote);
  return response.text();
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${what} from ${file}: ${(error as Error).message}`, ExitCode.Usage);
  }
}
