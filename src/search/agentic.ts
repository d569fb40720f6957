/**
 * Agentic retrieval: round 1 recalls a wide pool and reranks it to 10; an LLM judges whether
 * that is enough to answer. If not, it writes 2–3 supplementary queries (5–300 characters, none
 * equal to the original) which run in parallel as round 2; everything is fused by RRF, deduped,
 * capped at 40 and reranked. Without an LLM it answers after round 1 and reports why.
 */
import type { Llm, ModelCallOptions, Reranker } from '../models/ports.js';
import { isMemoryError } from '../errors.js';
import { completeJson } from '../models/llm-json.js';
import { searchText } from '../records.js';
import type { UnitCandidate } from './episode-track.js';
import { rrf } from './scores.js';

export const ROUND1_POOL = 50;
export const ROUND1_KEEP = 10;
export const ROUND2_CAP = 40;
export const MIN_QUERY_CHARS = 5;
export const MAX_QUERY_CHARS = 300;

export interface Sufficiency {
  is_sufficient: boolean;
  reasoning: string;
  missing_information: string;
}

const SUFFICIENCY_SCHEMA = {
  type: 'object',
  properties: {
    is_sufficient: { type: 'boolean' },
    reasoning: { type: 'string' },
    missing_information: { type: 'string' },
  },
  required: ['is_sufficient', 'reasoning', 'missing_information'],
} as const;

const QUERIES_SCHEMA = {
  type: 'object',
  properties: { queries: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 3 } },
  required: ['queries'],
} as const;

export interface AgenticDeps extends ModelCallOptions {
  llm: Llm | null;
  reranker: Reranker | null;
  /** Hybrid recall of units for one query (already filtered to the owner and the filters). */
  recall: (query: string) => Promise<UnitCandidate[]>;
  notice: (code: string, message: string) => void;
}

export interface AgenticResult {
  candidates: UnitCandidate[];
  rounds: number;
  sufficiency: Sufficiency | null;
  supplementaryQueries: string[];
}

function describe(candidates: readonly UnitCandidate[]): string {
  return candidates.map((c, i) => `[${i + 1}] ${searchText(c.record).slice(0, 600).replace(/\s+/g, ' ')}`).join('\n');
}

/** Reranks candidates with the configured reranker (its 0..1 score becomes theirs), or keeps the calibrated order without one. */
export async function rerankUnits(reranker: Reranker | null, query: string, candidates: UnitCandidate[], keep: number, options: ModelCallOptions): Promise<UnitCandidate[]> {
  if (!reranker || candidates.length === 0) return [...candidates].sort((a, b) => b.score - a.score).slice(0, keep);
  const scores = await reranker.rerank(query, candidates.map((c) => ({ id: c.record.id, text: searchText(c.record) })), options);
  const byId = new Map(scores.map((s) => [s.id, s.score]));
  return candidates
    .map((c) => ({ ...c, score: byId.get(c.record.id) ?? 0 }))
    .sort((a, b) => b.score - a.score)
    .slice(0, keep);
}

/** Keeps the supplementary queries that follow the rules (length, not the original, no repeats). */
export function acceptQueries(original: string, proposed: unknown[]): string[] {
  const seen = new Set([original.trim().toLowerCase()]);
  const out: string[] = [];
  for (const q of proposed) {
    if (typeof q !== 'string') continue;
    const text = q.trim();
    const key = text.toLowerCase();
    if (text.length < MIN_QUERY_CHARS || text.length > MAX_QUERY_CHARS || seen.has(key)) continue;
    seen.add(key);
    out.push(text);
    if (out.length === 3) break;
  }
  return out;
}

/** Runs agentic retrieval for one query. */
export async function agenticRetrieve(query: string, deps: AgenticDeps): Promise<AgenticResult> {
  const options: ModelCallOptions = deps.signal ? { signal: deps.signal } : {};
  const pool = (await deps.recall(query)).slice(0, ROUND1_POOL);
  const round1 = await rerankUnits(deps.reranker, query, pool, ROUND1_KEEP, options);
  if (!deps.reranker) deps.notice('agentic.no_reranker', 'No reranker is configured: round 1 kept the calibrated hybrid order.');
  const llm = deps.llm;
  if (!llm) {
    deps.notice('agentic.single_round', 'No LLM is configured: agentic search answered after round 1 without a sufficiency check.');
    return { candidates: round1, rounds: 1, sufficiency: null, supplementaryQueries: [] };
  }

  // The LLM is an aid, not a dependency: if it fails, the answer is round 1 and a notice says so.
  const askLlm = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      if (deps.signal?.aborted || (isMemoryError(error) && error.code === 'ABORTED')) throw error;
      deps.notice('agentic.llm_failed', `The LLM call failed (${isMemoryError(error) ? error.code : 'error'}): returned round 1.`);
      return undefined;
    }
  };

  const sufficiency = await askLlm(() => completeJson<Sufficiency>(
    llm,
    {
      ...options,
      temperature: 0,
      jsonSchema: SUFFICIENCY_SCHEMA,
      messages: [
        { role: 'system', content: 'You judge whether retrieved memories are enough to answer a question. Answer with JSON only.' },
        { role: 'user', content: `Question: ${query}\n\nRetrieved memories:\n${describe(round1) || '(none)'}\n\nAre these enough to answer the question? Return {"is_sufficient": boolean, "reasoning": string, "missing_information": string}.` },
      ],
    },
    (v) => {
      const o = v as Partial<Sufficiency> | null;
      return o && typeof o.is_sufficient === 'boolean' ? { is_sufficient: o.is_sufficient, reasoning: String(o.reasoning ?? ''), missing_information: String(o.missing_information ?? '') } : undefined;
    },
  ));
  if (!sufficiency) return { candidates: round1, rounds: 1, sufficiency: null, supplementaryQueries: [] };
  if (sufficiency.is_sufficient) return { candidates: round1, rounds: 1, sufficiency, supplementaryQueries: [] };

  const proposed = await askLlm(() => completeJson<unknown[]>(
    llm,
    {
      ...options,
      temperature: 0,
      jsonSchema: QUERIES_SCHEMA,
      messages: [
        { role: 'system', content: 'You write search queries that find missing information in a personal memory store. Answer with JSON only.' },
        { role: 'user', content: `Original question: ${query}\nMissing information: ${sufficiency.missing_information}\n\nWrite 2 or 3 different search queries (each 5 to 300 characters, none equal to the original question) that would find the missing information. Return {"queries": [string, ...]}.` },
      ],
    },
    (v) => {
      const q = (v as { queries?: unknown } | null)?.queries;
      return Array.isArray(q) ? q : undefined;
    },
  ));
  if (!proposed) return { candidates: round1, rounds: 1, sufficiency, supplementaryQueries: [] };
  const queries = acceptQueries(query, proposed);
  if (queries.length === 0) {
    deps.notice('agentic.no_valid_queries', 'The LLM proposed no usable supplementary query: returned round 1.');
    return { candidates: round1, rounds: 1, sufficiency, supplementaryQueries: [] };
  }
  const round2 = await Promise.all(queries.map((q) => deps.recall(q)));
  const byId = new Map<string, UnitCandidate>();
  for (const c of [...round1, ...round2.flat()]) {
    const known = byId.get(c.record.id);
    if (!known || c.score > known.score) byId.set(c.record.id, c);
  }
  const fused = rrf([round1.map((c) => c.record.id), ...round2.map((list) => list.map((c) => c.record.id))])
    .slice(0, ROUND2_CAP)
    .map(({ id }) => byId.get(id)!);
  const reranked = await rerankUnits(deps.reranker, query, fused, ROUND2_CAP, options);
  return { candidates: reranked, rounds: 2, sufficiency, supplementaryQueries: queries };
}
