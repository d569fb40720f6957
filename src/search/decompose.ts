/**
 * Sub-queries for agentic search without an LLM. A question that joins several things ("which
 * cities have both Alice and Bob visited?", "did I spend more on the bike or the car?") has its
 * evidence in several places, and one query ranks whichever part its words favour. Each part is
 * asked on its own, with the question's frame kept around it: the question with the other joined
 * parts taken out. Plain string work on the question's own words, no model: it runs on every
 * host and costs microseconds. The expansion from round 1's best facts lives in `agentic.ts`.
 */

/** Words that join the parts of a question. */
const JOINER = /^(?:and|or|vs\.?|versus|than|,)$/i;
/** Words that announce a join but carry no content of their own. */
const MARKER = /^(?:both|either|neither|between)$/i;
/** Small words that may sit inside a name ("Museum of Modern Art"). */
const NAME_GLUE = /^(?:of|the|de|la|du|von|van|&)$/i;
/** At most this many sub-queries: each one is a full recall. */
export const MAX_SUBQUERIES = 4;

const isCapitalised = (word: string) => /^\p{Lu}/u.test(word) && !/^I(?:'|’|$)/u.test(word);

/** Words and commas of a question, punctuation at word ends dropped. */
function words(question: string): string[] {
  return question
    .replace(/,/g, ' , ')
    .split(/\s+/)
    .map((w) => (w === ',' ? w : w.replace(/^[("'“‘]+|[?.!;:)"'”’]+$/gu, '')))
    .filter(Boolean);
}

/** The length of the conjunct that ends at `end` (exclusive): a capitalised name, else up to two words. */
function leftConjunct(ws: string[], end: number): number {
  let start = end;
  if (end > 0 && isCapitalised(ws[end - 1]!)) {
    while (start > 1 && (isCapitalised(ws[start - 1]!) || (NAME_GLUE.test(ws[start - 1]!) && isCapitalised(ws[start - 2]!)))) start--;
    return end - start;
  }
  while (start > 0 && end - start < 2 && !JOINER.test(ws[start - 1]!) && !MARKER.test(ws[start - 1]!)) start--;
  // "the Effective Time Management workshop": a name before the last words belongs to them.
  while (start > 1 && isCapitalised(ws[start - 1]!)) start--;
  return end - start;
}

/** The length of the conjunct that starts at `start`: an article, then a capitalised name or up to two words. */
function rightConjunct(ws: string[], start: number): number {
  let end = start;
  if (end < ws.length && /^(?:the|my|a|an|his|her|their|our)$/i.test(ws[end]!)) end++;
  if (end < ws.length && isCapitalised(ws[end]!)) {
    while (end < ws.length && (isCapitalised(ws[end]!) || (NAME_GLUE.test(ws[end]!) && end + 1 < ws.length && isCapitalised(ws[end + 1]!)))) end++;
    return end - start;
  }
  const limit = end + 2;
  while (end < ws.length && end < limit && !JOINER.test(ws[end]!)) end++;
  return end - start;
}

/**
 * The parts a question joins, each as a sub-query that keeps the question's frame and drops the
 * other parts; empty when the question joins nothing (then agentic search is hybrid search).
 * The sub-queries are for bag-of-words recall, so they need not read as sentences.
 */
export function decomposeQuery(question: string): string[] {
  const ws = words(question.trim()).filter((w) => !MARKER.test(w));
  const words_ = ws.map((w) => w.toLowerCase());
  // A comma joins only inside a list ("Paris, Rome and Berlin"): a short item, then more of the list.
  const isJoin = (i: number) => {
    if (words_[i] !== ',') return JOINER.test(ws[i]!);
    const next = words_.findIndex((w, k) => k > i && (w === 'and' || w === 'or' || w === ','));
    return next > i && next - i <= 4;
  };
  const joins = ws.map((_, i) => (isJoin(i) ? i : -1)).filter((i) => i > 0 && i < ws.length - 1);
  if (joins.length === 0) return [];
  // The conjuncts around the joiners, left to right: [start, end) word ranges.
  const spans: [number, number][] = [];
  for (const j of joins) {
    const prev = spans[spans.length - 1];
    if (!prev || prev[1] !== j) spans.push([j - leftConjunct(ws, j), j]);
    const n = rightConjunct(ws, j + 1);
    if (n > 0) spans.push([j + 1, j + 1 + n]);
  }
  const conjuncts = spans.filter(([a, b]) => b > a && ws.slice(a, b).some((w) => w !== ','));
  if (conjuncts.length < 2) return [];
  const first = conjuncts[0]![0];
  const last = conjuncts[conjuncts.length - 1]![1];
  const head = ws.slice(0, first);
  const tail = ws.slice(last);
  const out: string[] = [];
  for (const [a, b] of conjuncts.slice(0, MAX_SUBQUERIES)) {
    const q = [...head, ...ws.slice(a, b), ...tail].filter((w, i, all) => !JOINER.test(w) && w.toLowerCase() !== all[i - 1]?.toLowerCase()).join(' ').replace(/\s+,/g, ',').trim();
    if (q && !out.includes(q)) out.push(q);
  }
  return out.length >= 2 ? out : [];
}
