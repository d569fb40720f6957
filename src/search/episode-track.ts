/**
 * Recall for the narrative track: episodes (and knowledge entries, which share their shape).
 * The keyword leg is BM25 over whole episodes; the vector leg scores an episode by its best
 * atomic fact or foresight ("MaxSim"), falling back to the episode's own vector when it has no
 * children. Both legs see only records that pass the request's filters. Candidates come back
 * ordered by the fusion of both legs (scores.ts), each with a calibrated 0..1 relevance.
 */
import type { ParsedFilters } from '../contract/filters.js';
import type { Partition } from '../index/partition.js';
import type { AtomicFactRecord, EpisodeRecord, ForesightRecord, KnowledgeRecord, MemoryRecord } from '../records.js';
import { tieOrder } from '../records.js';
import { FUSION_POOL, fuseLegs, legScale, relevance, unitEvidence, type FusedCalibration } from './scores.js';

export type Leg = 'keyword' | 'vector';
export type Unit = EpisodeRecord | KnowledgeRecord;
export type Child = AtomicFactRecord | ForesightRecord;

export interface ScoredChild {
  record: Child;
  cos: number;
  bm25: number;
  /** Its fused value among the children (mean z-score of its BM25 and cosine). */
  fused: number;
  /** Calibrated 0..1 relevance of the child on its own. */
  score: number;
}

export interface UnitCandidate {
  record: Unit;
  /** Best cosine of the unit (MaxSim over its children, or its own vector). */
  cos: number;
  /** The unit's own BM25 (0 when the keyword leg did not find it). */
  bm25: number;
  /** Its evidence: the mean of its own fused value among units and its best children's (scores.ts `unitEvidence`); orders hybrid candidates. */
  fused: number;
  /** Calibrated 0..1 relevance: the chance it holds the answer, a monotone map of `fused`. */
  score: number;
  /** Which recall legs returned it within their pool. */
  legs: Leg[];
  /** Its children that pass the filters, best first. */
  children: ScoredChild[];
  /**
   * How many units the query weighed, this one among them (the owner's episodes and knowledge
   * entries that pass the filters): the number of rivals a score's chance depends on
   * (scores.ts `wireScore`).
   */
  population: number;
}

export interface RecallOptions {
  filters: ParsedFilters | null;
  /** How many units each leg contributes. */
  pool: number;
  /** Cosine floor for the vector leg (null: none). */
  radius: number | null;
  legs: readonly Leg[];
  /**
   * Compute BM25 even when the keyword leg is not wanted (it feeds the calibrated relevance that
   * `min_score` floors). Without a floor, a vector-only search skips it: it is most of its cost.
   */
  keywordEvidence?: boolean;
  /** How a fused value becomes a 0..1 relevance, for units and for their children (see scores.ts). */
  calibration: { unit: FusedCalibration; child: FusedCalibration };
}

const UNIT_KINDS = ['episode', 'knowledge'] as const;
const CHILD_KINDS = ['atomic_fact', 'foresight'] as const;
const isUnitKind = (kind: string) => (UNIT_KINDS as readonly string[]).includes(kind);
const isChildKind = (kind: string) => (CHILD_KINDS as readonly string[]).includes(kind);

/** Recalls candidate units with every score the methods need. */
export function recallUnits(partition: Partition, query: string, queryVector: Float32Array, options: RecallOptions): UnitCandidate[] {
  const { keyword, vector } = partition.indexes();
  const passes = (r: MemoryRecord) => !options.filters || options.filters.test(r);
  const floor = options.radius ?? -Infinity;

  const keywordRanked: string[] = [];
  const withKeyword = options.legs.includes('keyword') || options.keywordEvidence === true;
  // Raw BM25 of the units that pass the filters and of the children, in the keyword leg's order.
  const unitValues: number[] = [];
  const childValues: number[] = [];
  // One bounded search serves units and children alike (keyword-index.ts), read by internal id:
  // a candidate's or child's BM25 is its kept score (`keptScore`), with no map built per query.
  const hits = withKeyword ? keyword.hits(query) : null;
  for (let i = 0; hits && i < hits.ids.length; i++) {
    const kind = keyword.kindOf(hits.ids[i]!);
    if (isChildKind(kind)) childValues.push(hits.scores[i]!);
    if (!isUnitKind(kind)) continue;
    const id = keyword.idOf(hits.ids[i]!);
    // The keyword index holds exactly the partition's searchable records: only a filter needs the record.
    if (options.filters) {
      const record = partition.records.get(id);
      if (!record || !passes(record)) continue;
    }
    unitValues.push(hits.scores[i]!);
    keywordRanked.push(id);
  }
  /** A child's BM25 (undefined: not among the kept hits). */
  const childBm25 = (internal: number) => (hits ? keyword.keptScore(internal) : undefined);
  /** A candidate unit's BM25 (undefined: not among the kept hits, or filtered out). */
  const unitBm25 = (id: string) => {
    if (!hits) return undefined;
    const internal = keyword.internalOf(id);
    const score = keyword.keptScore(internal);
    if (score === undefined || !isUnitKind(keyword.kindOf(internal))) return undefined;
    if (options.filters) {
      const record = partition.records.get(id);
      if (!record || !passes(record)) return undefined;
    }
    return score;
  };

  const maxSimOptions = {
    units: UNIT_KINDS,
    children: CHILD_KINDS,
    filtered: options.filters !== null,
    visible: (id: string) => {
      const record = partition.records.get(id);
      return record !== undefined && passes(record);
    },
    // MaxSim: an episode whose facts are visible is scored by them, not by its own vector.
    hasVisibleChildren: (id: string) => {
      for (const c of partition.children.get(id) ?? []) {
        const child = partition.records.get(c);
        if (child && passes(child)) return true;
      }
      return false;
    },
  };
  // A keyword-only search without a floor (no `keywordEvidence`) answers raw BM25 in BM25 order:
  // no fused value reaches it, so the vector pass over every record (which the vector leg's
  // z-scores need) is skipped, and only its candidates' cosines are computed, for the trace. Its
  // fused values then stand on the keyword leg alone (a vector z of 0).
  const keywordOnly = !options.legs.includes('vector') && options.keywordEvidence !== true;
  // Exact cosines for every visible child and unit, in one pass over the partition's vectors
  // (vector-index.ts); the radius only decides leg membership.
  const full = keywordOnly ? null : vector.maxSim(queryVector, maxSimOptions);
  const scan = full ?? vector.maxSimOf(queryVector, keywordRanked.slice(0, options.pool), { ...maxSimOptions, childSlots: (id) => partition.childRows(id).slots });
  const vectorTop = full ? full.topUnits(Math.max(options.pool, FUSION_POOL), floor) : [];
  const vectorRanked = vectorTop.map((h) => h.id);

  const legOf = new Map<string, Leg[]>();
  const take = (leg: Leg, ranked: string[]) => {
    for (const id of ranked.slice(0, options.pool)) legOf.set(id, [...(legOf.get(id) ?? []), leg]);
  };
  if (options.legs.includes('keyword')) take('keyword', keywordRanked);
  if (options.legs.includes('vector')) take('vector', vectorRanked);

  // Both legs on one scale: per-query z-scores (scores.ts). An item outside the vector leg (below
  // the radius) stands where the leg found nothing.
  const inVector = (cos: number | undefined) => (cos !== undefined && cos >= floor ? cos : undefined);
  // Without the vector pass, the keyword z-scores stand over what the keyword leg found.
  const keywordScale = legScale(unitValues, full?.unitCount ?? unitValues.length, 0);
  const vectorScale = legScale(vectorTop.map((h) => h.score), full?.unitsAtLeast(floor) ?? 0);
  const childKeyword = legScale(childValues, full?.childCount ?? childValues.length, 0);
  const childVector = legScale(full?.topChildScores(FUSION_POOL) ?? [], full?.childCount ?? 0);
  const fusedOf = (id: string, bm25: number | undefined) => fuseLegs(keywordScale.z(bm25), vectorScale.z(inVector(scan.unitCos(id))));

  const out: UnitCandidate[] = [];
  const population = full?.unitCount ?? unitValues.length;
  const childCalibration = options.calibration.child;
  for (const [id, legs] of legOf) {
    const record = partition.records.get(id) as Unit | undefined;
    if (!record) continue;
    const cos = scan.unitCos(id) ?? 0;
    const unitScore = unitBm25(id);
    const bm25 = unitScore ?? 0;
    // Its children in tie order (ties in score keep it), read from typed arrays.
    const rows = partition.childRows(id);
    const scored: ScoredChild[] = [];
    for (let i = 0; i < rows.records.length; i++) {
      const ccos = scan.childCosAt(rows.slots[i]!);
      if (ccos === undefined) continue;
      const cbm25 = childBm25(rows.keywordIds[i]!);
      const fused = fuseLegs(childKeyword.z(cbm25), childVector.z(ccos));
      scored.push({ record: rows.records[i]!, cos: ccos, bm25: cbm25 ?? 0, fused, score: relevance(fused, childCalibration) });
    }
    // Without the vector pass, facts of equal BM25 go by cosine, as their fused values ordered them;
    // equal scores keep the rows' order, which is `tieOrder` (partition.ts `childRows`; the sort is stable).
    scored.sort((a, b) => b.score - a.score || (keywordOnly ? b.cos - a.cos : 0));
    // Most episodes repeat no text among their children: then there is nothing to fold.
    const children = rows.repeatsText ? withoutTwins(scored) : scored;
    const fused = unitEvidence(fusedOf(id, unitScore), children, fusedOfChild);
    out.push({ record, cos, bm25, fused, score: relevance(fused, options.calibration.unit), legs, children, population });
  }
  out.sort((a, b) => b.fused - a.fused || tieOrder(a.record, b.record));
  return out;
}

/**
 * A plan is often also a fact in the same words: each statement is shown once, as the plan when
 * one of its copies is a plan, else its best-scored copy. Children come best first; a child is
 * compared with the first other child of the same text (one pass, texts grouped in a map; most
 * texts are unique, so only a repeated text gets a second entry).
 */
export function withoutTwins(children: ScoredChild[]): ScoredChild[] {
  if (children.length < 2) return children.slice();
  const first = new Map<string, number>();
  let second: Map<string, number> | null = null;
  for (let i = 0; i < children.length; i++) {
    const text = children[i]!.record.content;
    if (!first.has(text)) first.set(text, i);
    else if (!second?.has(text)) (second ??= new Map()).set(text, i);
  }
  if (!second) return children.slice();
  const twins = second;
  return children.filter((c, i) => {
    const text = c.record.content;
    const head = first.get(text)!;
    const twin = head === i ? twins.get(text) : head;
    if (twin === undefined) return true;
    if (c.record.kind !== children[twin]!.record.kind) return c.record.kind === 'foresight';
    return i < twin;
  });
}

/** A scored child's fused value, for `unitEvidence`. */
const fusedOfChild = (child: { fused: number }): number => child.fused;
