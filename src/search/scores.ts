/**
 * Score arithmetic shared by the search methods. Raw measures (BM25, cosine) stay raw where the
 * contract says so; `calibrated` maps the two to one 0..1 relevance, the logistic fusion the
 * reference server uses, so `min_score` means the same thing for every method.
 */

export const RRF_K = 60;

/**
 * Orama scores a term once per document, divided by the document's length, which puts its BM25
 * roughly 2.5–5× below Okapi BM25 with raw term counts; this factor brings it back to the scale
 * EverOS's formulas were written for.
 */
export const ORAMA_TO_OKAPI = 4;

/** The logistic that maps a cosine and a (raw Orama) BM25 to a 0..1 relevance. */
export interface Calibration {
  cos: number;
  bm25: number;
  bias: number;
}

/** EverOS's logistic fusion `sigmoid(6.2747·cos + 0.09395·bm25 − 4.8581)`, on Orama's BM25 scale. */
export const EVEROS_CALIBRATION: Calibration = { cos: 6.2747, bm25: 0.09395 * ORAMA_TO_OKAPI, bias: -4.8581 };

/**
 * Constants per embedding model. A cosine means different things to different models, so the
 * reference server's constants (fitted for its own model) make poor probabilities here: for the
 * bundled model its blend gave a top answer 0.02. These keep EverOS's blend — its ranking
 * retrieves best — and rescale it (Platt scaling, `bench/calibrate.ts`: fitted on LongMemEval-S's
 * even-numbered questions, checked on the odd ones, held-out log loss 0.062 against 0.113), so a
 * score estimates the chance that an episode holds the answer.
 */
const FITTED: Record<string, Calibration> = {
  'engram-static-en@1.0.0': { cos: 15.8534, bm25: 0.9495, bias: -11.131 },
};

/** The calibration for an embedder: its own, a fitted one for a known model, else EverOS's. */
export function calibrationFor(embedder: { id: string; calibration?: Calibration | undefined }): Calibration {
  return embedder.calibration ?? FITTED[embedder.id] ?? EVEROS_CALIBRATION;
}

/** The calibrated 0..1 relevance of a cosine and a raw BM25. */
export function calibrated(cos: number, bm25: number, c: Calibration = EVEROS_CALIBRATION): number {
  return 1 / (1 + Math.exp(-(c.cos * cos + c.bm25 * bm25 + c.bias)));
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
