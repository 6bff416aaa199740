/**
 * The A2A interop kit's instruction (a2aproject/a2a-itk, `protos/instruction.proto`, package `itk`) as
 * protobufjs's `toObject` gives it: camelCase fields, a field absent when unset, a oneof as the one member set.
 * The kit's proto is the schema; these types only say what the agent reads of it.
 */
export interface Instruction {
  callAgent?: CallAgent;
  returnResponse?: ReturnResponse;
  steps?: SeriesOfSteps;
}

export interface CallAgent {
  /** `jsonrpc`, `grpc` or `http_json` as the kit writes them (its agents also take `HTTP+JSON`, `REST`). */
  transport?: string;
  agentCardUri?: string;
  instruction?: Instruction;
  streaming?: boolean;
  // The behaviour: exactly one is set.
  sendMessage?: object;
  /** The remote task pushes its events to `<url>/notifications` (the kit's notification server). */
  pushNotification?: { url?: string };
  resubscribe?: object;
}

export interface ReturnResponse {
  response?: string;
  /** Keep the task working after answering, until the caller cancels it (the kit's resubscribe scenarios). */
  holdTask?: boolean;
}

export interface SeriesOfSteps {
  instructions?: Instruction[];
  /** `RESPONSE_GENERATOR_CONCAT` (or unset, the same): the steps' responses one after another. */
  responseGenerator?: string;
}
