/**
 * The A2A interop kit's instruction (a2aproject/a2a-itk, `protos/instruction.proto`, package `itk`): its
 * messages as protobufjs reflects them (field numbers are the wire format), and as `toObject` gives them:
 * camelCase fields, a field absent when unset, a oneof as the one member set. Pure: the agents use the types.
 */
export const INSTRUCTION_SCHEMA = {
  nested: {
    itk: {
      nested: {
        Instruction: {
          oneofs: { step: { oneof: ['callAgent', 'returnResponse', 'steps'] } },
          fields: {
            callAgent: { type: 'CallAgent', id: 1 },
            returnResponse: { type: 'ReturnResponse', id: 2 },
            steps: { type: 'SeriesOfSteps', id: 3 },
          },
        },
        SendMessageBehavior: { fields: {} },
        PushNotificationBehavior: { fields: { url: { type: 'string', id: 1 } } },
        ResubscribeBehavior: { fields: {} },
        CallAgent: {
          oneofs: { behavior: { oneof: ['sendMessage', 'pushNotification', 'resubscribe'] } },
          fields: {
            transport: { type: 'string', id: 1 },
            agentCardUri: { type: 'string', id: 2 },
            instruction: { type: 'Instruction', id: 3 },
            streaming: { type: 'bool', id: 4 },
            sendMessage: { type: 'SendMessageBehavior', id: 5 },
            pushNotification: { type: 'PushNotificationBehavior', id: 6 },
            resubscribe: { type: 'ResubscribeBehavior', id: 7 },
          },
        },
        ReturnResponse: { fields: { response: { type: 'string', id: 1 }, holdTask: { type: 'bool', id: 2 } } },
        SeriesOfSteps: {
          fields: {
            instructions: { rule: 'repeated', type: 'Instruction', id: 1 },
            responseGenerator: { type: 'ResponseGenerator', id: 2 },
          },
          nested: {
            ResponseGenerator: { values: { RESPONSE_GENERATOR_UNSPECIFIED: 0, RESPONSE_GENERATOR_CONCAT: 1 } },
          },
        },
      },
    },
  },
};

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
  // The behaviour: at most one is set.
  sendMessage?: object;
  /** The remote task pushes its events to `<url>/notifications` (the kit's notification server). */
  pushNotification?: { url?: string };
  resubscribe?: object;
}

interface ReturnResponse {
  response?: string;
  /** Keep the task working after answering, until the caller cancels it (the kit's resubscribe scenarios). */
  holdTask?: boolean;
}

interface SeriesOfSteps {
  instructions?: Instruction[];
  /** `RESPONSE_GENERATOR_CONCAT` (or unset, the same): the steps' responses one after another. */
  responseGenerator?: string;
}
