/**
 * Engram records as Tablestore memory units (spec 003, "results[].unit"), and the evidence
 * behind them. Fields Engram has nothing truthful for are left out rather than invented:
 * `salience`, `topic`, `time_anchor`, the supersede chain and the `dream_*` provenance.
 */
import { searchText, type RecordView } from '../../records.js';
import { keywords } from './keywords.js';
import { metadataRenderings } from '../metadata.js';
import type { ItemRef } from '../../write/content-items.js';
import { clip, type Hit } from './shared.js';
import { conversationKey, type TablestoreScope } from './tablestore-scope.js';

const MAX_TITLE_CHARS = 64;
const MAX_KEYWORDS = 8;

/** `results[].unit`: the fields of a long-term memory unit Engram can fill truthfully. */
export interface MemoryUnit {
  id: string;
  conversation_key: string;
  scope: TablestoreScope;
  memcell_id: string | null;
  unit_type: string;
  title: string;
  text: string;
  search_text: string;
  keywords: string[];
  source_turn_ids: string[];
  type_label: string;
  date_bucket: string;
  metadata: Record<string, string>;
  metadata_json: string;
  metadata_flat: string;
  deleted: false;
  created_at: string;
  effective_at: string;
  updated_at: string;
  time_source: 'source_message' | 'explicit_event' | 'manual';
  time_precision: 'second' | 'day';
  version: 1;
  speaker?: string;
  entities?: string[];
  source_turn_refs?: { messageId: string; timestampMs: number }[];
  /** Engram extension: the images, audio and documents the memory came with, by reference (docs/multimodal.md). */
  content_items?: ItemRef[];
}

/** One source sentence behind a result: the words as spoken, from the message the fact was extracted from. */
export interface Evidence {
  messageId: string | null;
  unitId: string;
  scope: TablestoreScope;
  speaker: string | null;
  content: string;
  timestampMs: number;
}

const UNIT_TYPES: Record<Hit['record']['kind'], string> = {
  atomic_fact: 'atomic_fact', foresight: 'temporal_anchor', episode: 'episode', knowledge: 'knowledge',
  agent_case: 'agent_case', agent_skill: 'agent_skill', profile: 'entity_fact',
};

/** A hit as a Tablestore memory unit, reported under the given conversation scope. */
export function unitOf(hit: Hit, scope: TablestoreScope): MemoryUnit {
  const r = hit.record;
  const iso = (ms: number) => new Date(ms).toISOString();
  let title = '';
  let text = '';
  let memcell: string | null = null;
  switch (r.kind) {
    case 'atomic_fact':
    case 'foresight':
      text = r.content;
      memcell = hit.parent?.parent_type === 'memcell' ? hit.parent.parent_id : null;
      break;
    case 'episode':
      [title, text, memcell] = [r.subject, r.summary, r.parent_type === 'memcell' ? r.parent_id : null];
      break;
    case 'knowledge':
      [title, text] = [r.title, r.content];
      break;
    case 'agent_case':
      [title, text, memcell] = [r.task_intent, r.approach, r.parent_type === 'memcell' ? r.parent_id : null];
      break;
    case 'agent_skill':
      [title, text] = [r.name, r.content];
      break;
    case 'profile':
      text = JSON.stringify(r.profile_data);
      break;
  }
  const statement = r.kind === 'atomic_fact' || r.kind === 'foresight';
  const speaker = statement ? r.sender_ids[0] : undefined;
  const due = r.kind === 'foresight' ? r.due_at : null;
  const conversational = statement || r.kind === 'episode' || r.kind === 'agent_case';
  const effective = due ?? r.timestamp;
  return {
    id: r.id,
    conversation_key: conversationKey(scope),
    scope: { ...scope },
    memcell_id: memcell,
    unit_type: UNIT_TYPES[r.kind],
    title: clip(title, MAX_TITLE_CHARS),
    text,
    search_text: searchText(r),
    keywords: keywords(`${title}\n${text}`, MAX_KEYWORDS, speaker ? [speaker] : []),
    source_turn_ids: [...r.source_message_ids],
    type_label: r.kind,
    date_bucket: iso(effective).slice(0, 7),
    ...metadataRenderings(r.metadata),
    deleted: false,
    created_at: iso(r.created_at),
    effective_at: iso(effective),
    updated_at: iso(r.updated_at),
    time_source: due !== null ? 'explicit_event' : conversational ? 'source_message' : 'manual',
    time_precision: due !== null ? 'day' : 'second',
    version: 1,
    ...(speaker ? { speaker } : {}),
    ...(r.kind === 'episode' && r.sender_ids.length ? { entities: [...r.sender_ids] } : {}),
    ...(statement && r.source_message_ids.length === 1 ? { source_turn_refs: [{ messageId: r.source_message_ids[0]!, timestampMs: r.timestamp }] } : {}),
    ...(r.items?.length ? { content_items: structuredClone(r.items) } : {}),
  };
}

/** The words as spoken behind the returned facts and plans, one entry per distinct sentence, in result order. */
export function evidenceOf(results: readonly { record: RecordView; scope: TablestoreScope }[]): Evidence[] {
  const seen = new Set<string>();
  const out: Evidence[] = [];
  for (const { record: r, scope } of results) {
    if ((r.kind !== 'atomic_fact' && r.kind !== 'foresight') || !r.evidence) continue;
    const messageId = r.source_message_ids[0] ?? null;
    const key = `${messageId}\u0000${r.evidence}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ messageId, unitId: r.id, scope: { ...scope }, speaker: r.sender_ids[0] ?? null, content: r.evidence, timestampMs: r.timestamp });
  }
  return out;
}
