/**
 * Memo fields decoded as the Temporal client decodes them: through its data converter's payload
 * codecs, then its payload converter. Built on public exports of @temporalio/common only, so an SDK
 * upgrade cannot move it (the SDK's own helper lives in its internals).
 */
import type { LoadedDataConverter, Payload, SerializationContext } from '@temporalio/common';

export async function decodeMemo(
  converter: LoadedDataConverter,
  fields: Record<string, Payload>,
  context?: SerializationContext,
): Promise<Record<string, unknown>> {
  const entries = Object.entries(fields);
  let payloads = entries.map(([, payload]) => payload);
  // Codecs encode first to last, so they decode last to first.
  for (const codec of [...converter.payloadCodecs].reverse()) payloads = await codec.decode(payloads, context);
  return Object.fromEntries(
    entries.map(([name], index) => [name, converter.payloadConverter.fromPayload(payloads[index]!, context)]),
  );
}
