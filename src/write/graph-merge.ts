/**
 * A segment's entity graph → the graph items to store, merged into each owner's graph: the same
 * canonical entity stays one node (its aliases and sessions accumulate), a link already known is
 * not stored twice, and a new value of a one-value link ("lives in Porto" after "lives in
 * Lisbon") marks the old one superseded. Each link goes to the partition of the fact it was read
 * from (else of its speaker); every owner of the segment's episodes gets the entities it names.
 * Pure: it reads the stored graphs and the write's own pending items, and adds to the latter.
 */
import type { Scope } from '../contract/requests.js';
import { graphEntityItemId } from '../graph/graph-items.js';
import type { PartitionGraph } from '../graph/partition-graph.js';
import { partitionKey, provenanceId, senderType, type GraphEntityItem, type GraphItem, type GraphRelationItem, type MemoryRecord } from '../records.js';
import { SINGLE_VALUED, type FactRef, type GraphEntity } from './entity-graph.js';
import type { Extraction, Segment } from './extraction.js';

export interface GraphMergeContext {
  now: number;
  newId: (prefix: string) => string;
  /** The stored graph of a partition. */
  graphOf: (scope: Scope) => PartitionGraph | undefined;
  /** Items this write already changed, by storage id (read before the stored graph; added to here). */
  pending: Map<string, GraphItem>;
}

const WEAK_TYPES = new Set(['unknown', 'concept']);
const union = (a: string[], b: readonly string[]): string[] => (b.every((x) => a.includes(x)) ? a : [...new Set([...a, ...b])]);

/** Adds to `ctx.pending` the graph items that merge this segment's graph into its owners' graphs. */
export function mergeSegmentGraph(segment: Segment, extraction: Extraction, records: readonly MemoryRecord[], ctx: GraphMergeContext): void {
  const graph = extraction.graph;
  if (!graph || extraction.episodes.length === 0) return;
  const base = { app_id: segment.app_id, project_id: segment.project_id };
  const owners = new Map<string, Scope>();
  for (const e of extraction.episodes) {
    const scope: Scope = { ...base, owner_type: e.owner_type, owner_id: e.owner_id };
    owners.set(partitionKey(scope), scope);
  }
  const firstSaid = Math.min(...segment.messages.map((m) => m.timestamp));

  for (const scope of owners.values()) for (const e of graph.entities) putEntity(scope, e);

  // The stored fact a relation was read from: same owner, kind, words and source messages.
  const facts = new Map<string, string>();
  const factKey = (scope: Scope, kind: string, content: string, sources: readonly string[]) => `${partitionKey(scope)}\u0000${kind}\u0000${content}\u0000${sources.join('\u0001')}`;
  for (const r of records) {
    if ((r.kind === 'atomic_fact' && !r.passage) || r.kind === 'foresight') facts.set(factKey(r, r.kind, r.content, r.source_message_ids), r.id);
  }
  const factOf = (ref: FactRef | null): { scope: Scope; id: string | null } | null => {
    const episode = ref ? extraction.episodes[ref.episode] : undefined;
    const statement = ref && episode ? episode[ref.list][ref.index] : undefined;
    if (!ref || !episode || !statement) return null;
    const scope: Scope = { ...base, owner_type: episode.owner_type, owner_id: episode.owner_id };
    return { scope, id: facts.get(factKey(scope, ref.list === 'facts' ? 'atomic_fact' : 'foresight', statement.content, statement.source_message_ids)) ?? null };
  };
  const bySource = new Map(segment.messages.map((m) => [provenanceId(m), m]));
  const speakerOf = (sources: readonly string[]): Scope | undefined => {
    const m = sources.map((id) => bySource.get(id)).find((x) => x !== undefined);
    return m ? owners.get(partitionKey({ ...base, owner_type: senderType(m.role), owner_id: m.sender_id })) : undefined;
  };

  for (const rel of graph.relations) {
    const fact = factOf(rel.fact);
    const scope = fact?.scope ?? speakerOf(rel.source_message_ids) ?? owners.values().next().value!;
    const holding = holdingOf(scope, rel.subject, rel.predicate);
    if (holding.some((r) => r.object === rel.object)) continue;
    let superseded_at = rel.superseded_at;
    if (superseded_at === null && SINGLE_VALUED.has(rel.predicate)) {
      for (const old of holding) {
        // A statement older than the one stored (an import, a late message) is history at once.
        if (old.valid_from > rel.valid_from) superseded_at = Math.min(superseded_at ?? Infinity, old.valid_from);
        else put({ ...old, superseded_at: rel.valid_from, updated_at: ctx.now });
      }
    }
    const said = rel.source_message_ids.map((id) => bySource.get(id)?.timestamp).find((t) => t !== undefined) ?? rel.valid_from;
    put({
      ...scope, kind: 'graph_relation', id: ctx.newId('gr'), subject: rel.subject, predicate: rel.predicate, object: rel.object,
      fact_id: fact?.id ?? null, session_id: segment.session_id, source_message_ids: [...rel.source_message_ids],
      valid_from: rel.valid_from, superseded_at, timestamp: said, updated_at: ctx.now, vector: null,
    } satisfies GraphRelationItem);
  }

  function put(item: GraphItem): void {
    ctx.pending.set(item.id, item);
  }

  function putEntity(scope: Scope, e: GraphEntity): void {
    const id = graphEntityItemId(scope, e.id);
    const known = (ctx.pending.get(id) as GraphEntityItem | undefined) ?? ctx.graphOf(scope)?.entities.get(e.id);
    if (!known) {
      put({
        ...scope, kind: 'graph_entity', id, entity_id: e.id, name: e.name, type: e.type, aliases: [...e.aliases],
        session_ids: [segment.session_id], timestamp: firstSaid, updated_at: ctx.now, vector: null,
      });
      return;
    }
    const aliases = union(known.aliases, e.aliases.filter((a) => a !== known.name));
    const session_ids = union(known.session_ids, [segment.session_id]);
    const type = WEAK_TYPES.has(known.type) && !WEAK_TYPES.has(e.type) ? e.type : known.type;
    if (aliases === known.aliases && session_ids === known.session_ids && type === known.type) return;
    put({ ...known, aliases, session_ids, type, updated_at: ctx.now });
  }

  /** The relations of `subject` with `predicate` that hold in a partition, this write's changes included. */
  function holdingOf(scope: Scope, subject: string, predicate: string): GraphRelationItem[] {
    const out = new Map<string, GraphRelationItem>();
    for (const r of ctx.graphOf(scope)?.holding(subject, predicate) ?? []) out.set(r.id, r);
    const pkey = partitionKey(scope);
    for (const item of ctx.pending.values()) {
      if (item.kind === 'graph_relation' && item.subject === subject && item.predicate === predicate && partitionKey(item) === pkey) out.set(item.id, item);
    }
    return [...out.values()].filter((r) => r.superseded_at === null);
  }
}
