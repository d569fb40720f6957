/**
 * Third-person pronouns in a clause read as the names they stand for, by rules: "She is three." →
 * "Pixel is three." The rules extractor has no coreference model, so what it cannot place it leaves:
 * an "it" that stands for the clause after it ("It's important to book early") stays as said, and a
 * pronoun with nothing to stand for makes the clause no claim (its words stay in a passage). And
 * an "I" that is a number ("World War I") is not the speaker.
 */
import type { Mentions } from './mentions.js';
import type { Token } from './sentences.js';

const THIRD_PRONOUNS = new Set(['he', 'she', 'it', 'they', 'him', 'her', 'them', 'his', 'hers', 'its', 'their', 'theirs', 'himself', 'herself', 'itself', 'themselves']);
const POSSESSIVE = new Set(['his', 'its', 'their', 'hers', 'theirs']);

/** The names the clause's third-person pronouns stand for, by token index; null when one stands for nothing. */
export function resolvePronouns(tokens: readonly Token[], mentions: Mentions, exclude: ReadonlySet<string>): Map<number, string> | null {
  const out = new Map<number, string>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.pos !== 'PRON' || !THIRD_PRONOUNS.has(t.lower)) continue;
    // "It's important to …", "would it be okay to …", "it takes an hour to …": an "it" that
    // stands for what follows is left as said.
    if (t.lower === 'it' && (dummyIt(tokens, i) || tokens[i - 1]?.lower === 'worth' || idiomIt(tokens, i))) continue;
    // "it" as in "it is raining" / "it was fun" stands for nothing; such a clause is no claim.
    const m = mentions.resolve(t.lower, exclude);
    if (!m) return null;
    const possessive = POSSESSIVE.has(t.lower) || (t.lower === 'her' && ['NOUN', 'ADJ', 'PROPN', 'NUM'].includes(tokens[i + 1]?.pos ?? ''));
    // "their work" of "Sam's skills" is no "Sam's skills's work": a description is not declined again.
    if (possessive && !m.proper && m.kind === 'thing' && m.name.includes("'s ")) return null;
    out.set(i, possessive ? (m.plural && m.name.endsWith('s') ? `${m.name}'` : `${m.name}'s`) : m.name);
  }
  return out;
}

/** Verbs after which a subject "it" stands for a clause that follows ("it seems that …", "it takes a day to …"). */
const EXTRAPOSING = new Set(['be', 'seem', 'sound', 'look', 'feel', 'take', 'make', 'turn', 'appear', 'help', 'pay', 'matter', 'cost']);

/** Words after which "I" is a number: "World War I", "Part I". */
const NUMBERED = new Set(['war', 'part', 'chapter', 'type', 'phase', 'act', 'season', 'volume', 'book', 'level', 'stage', 'grade', 'class', 'article', 'section', 'title', 'episode', 'round', 'tier', 'ii']);

/** Whether the "I" at `i` is a Roman numeral ("World War I", "Part I"), not the speaker ("On Monday I …" is the speaker). */
export function romanNumeral(tokens: readonly Token[], i: number): boolean {
  const before = tokens[i - 1];
  return !!before && /^\p{Lu}/u.test(before.text) && NUMBERED.has(before.lower);
}

/** Nouns the tagger reads as verbs after "to" ("closer to home"). */
const PLACES_AFTER_TO = new Set(['home', 'work', 'school', 'bed', 'town', 'church', 'class', 'college', 'market', 'court']);

/** Whether the "it" at `i` is the empty subject of an extraposed clause: "it's important to sign it", "it seems that …". */
function dummyIt(tokens: readonly Token[], i: number): boolean {
  let j = i + 1;
  // "would it be", "it has been", "it will take": auxiliaries and adverbs up to the verb.
  while (j < tokens.length && (tokens[j]!.pos === 'AUX' || tokens[j]!.pos === 'PART' || tokens[j]!.pos === 'ADV') && !EXTRAPOSING.has(tokens[j]!.lemma)) j++;
  const verb = tokens[j];
  if (!verb || !EXTRAPOSING.has(verb.lemma.toLowerCase())) return false;
  if (tokens[j + 1]?.lower === 'worth') return true; // "it's worth it", "it's worth a visit"
  for (let k = j + 1; k < Math.min(tokens.length, j + 7); k++) {
    const w = tokens[k]!;
    if (w.lower === 'to' && ['VERB', 'AUX'].includes(tokens[k + 1]?.pos ?? '') && !PLACES_AFTER_TO.has(tokens[k + 1]!.lower)) return true;
    if (w.lower === 'like' && k === j + 1 && ['seem', 'sound', 'look', 'feel', 'be'].includes(verb.lemma.toLowerCase())) return true; // "it seems like …", "it's like …"
    // "that" opening a clause, not pointing at a thing ("it's that book").
    if (['that', 'if', 'whether', 'how', 'when'].includes(w.lower) && !(w.lower === 'that' && (w.pos === 'DET' || (w.pos !== 'SCONJ' && ['NOUN', 'ADJ'].includes(tokens[k + 1]?.pos ?? ''))))) return true;
    if (w.pos === 'PUNCT' || w.pos === 'CCONJ') return false;
  }
  return false;
}

/** Words that open a clause about a thing: "since I got it" is the thing got, not understanding. */
const THING_CLAUSE = new Set(['since', 'when', 'after', 'before', 'until', 'once', 'because', 'where', 'which', 'that']);

/**
 * Set phrases whose "it" stands for no thing said before: "go for it", "take it easy", "hit it
 * off", "make it to …", "nailed it", "can't believe it". Read as a name they say something else
 * ("Gina should go for Jon's passion").
 */
function idiomIt(tokens: readonly Token[], i: number): boolean {
  const before = tokens[i - 1];
  if (!before) return false;
  const after = tokens[i + 1]?.lower;
  const last = after === undefined || after === '!' || after === '.'; // "it" ends the clause
  const lemma = before.lemma.toLowerCase();
  if (before.lower === 'for') return tokens[i - 2]?.lemma.toLowerCase() === 'go';
  if (lemma === 'take') return after === 'easy' || after === 'slow';
  if (lemma === 'hit') return after === 'off';
  if (lemma === 'make') return last || after === 'to' || after === 'through' || after === 'home' || after === 'back';
  if (lemma === 'nail') return true; // "nailed it"
  if (lemma === 'believe') return last; // "can't believe it!"
  // "I get it", "got it!", "I still don't get it": understanding, unless a clause ties it to a thing.
  if (lemma === 'get') return last && !tokens.slice(0, i).some((t) => THING_CLAUSE.has(t.lower));
  return false;
}
