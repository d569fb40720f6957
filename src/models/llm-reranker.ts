/**
 * A `Reranker` that asks a chat model to grade candidates, for hosts that have an LLM but no
 * cross-encoder. One call grades every candidate, so the cost is one completion per query.
 */

import { completeJson } from './llm-json.js';
import type { Llm, ModelCallOptions, Reranker, RerankCandidate } from './ports.js';

/** Options of `createLlmReranker`. */
export interface LlmRerankerOptions {
  /** Candidate texts are cut to this many characters to bound the prompt. Default 600. */
  maxCandidateChars?: number;
}

const SCORES_SCHEMA = {
  type: 'object',
  properties: {
    scores: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'string' }, score: { type: 'number' } },
        required: ['id', 'score'],
        additionalProperties: false,
      },
    },
  },
  required: ['scores'],
  additionalProperties: false,
} as const satisfies Record<string, unknown>;

const SYSTEM_PROMPT = [
  'You grade how relevant passages are to a search query.',
  'For every passage give a score from 0 to 1: 1 = answers the query directly, 0.5 = related but incomplete, 0 = unrelated.',
  'Answer with JSON only: {"scores":[{"id":"<passage id>","score":<number>}]} with one entry per passage.',
].join('\n');

/**
 * Builds a `Reranker` on top of `llm`. Results are sorted by score, best first (input order breaks
 * ties); a candidate the model leaves out scores 0; scores are clamped to 0..1.
 */
export function createLlmReranker(llm: Llm, options: LlmRerankerOptions = {}): Reranker {
  const maxChars = options.maxCandidateChars ?? 600;

  async function rerank(query: string, candidates: readonly RerankCandidate[], callOptions: ModelCallOptions = {}): Promise<{ id: string; score: number }[]> {
    if (candidates.length === 0) return [];
    // Short labels instead of the caller's ids: models copy "p3" reliably, a UUID less so.
    const labels = candidates.map((_, index) => `p${index + 1}`);
    const passages = candidates.map((candidate, index) => `[${labels[index]}] ${oneLine(candidate.text, maxChars)}`).join('\n');
    const graded = await completeJson(
      llm,
      {
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: `Query: ${oneLine(query, maxChars)}\n\nPassages:\n${passages}` },
        ],
        jsonSchema: SCORES_SCHEMA,
        temperature: 0,
        maxTokens: 32 + 16 * candidates.length,
        ...(callOptions.signal === undefined ? {} : { signal: callOptions.signal }),
      },
      parseScores,
    );

    const byLabel = new Map<string, number>();
    for (const entry of graded) {
      // The first grade of a label counts; a model that repeats itself does not get two votes.
      if (!byLabel.has(entry.id)) byLabel.set(entry.id, clamp01(entry.score));
    }
    return candidates
      .map((candidate, index) => ({ id: candidate.id, score: byLabel.get(labels[index] ?? '') ?? 0, index }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .map(({ id, score }) => ({ id, score }));
  }

  return { id: `llm-rerank:${llm.id}`, rerank };
}

function parseScores(value: unknown): { id: string; score: number }[] | undefined {
  const scores = (value as { scores?: unknown } | null)?.scores;
  if (!Array.isArray(scores)) return undefined;
  const out: { id: string; score: number }[] = [];
  for (const item of scores) {
    const id = (item as { id?: unknown } | null)?.id;
    const raw = (item as { score?: unknown } | null)?.score;
    const score = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : Number.NaN;
    // Ids may come back bare ("p3") or bracketed ("[p3]"), as they appear in the prompt.
    if (typeof id === 'string' && Number.isFinite(score)) out.push({ id: id.replace(/^\[|\]$/g, '').trim(), score });
  }
  // Entries that exist but none of which can be read mean the model misunderstood: ask again.
  return scores.length > 0 && out.length === 0 ? undefined : out;
}

function clamp01(score: number): number {
  return Math.min(1, Math.max(0, score));
}

function oneLine(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat;
}
