/**
 * Breeth edges from the owner's entity graph (spec 002: "hybrid ranking: BM25 + vector cosine +
 * graph centrality"). A fact the hybrid search found that the graph links two entities with
 * becomes that link: `source_node`, `target_node` and `name` are the relation's subject, object
 * and predicate. Links of the entities the query names come along even when their fact ranked
 * below the cut. Each edge's score is its fact's fused BM25 + vector relevance plus a bonus for
 * how central its entities are in the owner's graph, so a hub (the owner, their partner, their
 * employer) outranks a passing mention at equal relevance.
 */
import { entitiesNamedIn, type GraphView } from '../../graph/partition-graph.js';
import type { Hit } from './shared.js';

/** Weight of degree centrality (0..1) next to the calibrated 0..1 hybrid relevance. */
const CENTRALITY_WEIGHT = 0.15;
/** What a link counts for when only the query's entities, not its words, found it. */
const NAMED_IN_QUERY = 0.3;
/** A link a later statement replaced still answers "where did she live", but below the links that hold. */
const SUPERSEDED_PENALTY = 0.2;

/** An edge before it is shaped: where it comes from and its score. */
export interface GraphEdge {
  edge_uuid: string;
  source_node: string;
  target_node: string;
  name: string;
  fact: string;
  score: number;
}

export interface GraphRankContext {
  graph: GraphView;
  query: string;
  /** The owner's own entity (`user:<id>`): it is in nearly every link, so naming it picks none. */
  owner: string;
  hits: readonly Hit[];
  /** The edge a hit gives when the graph holds no link for it (the record-based reading). */
  fallback: (hit: Hit) => Omit<GraphEdge, 'score'>;
  /** The text of a fact by id, for links found through the query's entities; undefined when it is gone. */
  factText: (ids: readonly string[]) => Map<string, string>;
}

/** Every candidate edge, best first (ties in id order), one per edge id. */
export function rankGraphEdges(ctx: GraphRankContext): GraphEdge[] {
  const { graph } = ctx;
  const entities = new Map(graph.entities.map((e) => [e.id, e]));
  const centrality = (id: string) => entities.get(id)?.centrality ?? 0;
  const nameOf = (id: string) => entities.get(id)?.name ?? id;
  const byFact = new Map<string, GraphView['relations']>();
  for (const r of graph.relations) if (r.fact_id) byFact.set(r.fact_id, [...(byFact.get(r.fact_id) ?? []), r]);
  const edges = new Map<string, GraphEdge>();
  const add = (edge: GraphEdge) => {
    const known = edges.get(edge.edge_uuid);
    if (!known || known.score < edge.score) edges.set(edge.edge_uuid, edge);
  };
  const linkEdge = (r: GraphView['relations'][number], fact: string, relevance: number): GraphEdge => ({
    edge_uuid: r.id, source_node: nameOf(r.subject), target_node: nameOf(r.object), name: r.predicate, fact,
    score: relevance + CENTRALITY_WEIGHT * Math.max(centrality(r.subject), centrality(r.object)) - (r.superseded_at === null ? 0 : SUPERSEDED_PENALTY),
  });

  for (const hit of ctx.hits) {
    const links = byFact.get(hit.record.id);
    if (links?.length) {
      const fact = ctx.fallback(hit).fact;
      for (const r of links) add(linkEdge(r, fact, hit.score));
      continue;
    }
    const edge = ctx.fallback(hit);
    const named = entitiesNamedIn(edge.fact, graph.entities);
    add({ ...edge, score: hit.score + CENTRALITY_WEIGHT * Math.max(0, ...named.map((e) => e.centrality)) });
  }

  // Links of the entities the query names whose facts the words did not reach.
  const asked = new Set(entitiesNamedIn(ctx.query, graph.entities).map((e) => e.id).filter((id) => id !== ctx.owner));
  if (asked.size) {
    const found = new Set(ctx.hits.map((h) => h.record.id));
    const links = graph.relations.filter((r) => r.superseded_at === null && (asked.has(r.subject) || asked.has(r.object)) && !(r.fact_id && found.has(r.fact_id)));
    const texts = ctx.factText(links.map((r) => r.fact_id).filter((id): id is string => id !== null));
    for (const r of links) {
      const fact = (r.fact_id && texts.get(r.fact_id)) || `${nameOf(r.subject)} ${r.predicate.replace(/_/g, ' ')} ${nameOf(r.object)}.`;
      add(linkEdge(r, fact, NAMED_IN_QUERY * ((asked.has(r.subject) ? 1 : 0) + (asked.has(r.object) ? 1 : 0)) / 2 + NAMED_IN_QUERY / 2));
    }
  }
  // A link a later one replaced ranks below it whenever both answer: "where does Maya live" gets
  // Porto first and Lisbon as history, however much closer Lisbon's words are to the question.
  const relations = new Map(graph.relations.map((r) => [r.id, r]));
  for (const edge of edges.values()) {
    const r = relations.get(edge.edge_uuid);
    if (!r || r.superseded_at === null) continue;
    for (const other of edges.values()) {
      const o = relations.get(other.edge_uuid);
      if (o && o.superseded_at === null && o.subject === r.subject && o.predicate === r.predicate && other.score <= edge.score) edge.score = other.score - 1e-6;
    }
  }
  return [...edges.values()].sort((a, b) => b.score - a.score || (a.edge_uuid < b.edge_uuid ? -1 : a.edge_uuid > b.edge_uuid ? 1 : 0));
}
