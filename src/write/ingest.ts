/**
 * Extraction results → stored records: ids, partitions, parent links, timestamps and vectors.
 * Embedding happens here, before anything is committed, so a failing model leaves no partial
 * write behind.
 */
import type { Scope } from '../contract/requests.js';
import type { Embedder, ModelCallOptions } from '../models/ports.js';
import { embeddingText, type AgentCaseRecord, type AtomicFactRecord, type EpisodeRecord, type ForesightRecord, type MemoryRecord, type ProfileRecord } from '../records.js';
import type { Extraction, Segment } from './extraction.js';
import { participantUnits } from './participant-units.js';
import { episodeItems, segmentMetadata, statementItems } from './item-refs.js';
import { mergeProfile } from './profile-rules.js';

export interface IngestContext extends ModelCallOptions {
  embedder: Embedder;
  now: number;
  newId: (prefix: string) => string;
  /** The stored profile of a user, to merge updates into. */
  profileOf: (scope: Scope) => ProfileRecord | undefined;
  profileId: (scope: Scope) => string;
}

/** Embeds the searchable records in one batch call and attaches the vectors. */
export async function embedRecords(records: MemoryRecord[], ctx: Pick<IngestContext, 'embedder' | 'signal'>): Promise<void> {
  const targets = records.filter((r) => r.kind !== 'profile');
  if (targets.length === 0) return;
  const vectors = await ctx.embedder.embed(targets.map(embeddingText), ctx.signal ? { signal: ctx.signal } : {});
  targets.forEach((r, i) => {
    r.vector = vectors[i] ?? null;
    r.vector_model = ctx.embedder.id;
  });
}

/** Builds the records of one extracted segment (vectors included). */
export async function recordsFromExtraction(segment: Segment, extraction: Extraction, ctx: IngestContext): Promise<MemoryRecord[]> {
  const out: MemoryRecord[] = [];
  const base = { app_id: segment.app_id, project_id: segment.project_id, created_at: ctx.now, updated_at: ctx.now, vector: null, vector_model: null };
  // Every record of the segment keeps its write's metadata; the profile, which many writes make, keeps none.
  const meta = segmentMetadata(segment.messages);
  // Most segments carry no content items: then no record has any, and the per-statement search
  // through the messages' items (which folds each statement's words) is skipped.
  const withItems = segment.messages.some((m) => m.items?.length);
  const itemsOf = (ids: readonly string[], words: string) => (withItems ? statementItems(segment.messages, ids, words) : {});
  for (const e of extraction.episodes) {
    // The fields every record of this episode shares, spread once into each (one copy, not three).
    const owned = { ...base, ...meta, owner_type: e.owner_type, owner_id: e.owner_id };
    const episode: EpisodeRecord = {
      ...owned, id: ctx.newId('ep'), kind: 'episode', session_id: segment.session_id, timestamp: e.timestamp,
      sender_ids: e.sender_ids, source_message_ids: e.source_message_ids, parent_type: 'memcell', parent_id: segment.id,
      subject: e.subject, summary: e.summary, episode: e.episode, ...(withItems ? episodeItems(segment.messages, e.source_message_ids) : {}),
    };
    out.push(episode);
    const passages = participantUnits(segment.messages, e, [...e.facts, ...e.foresight]);
    for (const [i, f] of [...e.facts, ...passages].entries()) {
      const fact: AtomicFactRecord = {
        ...owned, id: ctx.newId('af'), kind: 'atomic_fact', session_id: segment.session_id, timestamp: f.timestamp,
        sender_ids: f.sender_ids, source_message_ids: f.source_message_ids, parent_type: 'episode', parent_id: episode.id, content: f.content, evidence: f.evidence,
        ...itemsOf(f.source_message_ids, f.evidence),
        ...(i >= e.facts.length ? { passage: true as const } : {}),
      };
      out.push(fact);
    }
    for (const f of e.foresight) {
      const plan: ForesightRecord = {
        ...owned, id: ctx.newId('fs'), kind: 'foresight', session_id: segment.session_id, timestamp: f.timestamp,
        sender_ids: f.sender_ids, source_message_ids: f.source_message_ids, parent_type: 'episode', parent_id: episode.id,
        content: f.content, evidence: f.evidence, due_at: f.due_at, ...itemsOf(f.source_message_ids, f.evidence),
      };
      out.push(plan);
    }
  }
  for (const c of extraction.cases) {
    const record: AgentCaseRecord = {
      ...base, ...meta, owner_type: 'agent', owner_id: c.agent_id, id: ctx.newId('ac'), kind: 'agent_case', session_id: segment.session_id,
      timestamp: c.timestamp, sender_ids: c.sender_ids, source_message_ids: c.source_message_ids, parent_type: 'memcell', parent_id: segment.id,
      task_intent: c.task_intent, approach: c.approach, quality_score: c.quality_score, key_insight: c.key_insight,
    };
    out.push(record);
  }
  await embedRecords(out, ctx);
  for (const p of extraction.profiles) {
    const scope: Scope = { app_id: segment.app_id, project_id: segment.project_id, owner_type: 'user', owner_id: p.user_id };
    const current = ctx.profileOf(scope);
    const profile: ProfileRecord = {
      ...base, ...scope, id: ctx.profileId(scope), kind: 'profile', session_id: null,
      timestamp: Math.max(current?.timestamp ?? 0, ...segment.messages.map((m) => m.timestamp)),
      created_at: current?.created_at ?? ctx.now,
      sender_ids: [...new Set([...(current?.sender_ids ?? []), ...p.sender_ids])],
      source_message_ids: [...(current?.source_message_ids ?? []), ...p.source_message_ids].slice(-200),
      parent_type: null, parent_id: null,
      profile_data: mergeProfile(current?.profile_data ?? {}, p.update, Math.max(...segment.messages.map((m) => m.timestamp))),
    };
    out.push(profile);
  }
  return out;
}
