/**
 * The ITK node's only I/O: reading the kit's instruction proto and (de)serialising instructions with it.
 * The proto comes from the kit checkout the node runs in (`ITK_INSTRUCTION_PROTO`, which scripts/itk.sh
 * sets to `<kit>/protos/instruction.proto`), so the node speaks whatever revision of the kit runs it.
 */
import protobuf from 'protobufjs';
import type { Instruction } from './instruction.js';

let instructionType: protobuf.Type | undefined;

function instructionMessage(): protobuf.Type {
  if (!instructionType) {
    const path = process.env.ITK_INSTRUCTION_PROTO;
    if (!path) throw new Error("Set ITK_INSTRUCTION_PROTO to the kit checkout's protos/instruction.proto");
    instructionType = protobuf.loadSync(path).lookupType('itk.Instruction');
  }
  return instructionType;
}

/** The instruction in these bytes (base64), or null when they are not one: a bad request, not worth a retry. */
export async function decodeItkInstruction(base64: string): Promise<Instruction | null> {
  const type = instructionMessage();
  try {
    return type.toObject(type.decode(Buffer.from(base64, 'base64')), { enums: String }) as Instruction;
  } catch {
    return null;
  }
}

/** The instruction's bytes (base64), to send to the next agent. */
export async function encodeItkInstruction(instruction: Instruction): Promise<string> {
  const type = instructionMessage();
  return Buffer.from(type.encode(type.fromObject(instruction)).finish()).toString('base64');
}
