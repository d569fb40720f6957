/**
 * Agentic retrieval: round 1 recalls a wide pool; a reranker, when set, reorders its head, fused
 * with hybrid's order (`rerankUnits`). Without any model a second round still runs: a question
 * that joins several things is asked one part at a time (decompose.ts), and, with
 * `agenticExpansion`, the question is asked again with the words round 1's best facts share
 * (expand.ts); each joins round 1 so that its best places stay. Then, with an LLM, it judges
 * whether the top 10 are enough to answer. If not, it writes 2–3 supplementary queries (5–300
 * characters, none equal to the original) which run in parallel; everything is fused by RRF,
 * deduped, capped at 40 and reranked. Either round keeps at least what the caller asked for
 * (`top_k`, up to 100 for -1). Without an LLM, or when the LLM, the reranker or a round fails, it
 * answers with what the rounds before found and a notice says why.
 */
import { modelCallOptions, type Llm, type ModelCallOptions, type Reranker } from '../models/ports.js';
import { completeJson } from '../models/llm-json.js';
import { searchText, type MemoryRecord } from '../records.js';
import type { UnitCandidate } from './episode-track.js';
import { unlessFailed } from './degrade.js';
import { decomposeQuery } from './decompose.js';
import { expansionQuery } from './expand.js';
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
  /** How many candidates the caller wants back (the search's `top_k`, or its cap for -1). */
  keep: number;
  llm: Llm | null;
  reranker: Reranker | null;
  /** Hybrid recall of units for one query (already filtered to the owner and the filters). */
  recall: (query: string) => Promise<UnitCandidate[]>;
  /** The share of the searched memory's documents that hold a search term; given, the expansion round runs (expand.ts). */
  termShare?: (term: string) => number;
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

/**
 * Round 1's best this many are reranked; the rest keep their place. Chosen on the fit half of
 * LongMemEval-S (`npm run bench:quality -- --half fit --reranker teacher`) among 20 and 30.
 */
export const RERANK_UNITS = 20;
/**
 * An episode shows the reranker its subject and its best this many facts or passages for the
 * query, not its whole text: what it says about the question, in a few short lines a model reads
 * whole (a cross-encoder stops at 512 tokens, a conversation does not) and a cache can keep
 * (a fact's lines recur from one question to the next). Chosen on fit halves of LongMemEval-S
 * among 2, 4 and 8: 4 over 2 on its sessions; 8 over 4 by a rule set before the runs (at least as
 * good on each of three fit halves, better in their sum): R_all@10 equal in protocol (a), +1
 * question each on the `--haystack days` fit halves of (a) and (c), where a conversation has
 * several topics and 4 lines show only one. The rule weighed no cost; since the teacher's lines go
 * in batches of like length (segment-reranker.ts), a question over lines not yet embedded takes
 * about 3.0 s with 8 (`bench/teacher-thread.ts` on two cores), what it took with 4 before.
 */
export const RERANK_CHILDREN = 8;

/**
 * The given list's best this many keep their place; the reranker reorders what is below. Chosen on
 * the fit half among 0, 1 and 3 (in the runs that chose it): with 0, single-session questions'
 * one right answer sometimes left first place (nDCG@10 .939 against .942 with 1); 3 kept R_all@5
 * lower (.935 against .948).
 */
export const RERANK_HEAD = 1;

/** What the reranker reads for a candidate: an episode's subject and its best children, else the record's text. */
export function rerankText(candidate: UnitCandidate): string {
  const record = candidate.record;
  if (record.kind !== 'episode' || candidate.children.length === 0) return searchText(record);
  return [record.subject, ...candidate.children.slice(0, RERANK_CHILDREN).map((c) => searchText(c.record))].filter((line) => line.trim()).join('\n');
}

/** The texts a reranker may be handed for a stored record (see rerankText), to prepare ahead of queries. */
export function rerankTextsOf(record: MemoryRecord): string[] {
  if (record.kind === 'profile') return [];
  return [record.kind === 'episode' ? record.subject : searchText(record)];
}

/**
 * Reranks the first `RERANK_UNITS` candidates (given best first) with the configured reranker and,
 * below the first `RERANK_HEAD`, fuses its order with the given one (`fuseUnderHead`): the
 * reranker reads word order and context the hybrid legs do not, the given order holds what the
 * reranker's short view of a candidate misses, and a unit both put high stays high. Without a
 * reranker, or when it fails (`notice` says so), the calibrated order.
 */
export async function rerankUnits(reranker: Reranker | null, query: string, candidates: UnitCandidate[], keep: number, options: ModelCallOptions, notice?: AgenticDeps['notice']): Promise<UnitCandidate[]> {
  const calibrated = () => [...candidates].sort((a, b) => b.score - a.score).slice(0, keep);
  if (!reranker || candidates.length === 0) return calibrated();
  const read = candidates.slice(0, RERANK_UNITS);
  const scores = await unlessFailed(() => reranker.rerank(query, read.map((c) => ({ id: c.record.id, text: rerankText(c) })), options), options.signal, (code) => {
    notice?.('agentic.reranker_failed', `The reranker failed (${code}): candidates kept the calibrated hybrid order.`);
  });
  if (!scores) return calibrated();
  const byId = new Map(candidates.map((c) => [c.record.id, c]));
  const reranked = [...scores].sort((a, b) => b.score - a.score).flatMap((s) => byId.get(s.id) ?? []);
  return fuseUnderHead(candidates, reranked, RERANK_HEAD).slice(0, keep);
}

/**
 * `base` (best first) with its best `head` kept in place and, below them, its order and `other`'s
 * fused by RRF, so a unit both rank well rises and one only `other` found can enter. Scores follow
 * places: the i-th unit gets base's i-th best score (its last past its end; each unit keeps its
 * own children, base's copy where both hold it), so a score means on the wire what it means for
 * hybrid at that place, and the list stays in score order for the granularity competition.
 */
function fuseUnderHead(base: readonly UnitCandidate[], other: readonly UnitCandidate[], head: number): UnitCandidate[] {
  const first = base.slice(0, head);
  const fixed = new Set(first.map((c) => c.record.id));
  const byId = new Map<string, UnitCandidate>();
  for (const c of [...other, ...base]) byId.set(c.record.id, c);
  const rest = (list: readonly UnitCandidate[]) => list.map((c) => c.record.id).filter((id) => !fixed.has(id));
  const merged = [...first, ...rrf([rest(base), rest(other)]).map(({ id }) => byId.get(id)!)];
  const scores = base.map((c) => c.score).sort((a, b) => b - a);
  return merged.map((c, i) => ({ ...c, score: scores[Math.min(i, scores.length - 1)] ?? 0 }));
}

/**
 * Round 1 and the sub-queries' lists as one list. Round 1 is hybrid's answer to the whole
 * question, so its best `ROUND1_KEEP − m` stay (m: one place per part, at most a third of those
 * ten); each part whose own best candidate is not among them brings it into one of the next m
 * places, and round 1 fills what is left. A joined question thus gains the evidence of a part
 * that round 1 missed and risks only round 1's places 8–10. The places are
 * counted from the top, not from the end of what the caller asked for, so the first ten are the
 * same for a `top_k` of 10, 20 or -1 (an evaluation that asks for 20 and reads 10 sees what one
 * that asks for 10 sees). A part's candidate keeps its round-1 score when round 1 scored it (a
 * sub-query is narrower, so its scores run higher and would not compare), else it stands just
 * under the last fixed one.
 */
export function mergeRounds(round1: readonly UnitCandidate[], parts: readonly (readonly UnitCandidate[])[]): UnitCandidate[] {
  const m = Math.min(parts.length, Math.floor(ROUND1_KEEP / 3));
  const fixed = round1.slice(0, ROUND1_KEEP - m);
  const taken = new Set(fixed.map((c) => c.record.id));
  const inRound1 = new Map(round1.map((c) => [c.record.id, c]));
  const floor = fixed[fixed.length - 1]?.score;
  const extras: UnitCandidate[] = [];
  for (const list of parts) {
    const top = list[0];
    if (!top || taken.has(top.record.id) || extras.length >= m) continue;
    taken.add(top.record.id);
    extras.push(inRound1.get(top.record.id) ?? (floor === undefined ? top : { ...top, score: Math.min(top.score, floor) }));
  }
  const rest = round1.filter((c) => !taken.has(c.record.id));
  return [...fixed, ...extras, ...rest].slice(0, Math.max(round1.length, ROUND1_POOL));
}

/**
 * Round 1's best this many stay where they are when the expansion round joins it. Chosen on the
 * fit half between 0, 3 and 5: with none, an expansion that drifted could reorder the top of the
 * list (single-session nDCG fell); 5 left R_all@5 lower than 3 in protocols (a) and (b).
 */
export const EXPANSION_HEAD = 3;

/**
 * Round 1 and the expansion round as one list (`fuseUnderHead`). Round 1's best `EXPANSION_HEAD`
 * stay in place: the question's own words found them, and expansion is for what the question's
 * words missed. Below them both rounds fuse, and each place keeps round 1's score for it.
 */
export function mergeExpansion(round1: readonly UnitCandidate[], expansion: readonly UnitCandidate[]): UnitCandidate[] {
  return fuseUnderHead(round1, expansion, EXPANSION_HEAD);
}

/** Each candidate of several rounds once, as its best-scored copy, by id. */
function bestCopies(rounds: readonly (readonly UnitCandidate[])[]): Map<string, UnitCandidate> {
  const byId = new Map<string, UnitCandidate>();
  for (const c of rounds.flat()) {
    const known = byId.get(c.record.id);
    if (!known || c.score > known.score) byId.set(c.record.id, c);
  }
  return byId;
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
  const options = modelCallOptions(deps);
  const pool = (await deps.recall(query)).slice(0, Math.max(ROUND1_POOL, deps.keep));
  // Without a reranker round 1 is hybrid's own candidate list; with one, the same list reordered.
  let round1 = deps.reranker ? await rerankUnits(deps.reranker, query, pool, pool.length, options, deps.notice) : pool;
  if (!deps.reranker) deps.notice('agentic.no_reranker', 'No reranker is configured: round 1 kept the calibrated hybrid order.');
  let rounds = 1;
  const asked: string[] = [];

  // Without a model: a question that joins several things is also asked one part at a time.
  const parts = decomposeQuery(query);
  if (parts.length) {
    const lists = await unlessFailed(() => Promise.all(parts.map((q) => deps.recall(q))), deps.signal, (code) => {
      deps.notice('agentic.decompose_failed', `The sub-queries failed (${code}): returned round 1.`);
    });
    if (lists) {
      round1 = mergeRounds(round1, lists);
      rounds = 2;
      asked.push(...parts);
    }
  }
  // Then, when asked for, the words round 1's best facts share and the question lacks (expand.ts).
  const expanded = deps.termShare ? expansionQuery(query, pool, deps.termShare) : null;
  if (expanded) {
    const list = await unlessFailed(() => deps.recall(expanded), deps.signal, (code) => {
      deps.notice('agentic.expand_failed', `The expansion query failed (${code}): kept round 1.`);
    });
    if (list) {
      round1 = mergeExpansion(round1, list);
      rounds = 2;
      asked.push(expanded);
    }
  }
  const llm = deps.llm;
  if (!llm) {
    deps.notice('agentic.single_round', 'No LLM is configured: agentic search answered without a sufficiency check.');
    return { candidates: round1, rounds, sufficiency: null, supplementaryQueries: asked };
  }

  // The LLM is an aid, not a dependency: if it fails, the answer is round 1 and a notice says so.
  const askLlm = <T>(work: () => Promise<T>): Promise<T | undefined> =>
    unlessFailed(work, deps.signal, (code) => deps.notice('agentic.llm_failed', `The LLM call failed (${code}): returned round 1.`));

  const sufficiency = await askLlm(() => completeJson<Sufficiency>(
    llm,
    {
      ...options,
      temperature: 0,
      jsonSchema: SUFFICIENCY_SCHEMA,
      messages: [
        { role: 'system', content: 'You judge whether retrieved memories are enough to answer a question. Answer with JSON only.' },
        { role: 'user', content: `Question: ${query}\n\nRetrieved memories:\n${describe(round1.slice(0, ROUND1_KEEP)) || '(none)'}\n\nAre these enough to answer the question? Return {"is_sufficient": boolean, "reasoning": string, "missing_information": string}.` },
      ],
    },
    (v) => {
      const o = v as Partial<Sufficiency> | null;
      return o && typeof o.is_sufficient === 'boolean' ? { is_sufficient: o.is_sufficient, reasoning: String(o.reasoning ?? ''), missing_information: String(o.missing_information ?? '') } : undefined;
    },
  ));
  if (!sufficiency) return { candidates: round1, rounds, sufficiency: null, supplementaryQueries: asked };
  if (sufficiency.is_sufficient) return { candidates: round1, rounds, sufficiency, supplementaryQueries: asked };

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
  if (!proposed) return { candidates: round1, rounds, sufficiency, supplementaryQueries: asked };
  const queries = acceptQueries(query, proposed);
  if (queries.length === 0) {
    deps.notice('agentic.no_valid_queries', 'The LLM proposed no usable supplementary query: returned round 1.');
    return { candidates: round1, rounds, sufficiency, supplementaryQueries: asked };
  }
  const round2 = await unlessFailed(() => Promise.all(queries.map((q) => deps.recall(q))), deps.signal, (code) => {
    deps.notice('agentic.round2_failed', `Round 2 failed (${code}): returned round 1.`);
  });
  if (!round2) return { candidates: round1, rounds, sufficiency, supplementaryQueries: asked };
  const byId = bestCopies([round1, ...round2]);
  const cap = Math.max(ROUND2_CAP, deps.keep);
  const fused = rrf([round1.map((c) => c.record.id), ...round2.map((list) => list.map((c) => c.record.id))])
    .slice(0, cap)
    .map(({ id }) => byId.get(id)!);
  const reranked = await rerankUnits(deps.reranker, query, fused, cap, options, deps.notice);
  return { candidates: reranked, rounds: rounds + 1, sufficiency, supplementaryQueries: [...asked, ...queries] };
}
