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

  const unitBm25 = new Map<string, number>();
  const keywordRanked: string[] = [];
  const withKeyword = options.legs.includes('keyword') || options.keywordEvidence === true;
  const childBm25 = new Map<string, number>();
  // One bounded search serves units and children alike (keyword-index.ts).
  for (const hit of withKeyword ? keyword.search(query, null) : []) {
    if (isChildKind(hit.kind)) childBm25.set(hit.id, hit.score);
    if (!isUnitKind(hit.kind)) continue;
    const record = partition.records.get(hit.id);
    if (!record || !passes(record)) continue;
    unitBm25.set(hit.id, hit.score);
    keywordRanked.push(hit.id);
  }

  const maxSimOptions = {
    units: UNIT_KINDS,
    children: CHILD_KINDS,
    filtered: options.filters !== null,
    visible: (id: string) => {
      const record = partition.records.get(id);
      return record !== undefined && passes(record);
    },
    // MaxSim: an episode whose facts are visible is scored by them, not by its own vector.
    hasVisibleChildren: (id: string) => partition.childrenOf(id).some(passes),
  };
  // A keyword-only search without a floor (no `keywordEvidence`) answers raw BM25 in BM25 order:
  // no fused value reaches it, so the vector pass over every record (which the vector leg's
  // z-scores need) is skipped, and only its candidates' cosines are computed, for the trace. Its
  // fused values then stand on the keyword leg alone (a vector z of 0).
  const keywordOnly = !options.legs.includes('vector') && options.keywordEvidence !== true;
  // Exact cosines for every visible child and unit, in one pass over the partition's vectors
  // (vector-index.ts); the radius only decides leg membership.
  const full = keywordOnly ? null : vector.maxSim(queryVector, maxSimOptions);
  const scan = full ?? vector.maxSimOf(queryVector, keywordRanked.slice(0, options.pool), { ...maxSimOptions, childrenOf: (id) => partition.children.get(id) ?? [] });
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
  const keywordScale = legScale(unitBm25.values(), full?.unitCount ?? unitBm25.size, 0);
  const vectorScale = legScale(vectorTop.map((h) => h.score), full?.unitsAtLeast(floor) ?? 0);
  const childKeyword = legScale(childBm25.values(), full?.childCount ?? childBm25.size, 0);
  const childVector = legScale(full?.topChildScores(FUSION_POOL) ?? [], full?.childCount ?? 0);
  const fusedOf = (id: string) => fuseLegs(keywordScale.z(unitBm25.get(id)), vectorScale.z(inVector(scan.unitCos(id))));

  const out: UnitCandidate[] = [];
  for (const id of legOf.keys()) {
    const record = partition.records.get(id) as Unit | undefined;
    if (!record) continue;
    const cos = scan.unitCos(id) ?? 0;
    const bm25 = unitBm25.get(id) ?? 0;
    const scored = partition
      .childrenOf(id)
      .filter((c): c is Child => (c.kind === 'atomic_fact' || c.kind === 'foresight') && scan.childCos(c.id) !== undefined)
      .map((c) => {
        const ccos = scan.childCos(c.id) ?? 0;
        const cbm25 = childBm25.get(c.id) ?? 0;
        const fused = fuseLegs(childKeyword.z(childBm25.get(c.id)), childVector.z(ccos));
        return { record: c, cos: ccos, bm25: cbm25, fused, score: relevance(fused, options.calibration.child) };
      })
      // Without the vector pass, facts of equal BM25 go by cosine, as their fused values ordered them.
      .sort((a, b) => b.score - a.score || (keywordOnly ? b.cos - a.cos : 0));
    const children = withoutTwins(scored);
    const fused = unitEvidence(fusedOf(id), children.map((c) => c.fused));
    out.push({ record, cos, bm25, fused, score: relevance(fused, options.calibration.unit), legs: legOf.get(id) ?? [], children });
  }
  out.sort((a, b) => b.fused - a.fused || (a.record.id < b.record.id ? -1 : 1));
  return out;
}

/**
 * A plan is often also a fact in the same words: each statement is shown once, as the plan when
 * one of its copies is a plan, else its best-scored copy. Children come best first; a child is
 * compared with the first other child of the same text (one pass, texts grouped in a map).
 */
export function withoutTwins(children: ScoredChild[]): ScoredChild[] {
  const byText = new Map<string, number[]>();
  children.forEach((c, i) => {
    const same = byText.get(c.record.content);
    if (same) same.push(i);
    else byText.set(c.record.content, [i]);
  });
  return children.filter((c, i) => {
    const same = byText.get(c.record.content)!;
    const twin = same[0] === i ? same[1] : same[0];
    if (twin === undefined) return true;
    if (c.record.kind !== children[twin]!.record.kind) return c.record.kind === 'foresight';
    return i < twin;
  });
}
