/** The ITK node's activities: instructions from and to their protobuf bytes (Node's Buffer, protobufjs). */
import protobuf from 'protobufjs';
import { INSTRUCTION_SCHEMA, type Instruction } from './instruction.js';

const instructionMessage = protobuf.Root.fromJSON(INSTRUCTION_SCHEMA).lookupType('itk.Instruction');

/** The instruction in these bytes (base64), or null when they are not one: a bad request, not worth a retry. */
export async function decodeItkInstruction(base64: string): Promise<Instruction | null> {
  try {
    const message = instructionMessage.decode(Buffer.from(base64, 'base64'));
    const instruction = instructionMessage.toObject(message, { enums: String }) as Instruction;
    // Bytes that are no instruction may still decode, to one with no step.
    return instruction.callAgent || instruction.returnResponse || instruction.steps ? instruction : null;
  } catch {
    return null;
  }
}

/** The instruction's bytes (base64), to send to the next agent. */
export async function encodeItkInstruction(instruction: Instruction): Promise<string> {
  const message = instructionMessage.fromObject(instruction);
  return Buffer.from(instructionMessage.encode(message).finish()).toString('base64');
}
