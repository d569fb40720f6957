/**
 * The stored form of an owner's entity graph: how graph items are named and what makes one
 * valid. Entities get ids derived from their partition and canonical id, so the same entity named
 * in two segments (or arriving from a bundle) lands on one item; relations get engine ids.
 */
import type { Scope } from '../contract/requests.js';
import type { GraphItem } from '../records.js';
import { isEpochMs as isTime, isString, isStrings } from '../export/stored-shape.js';

/** The storage id of an entity in one partition (scope ids contain no '/', so this is unambiguous). */
export function graphEntityItemId(scope: Scope, entityId: string): string {
  return `ge:${scope.app_id}/${scope.project_id}/${scope.owner_type}/${scope.owner_id}/${entityId}`;
}

/** Why a graph item (say, from an imported bundle) cannot be stored, or null when it can. */
export function graphItemProblem(item: GraphItem): string | null {
  const o = item as unknown as Record<string, unknown>;
  if (o['vector'] !== null && o['vector'] !== undefined) return 'a graph item has no vector';
  if (!isTime(o['timestamp']) || !isTime(o['updated_at'])) return 'timestamp and updated_at must be epoch milliseconds';
  if (item.kind === 'graph_entity') {
    if (!isString(o['entity_id']) || !o['entity_id'] || !isString(o['name']) || !isString(o['type'])) return 'a graph entity needs entity_id, name and type';
    if (!isStrings(o['aliases']) || !isStrings(o['session_ids'])) return 'aliases and session_ids must be lists of strings';
    return null;
  }
  for (const key of ['subject', 'predicate', 'object'] as const) if (!isString(o[key]) || !o[key]) return `a graph relation needs ${key}`;
  if (o['fact_id'] !== null && !isString(o['fact_id'])) return 'fact_id must be a string or null';
  if (o['session_id'] !== null && !isString(o['session_id'])) return 'session_id must be a string or null';
  if (!isStrings(o['source_message_ids'])) return 'source_message_ids must be a list of strings';
  if (!isTime(o['valid_from'])) return 'valid_from must be epoch milliseconds';
  if (o['superseded_at'] !== null && !isTime(o['superseded_at'])) return 'superseded_at must be epoch milliseconds or null';
  return null;
}
