/**
 * The tokeniser of the bundled static embedding model. Pure code shared by the TypeScript and the
 * ONNX paths, so both see exactly the same token ids. It touches no platform global and runs the
 * same in browsers, Node and workerd.
 *
 * Text → NFKC → lower case → runs of Unicode letters, marks and digits. Each run is looked up in
 * the vocabulary; an unknown run falls back, in order, to its accent-stripped form, to the most
 * frequent vocabulary word sharing its stem, and to the most frequent word sharing the stem of the
 * accent-stripped form. A run that still matches nothing is dropped.
 */

/** Id of the padding row: its vector is all zeros, so it never moves a sum. Word ids start at 1. */
export const PAD_ID = 0;

/** Longest run kept as one token; longer runs are cut so that hostile input stays linear and cheap. */
export const MAX_TOKEN_LENGTH = 64;

const TOKEN_PATTERN = /[\p{L}\p{M}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;
const NON_ASCII = /[^\x00-\x7f]/;

/** Maps text to vocabulary ids (never PAD_ID). */
export interface StaticTokenizer {
  /** Number of vocabulary words; valid ids are 1..vocabSize. */
  readonly vocabSize: number;
  /** Token ids of the text in reading order; unknown words are left out. */
  encode(text: string): number[];
  /** Id of one already lower-cased word after the fallbacks, or undefined when nothing matches. */
  lookup(word: string): number | undefined;
}

/** Splits text into the lower-case word runs the model knows how to look up. */
export function splitWords(text: string): string[] {
  const runs = text.normalize('NFKC').toLowerCase().match(TOKEN_PATTERN);
  if (runs === null) return [];
  return runs.map((run) => (run.length > MAX_TOKEN_LENGTH ? run.slice(0, MAX_TOKEN_LENGTH) : run));
}

/**
 * `encode` of ASCII text, which NFKC leaves as it is and whose only word characters are a–z, A–Z
 * and 0–9: one scan of character codes instead of normalising and matching a Unicode regex (the
 * write path embeds every record it stores). The same runs, cut the same way.
 */
function encodeAscii(text: string, lookup: (word: string) => number | undefined): number[] {
  const lower = text.toLowerCase();
  const out: number[] = [];
  const n = lower.length;
  let i = 0;
  while (i < n) {
    let c = lower.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
      i++;
      continue;
    }
    const start = i;
    do c = lower.charCodeAt(++i);
    while (i < n && ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)));
    const id = lookup(lower.slice(start, Math.min(i, start + MAX_TOKEN_LENGTH)));
    if (id !== undefined) out.push(id);
  }
  return out;
}

/** Removes combining marks ("café" → "cafe"); returns the input when it has none. */
export function stripAccents(word: string): string {
  if (!NON_ASCII.test(word)) return word;
  return word.normalize('NFD').replace(MARKS, '').normalize('NFC');
}

/**
 * Builds the tokeniser for a vocabulary given most frequent first (word i gets id i + 1). The stem
 * index keeps, for each stem, the first (so the most frequent) word that has it.
 */
export function createStaticTokenizer(words: readonly string[]): StaticTokenizer {
  const ids = new Map<string, number>();
  words.forEach((word, index) => {
    if (!ids.has(word)) ids.set(word, index + 1);
  });
  // Stemming the whole vocabulary costs ~0.1 s; it waits for the first word that needs it.
  let stemIndex: Map<string, number> | undefined;
  const stems = (): Map<string, number> => {
    if (stemIndex === undefined) {
      stemIndex = new Map<string, number>();
      for (let index = 0; index < words.length; index++) {
        const stem = porterStem(words[index] as string);
        if (!stemIndex.has(stem)) stemIndex.set(stem, index + 1);
      }
    }
    return stemIndex;
  };
  // Unknown words repeat a lot in real text (names, jargon); remembering the outcome keeps encode fast.
  const fallbacks = new Map<string, number | undefined>();

  const lookup = (word: string): number | undefined => {
    const direct = ids.get(word);
    if (direct !== undefined) return direct;
    if (fallbacks.has(word)) return fallbacks.get(word);
    const plain = stripAccents(word);
    const found = ids.get(plain) ?? stems().get(porterStem(word)) ?? stems().get(porterStem(plain));
    if (fallbacks.size >= 50_000) fallbacks.clear();
    fallbacks.set(word, found);
    return found;
  };

  return {
    vocabSize: words.length,
    lookup,
    encode(text: string): number[] {
      if (!NON_ASCII.test(text)) return encodeAscii(text, lookup);
      const out: number[] = [];
      for (const word of splitWords(text)) {
        const id = lookup(word);
        if (id !== undefined) out.push(id);
      }
      return out;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), written from the
// paper's rules. Only words of ASCII a–z longer than two letters are stemmed; anything else is its
// own stem, which keeps non-English words exact instead of mangling them.

const ASCII_WORD = /^[a-z]+$/;

function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false;
  // y is a consonant at the start or after a vowel, a vowel after a consonant
  if (c === 121) return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** m in [C](VC)^m[V] for w[0, end). */
function measure(w: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    while (i < end && isConsonant(w, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string, end: number): boolean {
  return end >= 2 && w[end - 1] === w[end - 2] && isConsonant(w, end - 1);
}

/** *o: the stem ends consonant-vowel-consonant and the last consonant is not w, x or y. */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false;
  if (!isConsonant(w, end - 3) || isConsonant(w, end - 2) || !isConsonant(w, end - 1)) return false;
  const last = w[end - 1];
  return last !== 'w' && last !== 'x' && last !== 'y';
}

const STEP2: ReadonlyMap<string, string> = new Map<string, string>([
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'],
  ['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'],
  ['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'],
  ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble'],
  ['logi', 'log'],
]);

const STEP3: ReadonlyMap<string, string> = new Map<string, string>([
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
]);

const STEP4 = [
  'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou',
  'ism', 'ate', 'iti', 'ous', 'ive', 'ize',
] as const;

/** Longest rule whose suffix ends the word, as the paper prescribes: only that rule may fire. */
function longestMatch(w: string, suffixes: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const s of suffixes) if (w.endsWith(s) && (best === undefined || s.length > best.length)) best = s;
  return best;
}

function step1ab(w: string): string {
  if (w.endsWith('sses') || w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);

  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
    return w;
  }
  let cut = 0;
  if (w.endsWith('ed') && hasVowel(w, w.length - 2)) cut = 2;
  else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) cut = 3;
  if (cut === 0) return w;
  w = w.slice(0, -cut);
  if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) return w + 'e';
  if (endsDoubleConsonant(w, w.length)) {
    const last = w[w.length - 1];
    return last === 'l' || last === 's' || last === 'z' ? w : w.slice(0, -1);
  }
  if (measure(w, w.length) === 1 && endsCvc(w, w.length)) return w + 'e';
  return w;
}

function step1c(w: string): string {
  return w.endsWith('y') && hasVowel(w, w.length - 1) ? w.slice(0, -1) + 'i' : w;
}

function applyRules(w: string, rules: ReadonlyMap<string, string>): string {
  const suffix = longestMatch(w, [...rules.keys()]);
  if (suffix === undefined) return w;
  const stemEnd = w.length - suffix.length;
  if (measure(w, stemEnd) === 0) return w;
  return w.slice(0, stemEnd) + (rules.get(suffix) ?? '');
}

function step4(w: string): string {
  const suffix = longestMatch(w, STEP4);
  if (suffix === undefined) return w;
  const stemEnd = w.length - suffix.length;
  if (measure(w, stemEnd) <= 1) return w;
  if (suffix === 'ion') {
    const before = w[stemEnd - 1];
    if (before !== 's' && before !== 't') return w;
  }
  return w.slice(0, stemEnd);
}

function step5(w: string): string {
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (w.endsWith('ll') && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

/** Porter stem of a lower-case word; words that are not plain a–z, or shorter than 3, are returned unchanged. */
export function porterStem(word: string): string {
  if (word.length <= 2 || !ASCII_WORD.test(word)) return word;
  let w = step1ab(word);
  w = step1c(w);
  w = applyRules(w, STEP2);
  w = applyRules(w, STEP3);
  w = step4(w);
  return step5(w);
}
