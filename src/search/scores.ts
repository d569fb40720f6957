/**
 * Score arithmetic shared by the search methods. Raw measures (BM25, cosine) stay raw where the
 * contract says so; `calibrated` maps the two to one 0..1 relevance, the logistic fusion the
 * reference server uses, so `min_score` means the same thing for every method.
 */

export const RRF_K = 60;

/**
 * The reference constants below were fitted on Okapi BM25 with raw term counts. Orama scores a
 * term once per document, divided by the document's length, which puts its BM25 roughly 2.5–5×
 * lower; this factor brings it back to that scale. On LongMemEval-S any value from 3 to 8 gives
 * the same hybrid quality within ±0.01 (see README, "Retrieval quality").
 */
export const ORAMA_TO_OKAPI = 4;

/** EverOS's logistic fusion of cosine and BM25 into a 0..1 relevance. */
export function calibrated(cos: number, bm25: number): number {
  return 1 / (1 + Math.exp(-(6.2747 * cos + 0.09395 * ORAMA_TO_OKAPI * bm25 - 4.8581)));
}

/** Agent-case fusion: mostly meaning, some exact wording (BM25 squashed into 0..1). */
export function caseScore(cos: number, bm25: number): number {
  const s = ORAMA_TO_OKAPI * bm25;
  return 0.7 * Math.max(0, cos) + 0.3 * (s / (s + 5));
}

/** Reciprocal-rank fusion of ranked id lists; returns ids best first with their fused score. */
export function rrf(lists: readonly (readonly string[])[], k = RRF_K): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/** Rounds a score for the wire (stable output, no float noise). */
export function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}
