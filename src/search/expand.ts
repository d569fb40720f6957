/**
 * Expansion from the best facts: agentic search's own second round, with no model. A question
 * names what it asks about in its own words; the conversations that hold the answer often name it
 * in theirs ("my cousin's wedding" found, "the ceremony in Napa" missed). Round 1's best units
 * show which words go with the question in this memory: a word their facts share (in at least two
 * of them, so one odd sentence cannot steer), that the question lacks and that is rare in the
 * memory, joins the question as a second query. How that round joins round 1 lives in `agentic.ts` (`mergeExpansion`).
 *
 * The three sizes below were chosen on the fit half of LongMemEval-S (`npm run bench:quality --
 * --half fit`), among 3 or 5 units, 2 or 3 facts and 3 or 5 words: reading deeper (5 units, 2
 * facts each) found the multi-session evidence that 3 units of 3 facts missed.
 */
import { tokenize, wordsWithTerms } from '../index/tokenizer.js';
import type { UnitCandidate } from './episode-track.js';

/** Round 1's best units whose facts are read. */
export const EXPANSION_UNITS = 5;
/** Facts (or other participants' passages) read per unit, its best first. */
export const EXPANSION_FACTS = 2;
/**
 * A word in more than this share of the memory's documents (episodes, facts, passages) runs
 * through the whole memory and says nothing about one question: in one person's chats "think"
 * is in a quarter of them, "helpful" and "recommend" in a tenth, while "orthopedic", "ribs" or
 * "breakfast" are in one or two of a hundred. Without this test, memories of only personal chats
 * (`npm run bench:quality -- --haystack personal`) lost four questions of the report half to
 * words like "really helpful", which is why it exists; its value was then chosen on the fit half
 * among 1, 2 and 5 %: 5 % lost three questions of such memories, 1 % one in protocol (c), 2 % none.
 */
export const COMMON_SHARE = 0.02;
/** Words added to the question, at most. */
export const EXPANSION_TERMS = 5;

/**
 * The question with the words round 1's best facts share, or null when they share none the
 * question lacks that is rare enough. Words are compared by their index term (`tokenize`: stemmed,
 * stop words out); a word that makes no single term (a run of Chinese, say) is not offered. `share`
 * gives a term's share of the memory's documents (none: every word is rare).
 */
export function expansionQuery(query: string, round1: readonly UnitCandidate[], share: (term: string) => number = () => 0): string | null {
  const asked = new Set(tokenize(query));
  // term → [units it appears in, first surface form, order of first sight]
  const seen = new Map<string, { units: Set<number>; surface: string; first: number }>();
  let order = 0;
  for (const [u, unit] of round1.slice(0, EXPANSION_UNITS).entries()) {
    for (const child of unit.children.slice(0, EXPANSION_FACTS)) {
      // Words as the index makes its terms, so a word's share is the share of the term it looks up.
      for (const { word, terms } of wordsWithTerms(child.record.evidence)) {
        const term = terms[0];
        if (terms.length !== 1 || !term || word.length < 4 || !/^\p{L}/u.test(word) || asked.has(term)) continue;
        const entry = seen.get(term) ?? { units: new Set<number>(), surface: word.replace(/['’]s$/u, ''), first: order++ };
        entry.units.add(u);
        seen.set(term, entry);
      }
    }
  }
  const shared = [...seen.entries()]
    .filter(([term, e]) => e.units.size >= 2 && share(term) <= COMMON_SHARE)
    .sort(([, a], [, b]) => b.units.size - a.units.size || a.first - b.first)
    .slice(0, EXPANSION_TERMS)
    .map(([, e]) => e.surface);
  return shared.length ? `${query.trim()} ${shared.join(' ')}` : null;
}
