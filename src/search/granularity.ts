/**
 * Granularity competition (hybrid and agentic): candidate episodes are taken best-first; each
 * enters a top-N list, then up to 3 of its facts try to. A fact enters when the list has room or
 * it beats the lowest item there (which it evicts), and an episode whose fact got in is replaced
 * by it. The survivors come back as episodes, facts nested under their parent, the parent
 * carrying its best fact's score; so a precise question gets the fact and a broad one the
 * whole episode, without the caller choosing.
 */
import type { ScoredChild, UnitCandidate } from './episode-track.js';

export const FACTS_PER_EPISODE = 3;

type Slot =
  | { type: 'unit'; unitId: string; score: number }
  | { type: 'child'; unitId: string; child: ScoredChild; score: number };

export interface CompetitionWinner {
  candidate: UnitCandidate;
  score: number;
  /** The facts that won a place, best first (empty when the episode won as a whole). */
  facts: ScoredChild[];
}

/** Runs the competition over candidates (in the order given) for a list of `size` items. */
export function competeGranularity(candidates: readonly UnitCandidate[], size: number): CompetitionWinner[] {
  const slots: Slot[] = [];
  const lowest = (): number => {
    let at = 0;
    for (let i = 1; i < slots.length; i++) if (slots[i]!.score < slots[at]!.score) at = i;
    return at;
  };
  const offer = (slot: Slot): boolean => {
    if (slots.length < size) {
      slots.push(slot);
      return true;
    }
    const at = lowest();
    if (slot.score <= slots[at]!.score) return false;
    slots[at] = slot;
    return true;
  };

  for (const candidate of candidates) {
    const unitId = candidate.record.id;
    offer({ type: 'unit', unitId, score: candidate.score });
    for (const child of candidate.children.slice(0, FACTS_PER_EPISODE)) {
      if (!offer({ type: 'child', unitId, child, score: child.score })) continue;
      const own = slots.findIndex((s) => s.type === 'unit' && s.unitId === unitId);
      if (own >= 0) slots.splice(own, 1);
    }
  }

  const byUnit = new Map<string, CompetitionWinner>();
  const candidateOf = new Map(candidates.map((c) => [c.record.id, c]));
  for (const slot of slots) {
    const candidate = candidateOf.get(slot.unitId)!;
    const winner = byUnit.get(slot.unitId) ?? { candidate, score: -Infinity, facts: [] };
    if (slot.type === 'child') winner.facts.push(slot.child);
    winner.score = Math.max(winner.score, slot.score);
    byUnit.set(slot.unitId, winner);
  }
  const winners = [...byUnit.values()];
  for (const w of winners) w.facts.sort((a, b) => b.score - a.score);
  return winners.sort((a, b) => b.score - a.score || (a.candidate.record.id < b.candidate.record.id ? -1 : 1));
}
