/**
 * Text → search terms for the keyword leg. English words are lower-cased, stripped of stop words
 * and stemmed (plain BM25 without them loses a third of its recall on conversational memory).
 * Scripts written without spaces (Chinese, Japanese, Thai, …) are split into words with
 * `Intl.Segmenter` where the runtime has it, and into overlapping character pairs where it does
 * not, so they are searchable everywhere.
 */
import { stemmer as englishStemmer } from '@orama/stemmers/english';
import { stopwords as englishStopwords } from '@orama/stopwords/english';

const STOPWORDS = new Set(englishStopwords);
const UNSEGMENTED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
const MAX_TOKEN_LENGTH = 64;

type Segmenter = { segment(text: string): Iterable<{ segment: string; isWordLike?: boolean }> };

let segmenter: Segmenter | null | undefined;
function getSegmenter(): Segmenter | null {
  if (segmenter === undefined) {
    const Ctor = (globalThis.Intl as unknown as { Segmenter?: new (locale?: string, options?: { granularity: string }) => Segmenter }).Segmenter;
    try {
      segmenter = Ctor ? new Ctor(undefined, { granularity: 'word' }) : null;
    } catch {
      segmenter = null; // an Intl without segmentation data: fall back to character pairs
    }
  }
  return segmenter;
}

function pairs(run: string, out: string[]): void {
  const chars = [...run];
  if (chars.length === 1) out.push(chars[0]!);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
}

function pushUnsegmented(text: string, out: string[]): void {
  const seg = getSegmenter();
  if (!seg) {
    pairs(text, out);
    return;
  }
  for (const part of seg.segment(text)) {
    if (part.isWordLike === false) continue;
    const word = part.segment.trim();
    if (word) out.push(word);
  }
}

/** Normalises one latin-script word into its index term, or '' for a stop word. */
export function normalizeWord(word: string): string {
  const lower = word.replace(/['’]s$/, '').replace(/’/g, "'");
  if (STOPWORDS.has(lower)) return '';
  if (!/^[a-z]+$/.test(lower)) return lower.slice(0, MAX_TOKEN_LENGTH);
  return englishStemmer(lower).slice(0, MAX_TOKEN_LENGTH);
}

// Text repeats its words, and stemming is most of tokenising: remembering each word's term makes
// indexing a memory several times faster (10k conversation turns: ~1 s → ~0.15 s). Bounded, so
// a stream of unique words cannot grow it without limit.
const termCache = new Map<string, string>();
const TERM_CACHE_LIMIT = 50_000;

function termOf(word: string): string {
  let term = termCache.get(word);
  if (term === undefined) {
    term = normalizeWord(word);
    if (termCache.size >= TERM_CACHE_LIMIT) termCache.clear();
    termCache.set(word, term);
  }
  return term;
}

/** Latin and unsegmented characters can share a word ("iphone用户"): each run is tokenised its own way. */
function splitScripts(word: string, out: string[]): void {
  let run = '';
  let runIsUnsegmented = false;
  const flush = () => {
    if (!run) return;
    if (runIsUnsegmented) pushUnsegmented(run, out);
    else out.push(termOf(run));
    run = '';
  };
  for (const ch of word) {
    const unsegmented = UNSEGMENTED.test(ch);
    if (unsegmented !== runIsUnsegmented) flush();
    runIsUnsegmented = unsegmented;
    run += ch;
  }
  flush();
}

/** The search terms of a text, in order, duplicates kept. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const normalized = text.normalize('NFKC').toLowerCase();
  for (const match of normalized.matchAll(WORD)) {
    const word = match[0];
    if (UNSEGMENTED.test(word)) {
      splitScripts(word, out);
      continue;
    }
    out.push(termOf(word));
  }
  return out.filter((t) => t.length > 0);
}

/**
 * Each word of a text as written (case kept), with the search terms it makes, as `tokenize`
 * makes them: for code that must name a word back to a person and look its term up in the index.
 */
export function wordsWithTerms(text: string): { word: string; terms: string[] }[] {
  return [...text.normalize('NFKC').matchAll(WORD)].map((m) => {
    const word = m[0];
    // A plain ASCII word is one term (or none), as `tokenize` would find: skip its per-call work.
    if (ASCII_WORD.test(word)) {
      const term = termOf(word.toLowerCase());
      return { word, terms: term ? [term] : [] };
    }
    return { word, terms: tokenize(word) };
  });
}

const ASCII_WORD = /^[A-Za-z0-9]+(?:'[A-Za-z]+)?$/;
