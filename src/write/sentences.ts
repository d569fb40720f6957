/**
 * Text → sentences of tagged tokens for the rules extractor. English goes through wink-nlp
 * (abbreviation-aware sentence boundaries, part of speech, lemmas), so "St. Mary hospital" and
 * "Dr. Smith" stay inside their sentence. Chinese, Japanese and Korean text is split with
 * `Intl.Segmenter` and kept whole: the rules rewrite English only.
 */
import type { Language } from './language.js';
import { foldLists } from './lists.js';

export interface Token {
  /** As written. */
  text: string;
  lower: string;
  /** Universal part-of-speech tag (NOUN, PROPN, VERB, AUX, PRON, ADP, …). */
  pos: string;
  lemma: string;
  /** Whitespace before the token in the source. */
  space: string;
}

export interface Sentence {
  text: string;
  tokens: Token[];
  /** True for CJK sentences, which carry no tokens. */
  cjk: boolean;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** A lower-case "i" before a word is the speaker: the one rule here that needs no apostrophe. */
const LOWER_I: [RegExp, string] = [/\bi\b(?=\s+[a-z])/g, 'I'];

/**
 * First- and second-person contractions the model keeps as one token ("I'm" is tagged a proper
 * noun); spelled out they tag correctly and the rewriting to the third person has one form to handle.
 */
const CONTRACTIONS: [RegExp, string][] = [
  [/\b([Ii])['’]m\b/g, 'I am'],
  [/\b([Ii])['’]ve\b/g, 'I have'],
  [/\b([Ii])['’]ll\b/g, 'I will'],
  [/\b([Ii])['’]d\b/g, 'I would'],
  LOWER_I,
  // "you're", "we'll" too: "you" becomes the listener's name and "we" "Sam and others", which the
  // contraction cannot follow ("Sam and others'll").
  [/\b([Yy]ou|[Ww]e)['’]re\b/g, '$1 are'],
  [/\b([Yy]ou|[Ww]e)['’]ve\b/g, '$1 have'],
  [/\b([Yy]ou|[Ww]e)['’]ll\b/g, '$1 will'],
  [/\b([Yy]ou|[Ww]e)['’]d\b/g, '$1 would'],
  // Third-person ones as well: a resolved pronoun becomes a name, which the contraction cannot
  // follow either ("Leo's obsessed" reads as Leo's something). "'s" is "has" before "been", "got",
  // "had", and before a participle that seldom describes a state when no preposition follows it
  // ("it's helped me", "it's made me think", not "it's made of wood"); otherwise "is" ("he's married").
  [/\b([Hh]e|[Ss]he|[Ii]t)['’]s(?=\s+(?:(?:already|just|never|ever|always|finally|also|only|really|actually|definitely)\s+)?(?:been|got|gotten|had|(?:helped|become|made|given|taken|brought|allowed|caused|grown|changed|meant|led|kept|turned|started|shown|proven|proved|worked|inspired|opened|taught|improved)\b(?!\s+(?:of|from|by|in|into|with|for|to|up|out|on|at|as)\b))\b)/g, '$1 has'],
  [/\b([Hh]e|[Ss]he|[Ii]t)['’]s\b/g, '$1 is'],
  [/\b([Tt]hey)['’]re\b/g, '$1 are'],
  [/\b([Hh]e|[Ss]he|[Ii]t|[Tt]hey)['’]ve\b/g, '$1 have'],
  [/\b([Hh]e|[Ss]he|[Ii]t|[Tt]hey)['’]ll\b/g, '$1 will'],
  [/\b([Hh]e|[Ss]he|[Ii]t|[Tt]hey)['’]d(?=\s+(?:(?:already|just|never|ever|only)\s+)?(?:been|better|had|gone|done|seen|got|gotten|left)\b)/g, '$1 had'],
  [/\b([Hh]e|[Ss]he|[Ii]t|[Tt]hey)['’]d\b/g, '$1 would'],
];

/**
 * Chat spellings of "going to", "have to" and "want to", with the subject a chat line leaves out put
 * back ("Gonna visit my mom next week" is the speaker's plan): spelled out, they read as the verbs
 * they stand for ("Sam is going to visit …", "Sam has to make dinner").
 */
const CHAT_TO: [RegExp, string][] = [
  [/(^|[.!?]\s+)[Gg]onna\b/g, '$1I am going to'],
  [/(^|[.!?]\s+)[Gg]otta\b/g, '$1I have to'],
  [/(^|[.!?]\s+)[Ww]anna\b/g, '$1I want to'],
  [/\b(I|you|we|they|he|she|it)\s+gonna\b/gi, '$1 going to'],
  [/\bgonna\b/gi, 'going to'],
  [/\b(I|you|we|they)\s+gotta\b/gi, '$1 have to'],
  [/\b(he|she|it)\s+gotta\b/gi, '$1 has to'],
  [/\bgotta\b/gi, 'got to'],
  [/\bwanna\b/gi, 'want to'],
];

export function expandContractions(text: string): string {
  if (/\b(?:gonna|gotta|wanna)\b/i.test(text)) for (const [pattern, replacement] of CHAT_TO) text = text.replace(pattern, replacement);
  // Most lines have no apostrophe: only the lower-case "i" can apply to them.
  if (!/['’]/.test(text)) return text.replace(LOWER_I[0], LOWER_I[1]);
  let out = text;
  for (const [pattern, replacement] of CONTRACTIONS) out = out.replace(pattern, replacement);
  return out;
}

/** A span of time a chat says "it's been" of: "a year", "two weeks", "3 months", "a couple of days". */
const SPAN = String.raw`(?:(?:about|almost|nearly|over|around|exactly|just|only|already|more than|less than)\s+)?(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple(?:\s+of)?|several|\d+)\s+(?:(?:whole|full)\s+)?(?:day|week|month|year|decade)s?`;
/**
 * "It's been a year since we went to Iceland" says when something happened with a dummy "it" that
 * would read as a name; restated, it says it plainly ("we went to Iceland a year ago"), which the
 * date rules resolve. Not when the clause is itself perfect ("since I've seen him": the span is
 * how long something has not happened).
 */
const SINCE = new RegExp(String.raw`(^|[.!?]\s+|,\s+)(?:(?:I\s+)?(?:can['’]?t|cannot|can not)\s+believe\s+(?:that\s+)?)?(?:(?:[Ii]t|[Tt]hat)\s+(?:has|had|is|was)\s+been|[Ii]t\s+is|[Bb]een)\s+(${SPAN})\s+since\s+([^.!?;,]+)`, 'g');
/** Words that date a clause by themselves. */
const DATED = /\d|\b(?:january|february|march|april|june|july|august|september|october|november|december|yesterday|today|ago)\b/i;
/** "Guess who just signed up for a pottery class": the riddle's answer is the speaker. */
const GUESS_WHO = /(^|[.!?]\s+)[Gg]uess who(?=\s+(?:(?:just|finally|also)\s+)?(?:\w+ed|got|won|went|made|bought|met|saw|found|ran|finished|became|took|did)\b)/g;

/** Chat idioms said again plainly before tagging (`SINCE`, `GUESS_WHO`). */
export function restateIdioms(text: string): string {
  if (!/\bsince\b|\bguess who\b/i.test(text)) return text;
  return text
    .replace(SINCE, (all, before: string, span: string, rest: string) => {
      const clause = rest.trimEnd();
      if (/\b(?:have|has)\b/i.test(clause)) return all;
      // "since I last had people over": "last" there reads as a verb; the span says it was the last time.
      const plain = clause.replace(/^(\S+)\s+last\s+/i, '$1 ');
      const said = before === '' || /[.!?]\s+$/.test(before) ? plain.replace(/^\p{Ll}/u, (c) => c.toUpperCase()) : plain;
      // A clause that says when itself ("on the 10th") keeps its own date.
      const space = rest.slice(clause.length);
      return DATED.test(plain) ? `${before}${said}${space}` : `${before}${said} ${span} ago${space}`;
    })
    .replace(GUESS_WHO, '$1I');
}

// One segmenter for every call: building one loads ICU's rules, far dearer than segmenting a line.
let segmenter: Intl.Segmenter | undefined;

function cjkSentences(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'sentence' });
  return [...segmenter.segment(text)].map((s) => s.segment.trim()).filter(Boolean);
}

/** The sentences of a message, tagged. */
export function analyse(text: string, language: Language): Sentence[] {
  const out: Sentence[] = [];
  const lines = foldLists(text.split(/\n+/).filter((l) => l.trim())).map((l) => l.replace(/^(?:[-*•]|\d{1,2}[.)])\s+/, '').replace(/\*\*/g, ''));
  for (const line of lines) {
    if (CJK.test(line)) {
      // Mixed lines keep their English parts tagged: each sentence is judged on its own.
      for (const s of cjkSentences(line)) out.push(...(CJK.test(s) ? [{ text: s, tokens: [], cjk: true }] : english(s, language)));
    } else {
      out.push(...english(line, language));
    }
  }
  return out;
}

/**
 * The longest run of non-space characters given to the tagger whole. wink-nlp's tokenizer takes
 * time quadratic in a token's length (a single 100,000-character "word", which the API accepts as
 * a message, took 3.5 s; 500,000 took 90 s); no word, and hardly a URL, is this long, so a longer
 * run (a blob, a key, a paste) is read in pieces of this length.
 */
const LONGEST_RUN = 2000;
const TOO_LONG_RUN = new RegExp(`\\S{${LONGEST_RUN + 1}}`);
const RUN_PIECE = new RegExp(`\\S{${LONGEST_RUN}}(?=\\S)`, 'g');

function english(text: string, { nlp, its }: Language): Sentence[] {
  const doc = nlp.readDoc(restateIdioms(expandContractions(TOO_LONG_RUN.test(text) ? text.replace(RUN_PIECE, '$& ') : text)));
  const all = doc.tokens();
  const words = all.out();
  const pos = all.out(its.pos) as string[];
  const lemmas = all.out(its.lemma as never) as unknown as string[];
  const spaces = all.out(its.precedingSpaces as never) as unknown as string[];
  const spans = doc.sentences().out(its.span as never) as unknown as [number, number][];
  return spans.map(([from, to]) => {
    const tokens: Token[] = [];
    for (let i = from; i <= to; i++) {
      const t = words[i]!;
      tokens.push({ text: t, lower: t.toLowerCase(), pos: pos[i] ?? 'X', lemma: lemmas[i] ?? t.toLowerCase(), space: i === from ? '' : spaces[i] ?? ' ' });
    }
    retagVerbs(tokens);
    return { text: join(tokens), tokens, cjk: false };
  });
}

/** Verbs the lite model often tags as plural nouns after a name ("Ana lives in Braga"). */
const THIRD_PERSON_VERBS = new Set(['lives', 'works', 'loves', 'likes', 'hates', 'plays', 'runs', 'walks', 'goes', 'wants', 'needs', 'says', 'teaches', 'studies', 'owns', 'moves', 'visits', 'cooks', 'travels', 'swims', 'drives', 'sleeps', 'stays', 'starts']);

const SUBJECT_TAGS = new Set(['PROPN', 'PRON', 'NOUN']);
const AFTER_VERB_TAGS = new Set(['ADP', 'DET', 'PRON', 'ADV', 'PART', 'PROPN', 'NUM', 'PUNCT']);

function retagVerbs(tokens: Token[]): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.pos !== 'NOUN' || !THIRD_PERSON_VERBS.has(t.lower)) continue;
    const before = tokens[i - 1]?.pos ?? '';
    const after = tokens[i + 1]?.pos ?? 'PUNCT';
    if (SUBJECT_TAGS.has(before) && AFTER_VERB_TAGS.has(after)) t.pos = 'VERB';
  }
}

/** Tokens back to text, with their original spacing. */
export function join(tokens: readonly Token[]): string {
  return tokens.map((t, i) => (i === 0 ? t.text : t.space + t.text)).join('').trim();
}

/** Splits text into sentences (for callers that need no tags). */
export function splitSentences(text: string, language: Language): string[] {
  return analyse(text, language).map((s) => s.text);
}

/** Whitespace that folding to single spaces changes: a run, or one that is not a plain space. */
const SPACING = /\s\s|[^\S ]/;

/** Every run of whitespace as one space (the text itself when it has nothing to fold: no copy). */
export function singleSpaced(text: string): string {
  return SPACING.test(text) ? text.replace(/\s+/g, ' ') : text;
}

/** The first `max` characters of a text, cut at a word boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const flat = singleSpaced(text).trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
