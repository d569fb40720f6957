/**
 * Granularity competition (hybrid and agentic): which episodes a search returns, and for each
 * whether it is shown whole or by the facts that hold the evidence. The best `size` candidate
 * episodes by their own evidence form the list; then up to 3 facts of each listed episode compete
 * with the list: a fact that beats the lowest score in it (or any fact, while the list is not
 * full) wins, and is nested under its episode. A precise question (one fact holds the evidence)
 * gets the fact; a broad one (the evidence is spread over the conversation) gets the whole
 * episode. A place holds one episode with whichever of its facts won, so `size` is the number of
 * episode items returned (`top_k`), and nested facts never push other episodes out.
 *
 * Seed 001 also lets a fact of an episode outside the list evict the list's lowest item and bring
 * its parent in at the fact's score. Engram does not: an episode's evidence already counts its
 * best facts (scores.ts `unitEvidence`), and a fact's score, the best of many noisy ones, runs
 * high, so the eviction mostly swapped an episode that held the answer for one that did not.
 * Measured on LongMemEval-S, hybrid R_all@10 with the eviction and without it (`npm run
 * bench:quality`): fit half, user turns only, .948 and .970; report half .916 and .933; both
 * sides .950 and .958; and with the vector leg cut to 8 dimensions (`--embedder-dims 8`, a leg 28
 * points under keyword, as on conversations between people), .861 and .929, where keyword alone
 * gives .882.
 */
import type { ScoredChild, UnitCandidate } from './episode-track.js';
import { tieOrder } from '../records.js';

export const FACTS_PER_EPISODE = 3;

export interface CompetitionWinner {
  candidate: UnitCandidate;
  /** The episode's own calibrated score. */
  score: number;
  /** The facts that won, best first (empty when the episode is shown whole). */
  facts: ScoredChild[];
}

/** Runs the competition over candidates (in fusion order) for a list of `size` places. */
export function competeGranularity(candidates: readonly UnitCandidate[], size: number): CompetitionWinner[] {
  const places = candidates.slice(0, Math.max(0, size));
  // The bar a fact must beat: the lowest score in a full list; none while there is room.
  const bar = places.length >= size ? places.reduce((low, p) => Math.min(low, p.score), Infinity) : -Infinity;
  return places
    .map((candidate) => ({
      candidate,
      score: candidate.score,
      facts: candidate.children.slice(0, FACTS_PER_EPISODE).filter((c) => c.score > bar).sort((a, b) => b.score - a.score),
    }))
    .sort((a, b) => b.score - a.score || tieOrder(a.candidate.record, b.candidate.record));
}
