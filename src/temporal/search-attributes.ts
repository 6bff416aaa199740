/**
 * Registers the A2A search attributes on a namespace, adding only the missing ones: `setup` on a
 * real cluster, and the dev server on each start (its `--search-attribute` flags register them only
 * in a new database file, so a `.data/temporal.db` from an earlier release would lack the ones a
 * release added, and every task writing one would fail).
 */
import type { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_DEFINITIONS, searchAttributeTypeName } from '../protocol/search-attributes.js';
import proto from '@temporalio/proto';
import type { SearchAttributeType } from '@temporalio/common';

export interface SearchAttributeStatus {
  name: string;
  /** As Temporal's tools show it (Keyword, Datetime). */
  type: string;
  /** `other-type`: the namespace has it with another type (changing it would need a new attribute). */
  status: 'exists' | 'added' | 'other-type';
  /** With `other-type`: Temporal's IndexedValueType of the one there. */
  existingType?: number;
}

export async function registerSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
): Promise<SearchAttributeStatus[]> {
  const existing = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  const missing: Record<string, number> = {};
  const results = SEARCH_ATTRIBUTE_DEFINITIONS.map(({ name, type }): SearchAttributeStatus => {
    const wanted = indexedValueType(type);
    const shown = searchAttributeTypeName(type);
    const current = existing[name];
    if (current === undefined || current === null) {
      missing[name] = wanted;
      return { name, type: shown, status: 'added' };
    }
    if (Number(current) !== wanted) return { name, type: shown, status: 'other-type', existingType: Number(current) };
    return { name, type: shown, status: 'exists' };
  });
  if (Object.keys(missing).length > 0) {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  }
  return results;
}

/** Temporal's IndexedValueType of a search attribute type (the SDK's encoding, checked in temporal-sdk-pins.test.ts). */
export function indexedValueType(type: SearchAttributeType): proto.temporal.api.enums.v1.IndexedValueType {
  return proto.temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${type}`];
}
