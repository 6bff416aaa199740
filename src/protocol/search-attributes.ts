/**
 * Search attributes every task workflow keeps current (docs/a2a-mapping.md; the
 * operators' queries on them: "Operating it").
 * Stored unencrypted by Temporal: never put personal data in them.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const TASK_STATE_ATTRIBUTE = defineSearchAttributeKey('A2ATaskState', SearchAttributeType.KEYWORD);
export const CONTEXT_ID_ATTRIBUTE = defineSearchAttributeKey('A2AContextId', SearchAttributeType.KEYWORD);
export const AGENT_ATTRIBUTE = defineSearchAttributeKey('A2AAgent', SearchAttributeType.KEYWORD);
export const OWNER_ATTRIBUTE = defineSearchAttributeKey('A2AOwner', SearchAttributeType.KEYWORD);
export const INPUT_DEADLINE_ATTRIBUTE = defineSearchAttributeKey('A2AInputDeadline', SearchAttributeType.DATETIME);
/**
 * When the waiting question was asked; absent when none waits. The inbox learns of new questions
 * from it (`A2AAskedAt >= ...`) without listing every waiting one (tasks since release 9).
 */
export const ASKED_AT_ATTRIBUTE = defineSearchAttributeKey('A2AAskedAt', SearchAttributeType.DATETIME);
/**
 * Who may answer the question that waits (principals, and groups as `group:NAME`; the owner when
 * the question names nobody); absent when none waits. One visibility query answers "what waits for
 * me" across agents: `A2AResponders IN ('alice', 'group:finance')`.
 */
export const RESPONDERS_ATTRIBUTE = defineSearchAttributeKey('A2AResponders', SearchAttributeType.KEYWORD_LIST);

/**
 * Every attribute above: what `setup` registers on a namespace and the dev server starts with. Each
 * key's type is the one fact about it; Temporal's other names for it derive from that.
 */
export const SEARCH_ATTRIBUTE_DEFINITIONS: ReadonlyArray<ReturnType<typeof defineSearchAttributeKey>> = [
  TASK_STATE_ATTRIBUTE,
  CONTEXT_ID_ATTRIBUTE,
  AGENT_ATTRIBUTE,
  OWNER_ATTRIBUTE,
  INPUT_DEADLINE_ATTRIBUTE,
  RESPONDERS_ATTRIBUTE,
  ASKED_AT_ATTRIBUTE,
];

/**
 * A type as the Temporal CLI takes it (`temporal server start-dev --search-attribute A2AOwner=Keyword`)
 * and Temporal's tools and UI show it: the SDK's name in PascalCase (KEYWORD_LIST is KeywordList).
 */
export function searchAttributeTypeName(type: SearchAttributeType): string {
  return type.toLowerCase().replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
