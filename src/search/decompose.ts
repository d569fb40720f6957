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

/** Words that open a noun phrase before its noun or name ("the", "my", "a"). */
const ARTICLE = /^(?:the|my|a|an|his|her|their|our)$/i;

/** A name's possessive ending ("Evelyn's", "James’"). */
const POSSESSIVE = /\p{L}(?:['’]s|s['’])$/u;

const isCapitalised = (word: string) => /^\p{Lu}/u.test(word) && !/^I(?:'|’|$)/u.test(word);

/** Word-start characters `words` drops (opening brackets and quotes). */
const OPENERS = new Set('("\'“‘');
/** Word-end characters `words` drops (closing punctuation, brackets and quotes). */
const CLOSERS = new Set('?.!;:)"\'”’');
/** A sentence's end marks, dropped from the end of a marked part's sub-query. */
const ENDS = new Set('?.!');
const NONE: ReadonlySet<string> = new Set();

/** `text` less its first run of `lead` characters and then its last run of `trail` ones. */
function strip(text: string, lead: ReadonlySet<string>, trail: ReadonlySet<string>): string {
  // A loop, not `/^[…]+|[…]+$/` or `/[…]+$/`: such a regex tries its end anchor from every
  // character of a run ("??…?a" is retried from each "?"), quadratic in one long hostile word.
  let start = 0;
  let end = text.length;
  while (start < end && lead.has(text[start]!)) start++;
  while (end > start && trail.has(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/** Words and commas of a question, punctuation at word ends dropped. */
function words(question: string): string[] {
  return question
    .replace(/,/g, ' , ')
    // A sentence end is a hard stop: a conjunct never runs into the next sentence. A lookbehind,
    // not a captured `\p{Ll}{2,}`: that one ran each letter run to its end from every letter
    // ("aaaa…" is quadratic); the words are the same.
    .replace(/(?<=\p{Ll}{2}|\d)[.?!;]+(?=\s)/gu, ' . ')
    .split(/\s+/)
    .map((w) => (w === ',' || w === '.' ? w : strip(w, OPENERS, CLOSERS)))
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

/**
 * Where the name at each word runs to (exclusive; the word itself when it starts none), and
 * whether that name's last word is a possessive. One right-to-left pass per question: in "Or Or
 * Or …" every joiner is also a name word, and following the name to its end from each joiner
 * (and testing its last word, however long) made such a query quadratic.
 */
interface Names {
  end: number[];
  possessive: boolean[];
}

function names(ws: readonly string[]): Names {
  const end = new Array<number>(ws.length);
  const possessive = new Array<boolean>(ws.length);
  for (let i = ws.length - 1; i >= 0; i--) {
    const inName = isCapitalised(ws[i]!) || (NAME_GLUE.test(ws[i]!) && i + 1 < ws.length && isCapitalised(ws[i + 1]!));
    const continues = inName && i + 1 < ws.length && end[i + 1]! > i + 1;
    end[i] = !inName ? i : continues ? end[i + 1]! : i + 1;
    possessive[i] = !inName ? false : continues ? possessive[i + 1]! : POSSESSIVE.test(ws[i]!);
  }
  return { end, possessive };
}

/** The length of the conjunct that starts at `start`: an article, then a capitalised name or up to two words. */
function rightConjunct(ws: string[], start: number, name: Names): number {
  let end = start;
  if (end < ws.length && ARTICLE.test(ws[end]!)) end++;
  if (end < ws.length && isCapitalised(ws[end]!)) {
    const possessive = name.possessive[end]!;
    end = name.end[end]!;
    // "Harold's dog and Evelyn's cat": a name's possession is the part, not the name alone.
    if (possessive && end < ws.length && /^\p{Ll}/u.test(ws[end]!) && !JOINER.test(ws[end]!)) end++;
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
  const m = markedJoin(question);
  if (!m) return null;
  const left = m.left.trim();
  const right = m.right.trim();
  const isName = (text: string) => text.split(/\s+/).every((w) => isCapitalised(w) || NAME_GLUE.test(w));
  if (isName(left) || /^not\b/i.test(right)) return null;
  const before = question.slice(0, m.start).trim();
  const after = question.slice(m.end).replace(/^[?.!\s]+/, '').trim();
  const parts = [left, right].map((part) => strip([before, part, after].filter(Boolean).join(' '), NONE, ENDS).trim());
  return parts[0] !== parts[1] ? parts : null;
}

const MARKED = /\b(?:between|both|either|neither)(?=\s)/gi;
const MARKED_JOINER = /(?:and|or|nor)(?=\s)/iy;

/**
 * The first marked join in `q`, exactly as
 * `/\b(?:between|both|either|neither)\s+(.+?)\s+(?:and|or|nor)\s+([^,?!;]+?)(?=[,?!;]|\.(?:\s|$)|$)/i`
 * finds it: the match's [start, end) and its two groups. Not that regex itself: from every marker
 * it scanned the rest of the line for a joiner, and each run of spaces again from each of its
 * characters, so "both both …" or one long run of spaces took seconds. Here right-to-left passes
 * note, for each place, the nearest space where a first part that reaches it can end, and each
 * marker costs look-ups. What the regex does, step by step: the marker's spaces are greedy (all of them first,
 * then one fewer, …); the first part is lazy, any characters but a line end, and ends at the first
 * space whose run is followed by a joiner word that the rest fits; after the joiner its spaces are
 * greedy but leave one for the second part when what follows them cannot start it (a stop, or the
 * end); the second part is lazy up to the first stop, sentence end or the end.
 */
function markedJoin(q: string): { start: number; end: number; left: string; right: string } | null {
  MARKED.lastIndex = 0;
  if (!MARKED.test(q)) return null;
  // UTF-16 code units, as the regex (no `u` flag) reads them.
  const n = q.length;
  const space = new Array<boolean>(n + 1).fill(false);
  for (let i = 0; i < n; i++) space[i] = /\s/.test(q[i]!);
  // Where each run of spaces ends (the index itself when it is no space).
  const runEnd = new Array<number>(n + 1).fill(n);
  for (let i = n - 1; i >= 0; i--) runEnd[i] = space[i] ? runEnd[i + 1]! : i;
  // The nearest place at or after each index where the lazy second part may end.
  const partEnd = new Array<number>(n + 1).fill(n);
  for (let i = n - 1; i >= 0; i--) partEnd[i] = /[,?!;]/.test(q[i]!) || (q[i] === '.' && (i + 1 === n || space[i + 1])) ? i : partEnd[i + 1]!;
  // The nearest line end at or after each index: the first part cannot cross one.
  const lineEnd = new Array<number>(n + 1).fill(n);
  for (let i = n - 1; i >= 0; i--) lineEnd[i] = /[\n\r\u2028\u2029]/.test(q[i]!) ? i : lineEnd[i + 1]!;
  // Where the second part starts when a joiner at `at` fits the rest, else -1.
  const secondAt = (at: number): number => {
    MARKED_JOINER.lastIndex = at;
    const joiner = MARKED_JOINER.exec(q);
    if (!joiner) return -1;
    const spaces = at + joiner[0].length;
    const after = runEnd[spaces]!;
    if (after < n && !/[,?!;]/.test(q[after]!)) return after;
    return after - spaces >= 2 ? after - 1 : -1;
  };
  // The nearest space at or after each index whose run a fitting joiner follows: where a first
  // part that has reached the index ends.
  const firstEnd = new Array<number>(n + 2).fill(-1);
  let second = -1;
  for (let i = n - 1; i >= 0; i--) {
    if (space[i] && !space[i + 1]) second = secondAt(i + 1);
    firstEnd[i] = space[i] && second >= 0 ? i : firstEnd[i + 1]!;
  }
  MARKED.lastIndex = 0;
  for (let marker = MARKED.exec(q); marker; marker = MARKED.exec(q)) {
    const spaces = marker.index + marker[0].length;
    // The first part starts after all the marker's spaces, else after one fewer, ….
    for (let from = runEnd[spaces]!; from > spaces; from--) {
      const end = firstEnd[from + 1]!;
      if (end < 0 || lineEnd[from]! < end) continue;
      const second = secondAt(runEnd[end]!);
      const last = partEnd[second + 1]!;
      return { start: marker.index, end: last, left: q.slice(from, end), right: q.slice(second, last) };
    }
  }
  return null;
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
  // The next "and", "or" or comma after each word, in one right-to-left pass: a search from the
  // start for each comma made a query of commas quadratic.
  const nextListWord = new Array<number>(ws.length);
  for (let i = ws.length - 1, next = -1; i >= 0; i--) {
    nextListWord[i] = next;
    if (words_[i] === 'and' || words_[i] === 'or' || words_[i] === ',') next = i;
  }
  // A comma joins only inside a list ("Paris, Rome and Berlin"): a short item, then more of the list.
  const isJoin = (i: number) => {
    if (words_[i] !== ',') return JOINER.test(ws[i]!);
    const next = nextListWord[i]!;
    return next > i && next - i <= 4;
  };
  // A pronoun or a question word after the joiner starts a clause, not a part.
  const joins = ws.map((_, i) => (isJoin(i) ? i : -1)).filter((i) => i > 0 && i < ws.length - 1 && !startsClause(ws, i + 1) && ws[i + 1] !== '.' && ws[i - 1] !== '.');
  if (joins.length === 0) return [];
  // How many words before each index are not joiners, and not commas: whether a range holds any
  // is then a subtraction, not a scan (ranges overlap, and scanning each was quadratic).
  const contentBefore = [0];
  const wordsBefore = [0];
  for (const w of ws) {
    contentBefore.push(contentBefore[contentBefore.length - 1]! + (JOINER.test(w) ? 0 : 1));
    wordsBefore.push(wordsBefore[wordsBefore.length - 1]! + (w === ',' ? 0 : 1));
  }
  const name = names(ws);
  // The conjuncts around the joiners, left to right: [start, end) word ranges.
  // Only the first run of joined parts is split: a second one elsewhere ("a journal called Music
  // and Medicine") stays in the frame, so no part loses the rest of the question.
  const spans: [number, number][] = [];
  for (const j of joins) {
    const prev = spans[spans.length - 1];
    if (prev && prev[1] < j && contentBefore[j]! > contentBefore[prev[1]]!) break;
    if (!prev) spans.push([j - leftConjunct(ws, j), j]);
    const n = rightConjunct(ws, j + 1, name);
    if (n > 0) spans.push([j + 1, j + 1 + n]);
  }
  const conjuncts = spans.filter(([a, b]) => b > a && wordsBefore[b]! > wordsBefore[a]!);
  if (conjuncts.length < 2 || conjuncts.some(([a, b]) => b - a === 1 && /^not$/i.test(ws[a]!))) return [];
  // A list of single words ("workshops, lectures, and conferences") has single-word ends too.
  if (conjuncts.length >= 3 && conjuncts.slice(1, -1).every(([a, b]) => b - a === 1)) {
    const head = conjuncts[0]!;
    const end = conjuncts[conjuncts.length - 1]!;
    head[0] = head[1] - 1;
    const article = ARTICLE.test(ws[end[0]]!) ? 1 : 0;
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
