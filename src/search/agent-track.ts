/**
 * Recall and ranking for the agent track: cases (what the agent did, how well) and skills (what
 * it learned to do). Hybrid fuses cases linearly (`0.7·cos + 0.3·s/(s+5)`) and orders skills by
 * rank fusion, then a reranker where one is configured; the opt-in LLM pass reranks cases and
 * drops skills it judges below 0.4. A reranker or LLM that fails leaves the fused order, with a
 * notice.
 */
import type { ParsedFilters } from '../contract/filters.js';
import type { SearchMethod } from '../contract/types.js';
import type { Partition } from '../index/partition.js';
import { modelCallOptions, type ModelCallOptions, type Reranker } from '../models/ports.js';
import type { AgentCaseRecord, AgentSkillRecord, MemoryRecord } from '../records.js';
import { searchText, tieOrder } from '../records.js';
import type { Leg } from './episode-track.js';
import { unlessFailed } from './degrade.js';
import { calibrated, caseScore, rrf, type Calibration } from './scores.js';

export const SKILL_VERIFY_FLOOR = 0.4;

export interface AgentTrackOptions extends ModelCallOptions {
  method: SearchMethod;
  filters: ParsedFilters | null;
  limit: number;
  radius: number | null;
  minScore: number | null;
  reranker: Reranker | null;
  /** The LLM-backed reranker used when `enable_llm_rerank` is set and an LLM is configured. */
  llmReranker: Reranker | null;
  /** How cosine and BM25 become the 0..1 relevance `min_score` floors in keyword and vector searches. */
  calibration: Calibration;
  /** Reports a degraded path (a failed reranker or LLM). */
  notice: (code: string, message: string) => void;
}

export interface AgentHit<R> {
  record: R;
  score: number;
  relevance: number;
  /** Raw cosine with the query. */
  cos: number;
  /** The recall legs that found it. */
  legs: Leg[];
}

export interface AgentTrackResult {
  cases: AgentHit<AgentCaseRecord>[];
  skills: AgentHit<AgentSkillRecord>[];
}

interface Scored<R> {
  record: R;
  cos: number;
  bm25: number;
  inKeyword: boolean;
  inVector: boolean;
}

function recall<R extends MemoryRecord>(partition: Partition, kind: 'agent_case' | 'agent_skill', query: string, queryVector: Float32Array, options: AgentTrackOptions): Scored<R>[] {
  const { keyword, vector } = partition.indexes();
  const passes = (r: MemoryRecord) => !options.filters || options.filters.test(r);
  const pool = options.limit * 2;
  const all = new Map<string, Scored<R>>();
  const entry = (id: string): Scored<R> | undefined => {
    let e = all.get(id);
    if (!e) {
      const record = partition.records.get(id);
      if (!record || record.kind !== kind || !passes(record)) return undefined;
      e = { record: record as R, cos: 0, bm25: 0, inKeyword: false, inVector: false };
      all.set(id, e);
    }
    return e;
  };
  const kHits = keyword.search(query, [kind]).filter((h) => entry(h.id));
  kHits.forEach((h, i) => {
    const e = entry(h.id)!;
    e.bm25 = h.score;
    e.inKeyword = i < pool;
  });
  let rank = 0;
  for (const h of vector.search(queryVector, [kind])) {
    const e = all.get(h.id) ?? (h.score >= (options.radius ?? -Infinity) ? entry(h.id) : undefined);
    if (!e) continue;
    e.cos = h.score;
    if (h.score >= (options.radius ?? -Infinity) && rank < pool) {
      e.inVector = true;
      rank++;
    }
  }
  return [...all.values()];
}

/** The hits in the reranker's order, or undefined when it failed (the caller keeps its order). */
async function rerankHits<R extends MemoryRecord>(reranker: Reranker, query: string, hits: AgentHit<R>[], options: ModelCallOptions, onFailure: (code: string) => void): Promise<AgentHit<R>[] | undefined> {
  if (hits.length === 0) return hits;
  const scores = await unlessFailed(() => reranker.rerank(query, hits.map((h) => ({ id: h.record.id, text: searchText(h.record) })), options), options.signal, onFailure);
  if (!scores) return undefined;
  const byId = new Map(scores.map((s) => [s.id, s.score]));
  return hits.map((h) => ({ ...h, score: byId.get(h.record.id) ?? 0 })).sort((a, b) => b.score - a.score);
}

const byScore = <T extends { score: number; record: MemoryRecord }>(a: T, b: T) => b.score - a.score || tieOrder(a.record, b.record);

const found = <R>(s: Scored<R>) => ({ record: s.record, cos: s.cos, legs: [...(s.inKeyword ? ['keyword' as const] : []), ...(s.inVector ? ['vector' as const] : [])] });

/** Ranks one kind for keyword / vector (raw measures) or hybrid / agentic (fused). */
function rank<R extends MemoryRecord>(scored: Scored<R>[], method: SearchMethod, fuse: 'linear' | 'rrf', calibration: Calibration): AgentHit<R>[] {
  if (method === 'keyword') {
    return scored.filter((s) => s.inKeyword).map((s) => ({ ...found(s), score: s.bm25, relevance: calibrated(s.cos, s.bm25, calibration) })).sort(byScore);
  }
  if (method === 'vector') {
    return scored.filter((s) => s.inVector).map((s) => ({ ...found(s), score: s.cos, relevance: calibrated(s.cos, s.bm25, calibration) })).sort(byScore);
  }
  const pooled = scored.filter((s) => s.inKeyword || s.inVector);
  if (fuse === 'linear') {
    return pooled.map((s) => ({ ...found(s), score: caseScore(s.cos, s.bm25), relevance: caseScore(s.cos, s.bm25) })).sort(byScore);
  }
  const order = rrf([
    pooled.filter((s) => s.inKeyword).sort((a, b) => b.bm25 - a.bm25 || tieOrder(a.record, b.record)).map((s) => s.record.id),
    pooled.filter((s) => s.inVector).sort((a, b) => b.cos - a.cos || tieOrder(a.record, b.record)).map((s) => s.record.id),
  ]);
  const byId = new Map(pooled.map((s) => [s.record.id, s]));
  // RRF orders; the reported score is the calibrated 0..1 fusion so it can be compared and floored.
  return order.map(({ id }) => {
    const s = byId.get(id)!;
    const score = caseScore(s.cos, s.bm25);
    return { ...found(s), score, relevance: score };
  });
}

/** Cases and skills of an agent partition for one query. */
export async function searchAgentTrack(partition: Partition, query: string, queryVector: Float32Array, options: AgentTrackOptions, useLlmRerank: boolean): Promise<AgentTrackResult> {
  const fused = options.method === 'hybrid' || options.method === 'agentic';
  let cases = rank(recall<AgentCaseRecord>(partition, 'agent_case', query, queryVector, options), options.method, 'linear', options.calibration);
  let skills = rank(recall<AgentSkillRecord>(partition, 'agent_skill', query, queryVector, options), options.method, 'rrf', options.calibration);
  const callOptions = modelCallOptions(options);
  if (fused && options.reranker) {
    skills = (await rerankHits(options.reranker, query, skills.slice(0, options.limit * 2), callOptions, (code) => {
      options.notice('reranker.failed', `The reranker failed (${code}): skills kept their fused order.`);
    })) ?? skills;
  }
  if (fused && useLlmRerank && options.llmReranker) {
    const llmReranker = options.llmReranker;
    let failed = false;
    const onFailure = (code: string) => {
      if (!failed) options.notice('llm_rerank.failed', `enable_llm_rerank was set but the LLM failed (${code}): cases and skills kept their fused order.`);
      failed = true;
    };
    const reranked = await rerankHits(llmReranker, query, cases.slice(0, options.limit * 2), callOptions, onFailure);
    // One failure is enough: a loading or failed LLM is not asked twice for the same search.
    const verified = failed ? undefined : await rerankHits(llmReranker, query, skills.slice(0, options.limit * 2), callOptions, onFailure);
    if (reranked && verified) {
      cases = reranked;
      skills = verified.filter((s) => s.score >= SKILL_VERIFY_FLOOR);
    }
  }
  if (fused) {
    for (const list of [cases, skills] as AgentHit<MemoryRecord>[][]) for (const h of list) h.relevance = h.score;
  }
  const floor = options.minScore ?? -Infinity;
  return {
    cases: cases.filter((h) => h.relevance >= floor).slice(0, options.limit),
    skills: skills.filter((h) => h.relevance >= floor).slice(0, options.limit),
  };
}
