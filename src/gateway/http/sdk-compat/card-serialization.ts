/**
 * The v1.0 card in proto3 JSON. The SDK's `agentCardHandler` writes the card it is given with
 * `JSON.stringify`, which shows ts-proto's internal form of a oneof (`"apiKey": {"scheme": {"$case":
 * "apiKeySecurityScheme", "value": …}}`) instead of proto3 JSON (`"apiKey": {"apiKeySecurityScheme":
 * …}}`); clients that parse the card by the proto (Python a2a-sdk 1.x) cannot read it. So the handler
 * is given the card already turned into proto3 JSON by the generated `AgentCard.toJSON`, which
 * `JSON.stringify` leaves as it is.
 *
 * Written against @a2a-js/sdk 1.3.0 (`agentCardHandler`; the extended card on JSON-RPC and HTTP+JSON
 * already goes through `AgentCard.toJSON`). Goes away when `agentCardHandler` serializes with
 * `AgentCard.toJSON` itself.
 */
import { AgentCard } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';

export function proto3JsonCard(handler: A2ARequestHandler): () => Promise<AgentCard> {
  // Typed as the card the handler expects: it only stringifies what it is given.
  return async () => AgentCard.toJSON(await handler.getAgentCard()) as AgentCard;
}
