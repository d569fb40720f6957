/**
 * Granularity competition (hybrid and agentic). The best `size` candidate episodes (in fusion
 * order) form the list; then, candidates taken best-first, up to 3 facts of each compete: a fact
 * enters while the list is not full or when its score beats the lowest score in the list, and
 * replaces its parent episode there. If the parent is in the list, the fact takes its place; if
 * not, the fact evicts the lowest item and comes back under its parent. Survivors are returned as
 * episodes, winning facts nested under their parent; a parent that was in the list keeps its own
 * score, one that came in through its fact carries the fact's. A precise question (one fact holds the evidence) gets the
 * fact; a broad one (the evidence is spread over the conversation) gets the whole episode.
 *
 * A place holds one episode with whichever of its facts won, so `size` is the number of episode
 * items returned (`top_k`), and nested facts never push other episodes out of the answer.
 */
import type { ScoredChild, UnitCandidate } from './episode-track.js';

export const FACTS_PER_EPISODE = 3;

export interface CompetitionWinner {
  candidate: UnitCandidate;
  score: number;
  /** The facts that won a place, best first (empty when the episode won as a whole). */
  facts: ScoredChild[];
  /** The fact the episode came in through, whose score it carries; null when it won its place itself. */
  via: ScoredChild | null;
}

/** Runs the competition over candidates (in fusion order) for a list of `size` places. */
export function competeGranularity(candidates: readonly UnitCandidate[], size: number): CompetitionWinner[] {
  const places: CompetitionWinner[] = candidates.slice(0, size).map((candidate) => ({ candidate, score: candidate.score, facts: [], via: null }));
  const placeOf = new Map(places.map((p) => [p.candidate.record.id, p]));
  const lowest = (): number => {
    let at = 0;
    for (let i = 1; i < places.length; i++) if (places[i]!.score < places[at]!.score) at = i;
    return at;
  };

  for (const candidate of candidates) {
    for (const child of candidate.children.slice(0, FACTS_PER_EPISODE)) {
      if (places.length === 0) break;
      const at = lowest();
      // A fact enters while the list is not full, or when it beats the lowest item there.
      if (places.length >= size && child.score <= places[at]!.score) continue;
      let place = placeOf.get(candidate.record.id);
      if (!place) {
        placeOf.delete(places[at]!.candidate.record.id);
        // The fact takes the evicted item's place at its own score.
        place = { candidate, score: child.score, facts: [], via: child };
        places[at] = place;
        placeOf.set(candidate.record.id, place);
      }
      // A parent already in the list keeps its own score: its evidence already counts its best
      // fact (search/scores.ts `unitEvidence`), so the fact adds detail, not a second vote.
      place.facts.push(child);
    }
  }
  for (const p of places) p.facts.sort((a, b) => b.score - a.score);
  return places.sort((a, b) => b.score - a.score || (a.candidate.record.id < b.candidate.record.id ? -1 : 1));
}
