/**
 * Third-person pronouns in a clause read as the names they stand for, by rules: "She is three." →
 * "Pixel is three." The rules extractor has no coreference model, so what it cannot place it leaves:
 * an "it" that stands for the clause after it ("It's important to book early") stays as said, and a
 * pronoun with nothing to stand for makes the clause no claim (its words stay in a passage). And
 * an "I" that is a number ("World War I") is not the speaker.
 */
import { firstNameOf } from './first-names.js';
import { FEMININE, gender, MASCULINE, properName, RELATIONS, type Gender, type Mentions } from './mentions.js';
import type { Token } from './sentences.js';

const THIRD_PRONOUNS = new Set(['he', 'she', 'it', 'they', 'him', 'her', 'them', 'his', 'hers', 'its', 'their', 'theirs', 'himself', 'herself', 'itself', 'themselves']);
const POSSESSIVE = new Set(['his', 'its', 'their', 'hers', 'theirs']);
/** Object pronouns ("her" too, when it is no possessive). */
const OBJECT = new Set(['him', 'her', 'them']);
/** Subject pronouns; "it" is both, and left out: "it makes it easy" may be one thing. */
const SUBJECT = new Set(['he', 'she', 'they']);

/** The index of the subject pronoun whose verb the object pronoun at `i` follows ("they [really] loved them"), if any. */
function objectOf(tokens: readonly Token[], i: number): number | undefined {
  if (tokens[i - 1]?.pos !== 'VERB') return undefined;
  let j = i - 2;
  while (j >= 0 && ['AUX', 'ADV', 'PART'].includes(tokens[j]!.pos)) j--;
  return j >= 0 && SUBJECT.has(tokens[j]!.lower) && tokens[j]!.pos === 'PRON' ? j : undefined;
}

/** Plural pronouns that may stand for their own clause's subject ("them" may not: "they loved them"). */
const OF_SUBJECT = new Set(['they', 'their', 'theirs', 'themselves']);
/** Verbs whose object does what follows ("help clients gain …", "let kids choose …", "encourage students to …"). */
const CAUSATIVE = new Set(['help', 'let', 'allow', 'enable', 'encourage', 'teach', 'inspire', 'motivate', 'empower', 'invite', 'remind', 'ask', 'tell', 'urge', 'push', 'get', 'want']);
/** Of those, the ones followed by a bare verb, which a tagger may read as a noun ("help clients gain insight"). */
const BARE_MAKERS = new Set(['help', 'let']);
/** Plurals spelled without an -s. */
const IRREGULAR_PLURALS = new Set(['people', 'children', 'men', 'women', 'folks']);

/**
 * The name of the last plural noun before a place that a verb follows ("sports organizations are
 * using …", "artists can experiment …"): the subject that a "they" or "their" later in the same
 * clause most often stands for ("… are using their influence"). Names registered for the segment
 * count only from the next clause, so without this the pronoun went to the last plural named
 * before the clause ("generations' influence"). `owner` and `listener` name "my" and "your" before
 * the noun. Made once per clause and asked for each pronoun: a noun counts before a place when
 * the word that follows it (past adverbs) lies before that place too, so one pass over the clause
 * answers every place, where reading the clause again for each pronoun cost its length each time.
 */
function pluralSubjects(tokens: readonly Token[], owner: string, listener: string | null): (before: number) => string | null {
  // lastBy[b]: the last subject noun whose verb lies before place b (-1: none).
  const lastBy = new Int32Array(tokens.length + 1).fill(-1);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.pos !== 'NOUN' || !(IRREGULAR_PLURALS.has(t.lower) || (t.lower !== t.lemma.toLowerCase() && t.lower.endsWith('s')))) continue;
    let j = i + 1;
    while (j < tokens.length && tokens[j]!.pos === 'ADV') j++;
    if (j >= tokens.length) continue;
    // "help clients gain insight into their motives", "encourage kids to share their ideas": the
    // object of a verb that makes it do something is the subject of what it does.
    const maker = tokens[i - 1]?.lemma.toLowerCase() ?? '';
    const next = tokens[j]!;
    const made = CAUSATIVE.has(maker) && (next.pos === 'VERB' || next.lower === 'to' || (BARE_MAKERS.has(maker) && next.pos === 'NOUN') || (maker === 'help' && next.lower === 'with'));
    if (!made && next.pos !== 'AUX' && next.pos !== 'VERB') continue;
    // "his friends", "their kids": whose they are is another pronoun's question.
    const previous = tokens[i - 1]?.lower;
    if (previous === 'his' || previous === 'her' || previous === 'their' || previous === 'its' || (previous === 'your' && !listener)) continue;
    // It counts before every place after its verb.
    lastBy[j + 1] = Math.max(lastBy[j + 1]!, i);
  }
  for (let b = 1; b < lastBy.length; b++) lastBy[b] = Math.max(lastBy[b]!, lastBy[b - 1]!);
  return (before) => {
    const found = lastBy[Math.min(before, tokens.length)] ?? -1;
    if (found < 0) return null;
    // Only the last subject is named: its phrase is read once.
    const previous = tokens[found - 1]?.lower;
    const whose = previous === 'my' || previous === 'our' ? owner : previous === 'your' ? listener : null;
    const phrase = nounPhrase(tokens, found);
    return whose ? `${whose}'s ${phrase}` : phrase;
  };
}

/**
 * The noun at `i` with the singular nouns and the hyphened words before it ("art forms", "decision-makers"),
 * as written; a common noun capitalised only because it opens the sentence is lowered ("People may
 * …" → "people's").
 */
function nounPhrase(tokens: readonly Token[], i: number): string {
  let start = i;
  while (start > 0) {
    const previous = tokens[start - 1]!;
    const joined = tokens[start]!.space === '' && (previous.text === '-' || tokens[start]!.text === '-');
    // A modifier is a singular noun ("art forms", "law enforcement agencies"), capitalised only at the sentence's start.
    const modifier = previous.pos === 'NOUN' && previous.lower === previous.lemma.toLowerCase() && (start - 1 === 0 || /^\p{Ll}/u.test(previous.text));
    if (!joined && !modifier) break;
    start--;
  }
  const text = tokens.slice(start, i + 1).map((t, k) => (k === 0 ? t.text : t.space + t.text)).join('');
  const common = tokens[start]!.pos === 'NOUN' || (start === 0 && tokens[start]!.pos !== 'PROPN');
  return common && /^\p{Lu}\p{Ll}*\b/u.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** The names the clause's third-person pronouns stand for, by token index; null when one stands for nothing. */
export function resolvePronouns(tokens: readonly Token[], mentions: Mentions, exclude: ReadonlySet<string>, speaker?: { name: string; listener: string | null }): Map<number, string> | null {
  const out = new Map<number, string>();
  let subjects: ((before: number) => string | null) | undefined;
  let names: ClauseName[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.pos !== 'PRON' || !THIRD_PRONOUNS.has(t.lower)) continue;
    // "It's important to …", "would it be okay to …", "it takes an hour to …": an "it" that
    // stands for what follows is left as said.
    if (t.lower === 'it' && (dummyIt(tokens, i) || tokens[i - 1]?.lower === 'worth' || idiomIt(tokens, i))) continue;
    // "it" as in "it is raining" / "it was fun" stands for nothing; such a clause is no claim.
    const subject = speaker && OF_SUBJECT.has(t.lower) ? (subjects ??= pluralSubjects(tokens, speaker.name, speaker.listener))(i) : null;
    const possessive = POSSESSIVE.has(t.lower) || (t.lower === 'her' && ['NOUN', 'ADJ', 'PROPN', 'NUM'].includes(tokens[i + 1]?.pos ?? ''));
    const own = subject || !(PERSONAL.has(t.lower) || (t.lower === 'her' && possessive)) ? null : clausePerson(tokens, i, t.lower, mentions, exclude, (names ??= namesOf(tokens, speaker)));
    const m = subject ? { name: subject, plural: true, proper: false, kind: 'thing' as const } : own ? { name: own, plural: false, proper: true, kind: 'person' as const } : mentions.resolve(t.lower, exclude);
    if (!m) return null;
    // "their work" of "Sam's skills" is no "Sam's skills's work": a description is not declined again.
    if (possessive && !m.proper && m.kind === 'thing' && m.name.includes("'s ")) return null;
    out.set(i, possessive ? (m.plural && m.name.endsWith('s') ? `${m.name}'` : `${m.name}'s`) : m.name);
    // "they loved them", "she called her": the subject and the object of one verb are two people
    // or things (one would be "themselves"), so one name for both is a wrong reading. Only the
    // verb right after the subject counts: in "he rallied his followers to join him" they are one.
    if (OBJECT.has(t.lower) && !possessive && out.get(objectOf(tokens, i) ?? -1) === m.name) return null;
  }
  return out;
}

/** "he", "she", "his" (and a possessive "her"): the pronouns a person named earlier in the same clause may stand for. */
const PERSONAL = new Set(['he', 'she', 'his']);

/** A person a clause names: where the words end, and the name (or "Chloe's father" for "your father"). */
interface ClauseName {
  end: number;
  text: string;
  /** The sex a relative's word says ("father"), when the name is one. */
  gender?: Gender;
}

/** The proper names of a clause, and the speaker's or listener's relatives it names ("my sister", "your father"), in order. */
function namesOf(tokens: readonly Token[], speaker?: { name: string; listener: string | null }): ClauseName[] {
  const out: ClauseName[] = [];
  for (let j = 0; j < tokens.length; j++) {
    const whose = tokens[j]!.lower === 'my' ? speaker?.name : tokens[j]!.lower === 'your' ? speaker?.listener : undefined;
    const word = tokens[j + 1]?.lower ?? '';
    if (whose && RELATIONS.has(word) && gender(word) && tokens[j + 1]!.pos === 'NOUN' && tokens[j + 2]?.pos !== 'PROPN') {
      out.push({ end: j + 2, text: `${whose}'s ${word}`, gender: gender(word) });
      j++;
      continue;
    }
    const name = properName(tokens, j, true);
    if (!name) continue;
    out.push({ end: name[0], text: name[1] });
    j = name[0] - 1;
  }
  return out;
}

/**
 * The person named last before the pronoun at `i` in its own clause, when one fits it: "Henrik
 * took me to his parents' cabin" is Henrik's, and "Mr. Olsen did the inspection and says he's
 * keeping 8,000" is Mr. Olsen, though the talk named others since Henrik or Mr. Olsen was last
 * registered (a clause's names count for later clauses only after it). A name counts as a person
 * when the segment typed it so or it is a first name or titled (`firstNameOf`), never a lone word
 * nothing types (a place, a firm), and its sex, where known, must be the pronoun's. The subject
 * and object of one verb are two people, so an object pronoun ("him") is left to the segment.
 */
function clausePerson(tokens: readonly Token[], i: number, pronoun: string, mentions: Mentions, exclude: ReadonlySet<string>, names: readonly ClauseName[]): string | null {
  const wanted: Gender = FEMININE.has(pronoun) ? 'female' : 'male';
  // A pronoun of the same sex earlier in the clause already took its name ("Diego walked with
  // him until he was ready": "he" is who "him" was); only a name said after it comes first.
  let after = -1;
  for (let j = i - 1; j >= 0 && after < 0; j--) if (tokens[j]!.pos === 'PRON' && (wanted === 'female' ? FEMININE : MASCULINE).has(tokens[j]!.lower)) after = j;
  // The nearest of those whose sex is the pronoun's, else the nearest whose sex is not known
  // ("your father sees Dr. Okafor about the test he had": the father).
  let open: string | null = null;
  for (let k = names.length - 1; k >= 0; k--) {
    const { end, text, gender: relative } = names[k]!;
    if (end > i || end <= after || exclude.has(text)) continue;
    const known = relative ? undefined : mentions.known(text);
    const first = relative ? { person: true, gender: relative } : firstNameOf(text);
    const person = known ? known.kind === 'person' || (known.kind === 'unknown' && first.person) : first.person;
    const gender = known?.gender ?? first.gender;
    if (!person || known?.plural) continue;
    if (gender === wanted) return text;
    if (gender === null) open ??= text;
  }
  return open;
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
