/**
 * Salient terms of a memory's text, for the dialects whose results carry them (Breeth's
 * `target_node`, Tablestore's `keywords`). Deterministic and model-free: stop words are dropped,
 * inflections of one word count together, names written with a capital inside a sentence come
 * first (they are what a fact is about), then the most repeated words, then the earliest.
 */
import { normalizeWord, tokenize } from '../../index/tokenizer.js';

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu;
const UNSEGMENTED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
export const MAX_KEYWORD_LENGTH = 32;

interface Term {
  surface: string;
  count: number;
  first: number;
  proper: boolean;
}

/** The key two spellings of one word share ('' for a stop word or noise). */
function termKey(word: string): string {
  const lower = word.normalize('NFKC').toLowerCase();
  if (/^[\p{N}_'’-]+$/u.test(lower)) return ''; // bare numbers and dates say little on their own
  // Short words say little, except capitalised ones: names and acronyms ("Go", "AI").
  if (!UNSEGMENTED.test(lower) && [...lower].length < (/^\p{Lu}/u.test(word) ? 2 : 3)) return '';
  return normalizeWord(lower);
}

/**
 * Up to `max` keywords of `text`, best first, each at most 32 characters. `exclude` lists words
 * (a speaker's name, the predicate) that must not be returned.
 *
 * @example keywords('Sridhar prefers async Rust over Go', 3, ['Sridhar', 'prefers']) // ['Rust', 'async', …]
 */
export function keywords(text: string, max = 8, exclude: readonly string[] = []): string[] {
  const skip = new Set(exclude.flatMap((e) => (e.match(WORD) ?? []).map(termKey)).filter(Boolean));
  const terms = new Map<string, Term>();
  let position = 0;
  const note = (surface: string, key: string, proper: boolean) => {
    if (!key || skip.has(key)) return;
    const term = terms.get(key);
    if (term) {
      term.count++;
      term.proper ||= proper;
    } else {
      terms.set(key, { surface: [...surface].slice(0, MAX_KEYWORD_LENGTH).join(''), count: 1, first: position, proper });
    }
    position++;
  };
  let sentenceStart = true;
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const before = text.slice(Math.max(0, (match.index ?? 0) - 3), match.index ?? 0);
    const initial = sentenceStart || /[.!?:;。！？]\s*$/u.test(before);
    sentenceStart = false;
    if (UNSEGMENTED.test(word)) {
      // Scripts without spaces: the tokenizer's words (two characters or more) are the terms.
      for (const piece of tokenize(word)) if ([...piece].length >= 2) note(piece, termKey(piece), false);
      continue;
    }
    note(word, termKey(word), !initial && /^\p{Lu}/u.test(word));
  }
  return [...terms.values()]
    .sort((a, b) => Number(b.proper) - Number(a.proper) || b.count - a.count || a.first - b.first)
    .slice(0, max)
    .map((t) => t.surface);
}
