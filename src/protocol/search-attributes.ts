/**
 * Search attributes every task workflow keeps current (DESIGN section 5).
 * Stored unencrypted by Temporal: never put personal data in them.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const TASK_STATE_ATTRIBUTE = defineSearchAttributeKey('A2ATaskState', SearchAttributeType.KEYWORD);
export const CONTEXT_ID_ATTRIBUTE = defineSearchAttributeKey('A2AContextId', SearchAttributeType.KEYWORD);
export const AGENT_ATTRIBUTE = defineSearchAttributeKey('A2AAgent', SearchAttributeType.KEYWORD);
export const OWNER_ATTRIBUTE = defineSearchAttributeKey('A2AOwner', SearchAttributeType.KEYWORD);
export const INPUT_DEADLINE_ATTRIBUTE = defineSearchAttributeKey('A2AInputDeadline', SearchAttributeType.DATETIME);

/** Name and Temporal CLI type of each attribute, for `temporal server start-dev --search-attribute`. */
export const SEARCH_ATTRIBUTE_DEFINITIONS: ReadonlyArray<{ name: string; cliType: 'Keyword' | 'Datetime' }> = [
  { name: TASK_STATE_ATTRIBUTE.name, cliType: 'Keyword' },
  { name: CONTEXT_ID_ATTRIBUTE.name, cliType: 'Keyword' },
  { name: AGENT_ATTRIBUTE.name, cliType: 'Keyword' },
  { name: OWNER_ATTRIBUTE.name, cliType: 'Keyword' },
  { name: INPUT_DEADLINE_ATTRIBUTE.name, cliType: 'Datetime' },
];
