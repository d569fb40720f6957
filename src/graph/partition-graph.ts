/**
 * One partition's entity graph in memory, derived from its stored graph items like the keyword
 * and vector indexes are derived from its records: entities by canonical id, relations by id,
 * with the look-ups that merging and search need (relations of an entity or a fact, entities a
 * text names, degree centrality, and the neighbourhood of some entities for multi-hop search).
 */
import type { GraphEntityItem, GraphRelationItem } from '../records.js';

/** What lies around some entities: for expanding a search through the entities that link sessions. */
export interface Neighbourhood {
  /** Canonical names of the entities the given names matched (by name or alias, any case). */
  matched: string[];
  /** Canonical names of the entities linked to them through relations that still hold, best connected first. */
  related: string[];
  /** Ids of the facts and plans the traversed relations were read from. */
  fact_ids: string[];
  /** Sessions in which the matched and related entities were named. */
  session_ids: string[];
}

/** One owner's entity graph as plain data. */
export interface GraphView {
  entities: { id: string; name: string; type: string; aliases: string[]; session_ids: string[]; centrality: number }[];
  relations: { id: string; subject: string; predicate: string; object: string; fact_id: string | null; session_id: string | null; source_message_ids: string[]; valid_from: number; superseded_at: number | null }[];
}

const key = (name: string) => name.normalize('NFKC').toLowerCase().trim();
const LETTER = /[\p{L}\p{N}]/u;

/** Whether `name` stands in `text` as whole words (both already lower-cased). */
function hasWords(text: string, name: string): boolean {
  for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
    if (!LETTER.test(text[i - 1] ?? ' ') && !LETTER.test(text[i + name.length] ?? ' ')) return true;
  }
  return false;
}

/** The entities whose name or an alias stands in `text` as whole words (any case). */
export function entitiesNamedIn<E extends { name: string; aliases: readonly string[] }>(text: string, entities: Iterable<E>): E[] {
  const t = key(text);
  const out: E[] = [];
  for (const e of entities) {
    if ([e.name, ...e.aliases].some((n) => {
      const k = key(n);
      return k.length > 1 && hasWords(t, k);
    })) out.push(e);
  }
  return out;
}

export class PartitionGraph {
  /** By canonical entity id (`e:pixel`). */
  readonly entities = new Map<string, GraphEntityItem>();
  /** By relation id. */
  readonly relations = new Map<string, GraphRelationItem>();
  private readonly byEntity = new Map<string, Set<string>>();
  private readonly byFact = new Map<string, Set<string>>();
  /** `subject \0 predicate` → relation ids: merging asks this for every new link, so it must not walk a hub's links. */
  private readonly byLink = new Map<string, Set<string>>();
  private degrees: Map<string, number> | null = null;
  private maxDegree = 0;

  get size(): number {
    return this.entities.size + this.relations.size;
  }

  put(item: GraphEntityItem | GraphRelationItem): void {
    this.degrees = null;
    if (item.kind === 'graph_entity') {
      this.entities.set(item.entity_id, item);
      return;
    }
    this.remove(item);
    this.relations.set(item.id, item);
    for (const e of [item.subject, item.object]) link(this.byEntity, e, item.id);
    if (item.fact_id) link(this.byFact, item.fact_id, item.id);
    link(this.byLink, `${item.subject}\u0000${item.predicate}`, item.id);
  }

  remove(item: GraphEntityItem | GraphRelationItem): void {
    this.degrees = null;
    if (item.kind === 'graph_entity') {
      if (this.entities.get(item.entity_id)?.id === item.id) this.entities.delete(item.entity_id);
      return;
    }
    const old = this.relations.get(item.id);
    if (!old) return;
    this.relations.delete(item.id);
    for (const e of [old.subject, old.object]) unlink(this.byEntity, e, old.id);
    if (old.fact_id) unlink(this.byFact, old.fact_id, old.id);
    unlink(this.byLink, `${old.subject}\u0000${old.predicate}`, old.id);
  }

  /** Relations touching an entity; only those that still hold unless `all`. */
  relationsOf(entityId: string, all = false): GraphRelationItem[] {
    const out: GraphRelationItem[] = [];
    for (const id of this.byEntity.get(entityId) ?? []) {
      const r = this.relations.get(id);
      if (r && (all || r.superseded_at === null)) out.push(r);
    }
    return out;
  }

  /** Relations read from one fact or plan (by record id). */
  relationsOfFact(factId: string): GraphRelationItem[] {
    return [...(this.byFact.get(factId) ?? [])].map((id) => this.relations.get(id)).filter((r): r is GraphRelationItem => r !== undefined);
  }

  /** The relations of `subject` with `predicate` that still hold. */
  holding(subject: string, predicate: string): GraphRelationItem[] {
    const out: GraphRelationItem[] = [];
    for (const id of this.byLink.get(`${subject}\u0000${predicate}`) ?? []) {
      const r = this.relations.get(id);
      if (r && r.superseded_at === null) out.push(r);
    }
    return out;
  }

  /**
   * Degree centrality in 0..1: how many relations that still hold touch the entity, on a log
   * scale against the best connected entity of the partition (a hub scores 1, an isolated name 0).
   */
  centrality(entityId: string): number {
    if (!this.degrees) {
      this.degrees = new Map();
      for (const r of this.relations.values()) {
        if (r.superseded_at !== null) continue;
        for (const e of new Set([r.subject, r.object])) this.degrees.set(e, (this.degrees.get(e) ?? 0) + 1);
      }
      this.maxDegree = Math.max(0, ...this.degrees.values());
    }
    const d = this.degrees.get(entityId) ?? 0;
    return this.maxDegree === 0 ? 0 : Math.log1p(d) / Math.log1p(this.maxDegree);
  }

  /** The entities a name or alias denotes (any case). */
  lookup(name: string): GraphEntityItem[] {
    const k = key(name);
    if (!k) return [];
    return [...this.entities.values()].filter((e) => key(e.name) === k || e.aliases.some((a) => key(a) === k));
  }

  /** The entities whose name or an alias stands in `text` as whole words. */
  named(text: string): GraphEntityItem[] {
    return entitiesNamedIn(text, this.entities.values());
  }

  /** A read-only copy for callers outside the engine: every entity (with its centrality) and relation, in a stable order. */
  view(): GraphView {
    const relations = [...this.relations.values()].sort((a, b) => a.valid_from - b.valid_from || a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1));
    return {
      entities: [...this.entities.values()].sort((a, b) => (a.entity_id < b.entity_id ? -1 : 1)).map((e) => ({ id: e.entity_id, name: e.name, type: e.type, aliases: [...e.aliases], session_ids: [...e.session_ids], centrality: this.centrality(e.entity_id) })),
      relations: relations.map((r) => ({
        id: r.id, subject: r.subject, predicate: r.predicate, object: r.object, fact_id: r.fact_id, session_id: r.session_id,
        source_message_ids: [...r.source_message_ids], valid_from: r.valid_from, superseded_at: r.superseded_at,
      })),
    };
  }

  /** The entities around the named ones, `hops` relations away (default 1), through relations that still hold. */
  neighbours(names: readonly string[], hops = 1): Neighbourhood {
    const start = new Map<string, GraphEntityItem>();
    for (const n of names) for (const e of this.lookup(n)) start.set(e.entity_id, e);
    const seen = new Set(start.keys());
    const related = new Map<string, GraphEntityItem>();
    const facts = new Set<string>();
    let frontier = [...start.keys()];
    for (let hop = 0; hop < hops && frontier.length; hop++) {
      const next: string[] = [];
      for (const id of frontier) {
        for (const r of this.relationsOf(id)) {
          if (r.fact_id) facts.add(r.fact_id);
          const other = r.subject === id ? r.object : r.subject;
          const e = this.entities.get(other);
          if (!e || seen.has(other)) continue;
          seen.add(other);
          related.set(other, e);
          next.push(other);
        }
      }
      frontier = next;
    }
    const sessions = new Set<string>();
    for (const e of [...start.values(), ...related.values()]) for (const s of e.session_ids) sessions.add(s);
    const ranked = [...related.values()].sort((a, b) => this.centrality(b.entity_id) - this.centrality(a.entity_id) || (a.name < b.name ? -1 : 1));
    return { matched: [...start.values()].map((e) => e.name), related: ranked.map((e) => e.name), fact_ids: [...facts], session_ids: [...sessions] };
  }
}

function link(map: Map<string, Set<string>>, k: string, id: string): void {
  let set = map.get(k);
  if (!set) map.set(k, (set = new Set()));
  set.add(id);
}

function unlink(map: Map<string, Set<string>>, k: string, id: string): void {
  const set = map.get(k);
  set?.delete(id);
  if (set && set.size === 0) map.delete(k);
}
