/**
 * Sub-queries for agentic search without an LLM. A question that joins several things ("which
 * cities have both Alice and Bob visited?", "did I spend more on the bike or the car?") has its
 * evidence in several places, and one query ranks whichever part its words favour. Each part is
 * asked on its own, with the question's frame kept around it: the question with the other joined
 * parts taken out. Plain string work on the question's own words, no model: it runs on every
 * host and costs microseconds. How the parts' answers join round 1's lives in `agentic.ts`
 * (`mergeRounds`).
 */

/** Words that join the parts of a question. */
const JOINER = /^(?:and|or|vs\.?|versus|than|,)$/i;
/** Words that announce a join but carry no content of their own. */
const MARKER = /^(?:both|either|neither|between)$/i;
/** Small words that may sit inside a name ("Museum of Modern Art"). */
const NAME_GLUE = /^(?:of|the|de|la|du|von|van|&)$/i;
/**
 * Words after a joiner that start a clause rather than a second part: a pronoun ("and I was
 * wondering", "than me"), or a question word ("…, and how much did he pay for it?", "Why or why
 * not?"): a second question about the same thing, not a second thing to look for.
 */
const CLAUSE_START = /^(?:I|me|you|we|us|they|them|he|him|she|her|it|what|how|who|whom|whose|where|when|which|why)$/i;
/** Prepositions that may lead a question word into a second question ("…, and for what roles?", "and by what scores?"). */
const PREPOSITION = /^(?:for|by|in|with|to|at|from|on|of|about)$/i;

/** Whether the words from `i` start a clause: a pronoun or question word, or one led by a preposition ("for what"). */
function startsClause(ws: readonly string[], i: number): boolean {
  return CLAUSE_START.test(ws[i]!) || (PREPOSITION.test(ws[i]!) && i + 1 < ws.length && /^(?:what|which|whom|whose|where|when|how)$/i.test(ws[i + 1]!));
}

/** At most this many sub-queries: each one is a full recall. */
export const MAX_SUBQUERIES = 4;

/** A name's possessive ending ("Evelyn's", "James’"). */
const POSSESSIVE = /\p{L}(?:['’]s|s['’])$/u;

const isCapitalised = (word: string) => /^\p{Lu}/u.test(word) && !/^I(?:'|’|$)/u.test(word);

/** Words and commas of a question, punctuation at word ends dropped. */
function words(question: string): string[] {
  return question
    .replace(/,/g, ' , ')
    // A sentence end is a hard stop: a conjunct never runs into the next sentence.
    .replace(/(\p{Ll}{2,}|\d)[.?!;]+(?=\s)/gu, '$1 . ')
    .split(/\s+/)
    .map((w) => (w === ',' || w === '.' ? w : w.replace(/^[("'“‘]+|[?.!;:)"'”’]+$/gu, '')))
    .filter(Boolean);
}

/** The length of the conjunct that ends at `end` (exclusive): a capitalised name, else up to two words. */
function leftConjunct(ws: string[], end: number): number {
  let start = end;
  if (end > 0 && isCapitalised(ws[end - 1]!)) {
    while (start > 1 && (isCapitalised(ws[start - 1]!) || (NAME_GLUE.test(ws[start - 1]!) && isCapitalised(ws[start - 2]!)))) start--;
    return end - start;
  }
  while (start > 0 && end - start < 2 && !JOINER.test(ws[start - 1]!) && !MARKER.test(ws[start - 1]!) && ws[start - 1] !== '.') start--;
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
    // "Harold's dog and Evelyn's cat": a name's possession is the part, not the name alone.
    if (POSSESSIVE.test(ws[end - 1]!) && end < ws.length && /^\p{Ll}/u.test(ws[end]!) && !JOINER.test(ws[end]!)) end++;
    return end - start;
  }
  const limit = end + 2;
  while (end < ws.length && end < limit && !JOINER.test(ws[end]!) && ws[end] !== '.') end++;
  return end - start;
}

/**
 * "between A and B", "both A and B", "either A or B": the marker says where the first part
 * starts, and when it is not a name ("the Sunday mass at St. Mary's Church") the second runs to
 * the end of its clause ("the Ash Wednesday service at the cathedral"). Null when the question
 * has no marked join, or its parts are names (the general rule handles those).
 */
function markedParts(question: string): string[] | null {
  const m = /\b(?:between|both|either|neither)\s+(.+?)\s+(?:and|or|nor)\s+([^,?!;]+?)(?=[,?!;]|\.(?:\s|$)|$)/i.exec(question);
  if (!m) return null;
  const left = m[1]!.trim();
  const right = m[2]!.trim();
  const isName = (text: string) => text.split(/\s+/).every((w) => isCapitalised(w) || NAME_GLUE.test(w));
  if (isName(left) || /^not\b/i.test(right)) return null;
  const before = question.slice(0, m.index).trim();
  const after = question.slice(m.index + m[0].length).replace(/^[?.!\s]+/, '').trim();
  const parts = [left, right].map((part) => [before, part, after].filter(Boolean).join(' ').replace(/[?.!]+$/, '').trim());
  return parts[0] !== parts[1] ? parts : null;
}

/**
 * The parts a question joins, each as a sub-query that keeps the question's frame and drops the
 * other parts; empty when the question joins nothing (then agentic search is hybrid search).
 * The sub-queries are for bag-of-words recall, so they need not read as sentences.
 */
export function decomposeQuery(question: string): string[] {
  const marked = markedParts(question.trim());
  if (marked) return marked;
  const ws = words(question.trim()).filter((w) => !MARKER.test(w));
  const words_ = ws.map((w) => w.toLowerCase());
  // A comma joins only inside a list ("Paris, Rome and Berlin"): a short item, then more of the list.
  const isJoin = (i: number) => {
    if (words_[i] !== ',') return JOINER.test(ws[i]!);
    const next = words_.findIndex((w, k) => k > i && (w === 'and' || w === 'or' || w === ','));
    return next > i && next - i <= 4;
  };
  // A pronoun or a question word after the joiner starts a clause, not a part.
  const joins = ws.map((_, i) => (isJoin(i) ? i : -1)).filter((i) => i > 0 && i < ws.length - 1 && !startsClause(ws, i + 1) && ws[i + 1] !== '.' && ws[i - 1] !== '.');
  if (joins.length === 0) return [];
  // The conjuncts around the joiners, left to right: [start, end) word ranges.
  // Only the first run of joined parts is split: a second one elsewhere ("a journal called Music
  // and Medicine") stays in the frame, so no part loses the rest of the question.
  const spans: [number, number][] = [];
  for (const j of joins) {
    const prev = spans[spans.length - 1];
    if (prev && ws.slice(prev[1], j).some((w) => !JOINER.test(w))) break;
    if (!prev) spans.push([j - leftConjunct(ws, j), j]);
    const n = rightConjunct(ws, j + 1);
    if (n > 0) spans.push([j + 1, j + 1 + n]);
  }
  const conjuncts = spans.filter(([a, b]) => b > a && ws.slice(a, b).some((w) => w !== ','));
  if (conjuncts.length < 2 || conjuncts.some(([a, b]) => b - a === 1 && /^not$/i.test(ws[a]!))) return [];
  // A list of single words ("workshops, lectures, and conferences") has single-word ends too.
  if (conjuncts.length >= 3 && conjuncts.slice(1, -1).every(([a, b]) => b - a === 1)) {
    const head = conjuncts[0]!;
    const end = conjuncts[conjuncts.length - 1]!;
    head[0] = head[1] - 1;
    const article = /^(?:the|my|a|an|his|her|their|our)$/i.test(ws[end[0]]!) ? 1 : 0;
    // A name at the end keeps all its words ("…, Midsommarfest and Pierogi Fest").
    if (!isCapitalised(ws[end[0] + article]!)) end[1] = end[0] + article + 1;
  }
  const first = conjuncts[0]![0];
  const last = conjuncts[conjuncts.length - 1]![1];
  const head = ws.slice(0, first);
  const tail = ws.slice(last);
  const out: string[] = [];
  for (const [a, b] of conjuncts.slice(0, MAX_SUBQUERIES)) {
    const q = [...head, ...ws.slice(a, b), ...tail].filter((w, i, all) => !JOINER.test(w) && w !== '.' && w.toLowerCase() !== all[i - 1]?.toLowerCase()).join(' ').replace(/\s+,/g, ',').trim();
    if (q && !out.includes(q)) out.push(q);
  }
  return out.length >= 2 ? out : [];
}
