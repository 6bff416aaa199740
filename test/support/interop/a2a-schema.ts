/**
 * A strict proto3 JSON parser for the A2A 1.0 messages: @bufbuild/protobuf's `fromJson`, which
 * refuses unknown fields, over the schema the Python a2a-sdk 1.x generated from a2a.proto (its
 * descriptors, with google.rpc.ErrorInfo's, written out by a2a_descriptors.py).
 */
import { createFileRegistry, fromBinary, fromJson, type JsonValue } from '@bufbuild/protobuf';
import { AnySchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PYTHON_A2A_1 } from './foreign-clients.js';

const DESCRIPTORS = fileURLToPath(new URL('./a2a_descriptors.py', import.meta.url));

export interface A2aSchema {
  /** Parses `json` as the message `lf.a2a.v1.<type>`; throws on anything that is not its proto3 JSON. */
  parse(type: string, json: unknown): void;
  /** Parses a typed error detail (a google.protobuf.Any such as a google.rpc.ErrorInfo) the same way. */
  parseDetail(json: unknown): void;
}

export function loadA2aSchema(): A2aSchema {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, execFileSync(PYTHON_A2A_1, [DESCRIPTORS])));
  return {
    parse(type, json) {
      const schema = registry.getMessage(`lf.a2a.v1.${type}`);
      if (!schema) throw new Error(`a2a.proto has no message ${type}`);
      fromJson(schema, json as JsonValue, { registry });
    },
    parseDetail(json) {
      fromJson(AnySchema, json as JsonValue, { registry });
    },
  };
}
