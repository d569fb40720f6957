/**
 * Who and what a conversation mentions, in order, so a later "she" or "it" can be replaced by the
 * name it stands for ("She is three." → "Pixel is three."). The lite language model tags proper
 * nouns but does not type them; the words around a name type it (a cat *named* Pixel, *my
 * sister* Ana, moved *to* Porto, works *at* St. Mary hospital). Kept to one segment: pronouns do
 * not reach across conversations.
 */
import { firstNameOf, isPlaceName, type Gender } from './first-names.js';
import type { Token } from './sentences.js';

export type { Gender };

/** `unknown`: a lone proper name nothing types ("SPQR", "Rio"); it may stand for a person or a thing. */
export type MentionKind = 'person' | 'animal' | 'place' | 'organization' | 'thing' | 'unknown';

export interface Mention {
  /** The name as written ("Pixel", "St. Mary hospital"), or a description ("Maya's sister"). */
  name: string;
  kind: MentionKind;
  gender: Gender;
  plural: boolean;
  /** What the name is of: "cat", "sister". */
  role: string | null;
  /** True when the name is a proper name rather than a description. */
  proper: boolean;
  /** Order of mention in the segment. */
  order: number;
  /** The message of the segment it was last mentioned in (counted by `Mentions.beginMessage`). */
  message: number;
}

export const SPECIES = new Set(['dog', 'cat', 'puppy', 'kitten', 'parrot', 'hamster', 'rabbit', 'bunny', 'horse', 'pony', 'turtle', 'tortoise', 'guinea pig', 'goldfish', 'fish', 'bird', 'budgie', 'lizard', 'snake', 'ferret', 'gecko', 'chicken', 'goat']);

/** Parents and grandparents by the word a child calls them, which a line uses as a name ("Dad says hi", "Papá just laughed"). */
const CALLED_FEMALE = ['mom', 'mum', 'mama', 'mamá', 'mommy', 'mummy', 'grandma', 'granny', 'nana', 'abuela'];
const CALLED_MALE = ['dad', 'papa', 'papá', 'daddy', 'grandpa', 'grandad', 'granddad', 'abuelo'];
const CALLED = new Set([...CALLED_FEMALE, ...CALLED_MALE]);
const FEMALE = ['wife', 'mother', ...CALLED_FEMALE, 'sister', 'daughter', 'grandmother', 'aunt', 'niece', 'girlfriend', 'stepmother', 'mother-in-law', 'granddaughter'];
const MALE = ['husband', 'father', ...CALLED_MALE, 'brother', 'son', 'grandfather', 'uncle', 'nephew', 'boyfriend', 'stepfather', 'father-in-law', 'grandson'];
const NEUTRAL = ['partner', 'spouse', 'cousin', 'child', 'kid', 'baby', 'parent', 'sibling', 'fiancé', 'fiance', 'fiancée', 'twin'];
const PLURAL_FAMILY = ['kids', 'children', 'parents', 'siblings', 'twins', 'grandparents', 'cousins', 'sons', 'daughters', 'brothers', 'sisters'];
export const RELATIONS = new Set([...FEMALE, ...MALE, ...NEUTRAL, ...PLURAL_FAMILY]);
/** People in a life who are no family ("my friend Tara", "my landlord"): someone, never an "it"; not the profile's family. */
const SOCIAL = new Set(['friend', 'bestie', 'bff', 'roommate', 'flatmate', 'neighbor', 'neighbour', 'colleague', 'coworker', 'co-worker', 'boss', 'classmate', 'teammate', 'mentor', 'coach', 'therapist', 'landlord', 'landlady']);

/** Nouns that finish an organisation's name ("St. Mary hospital", "Lincoln high school"). */
export const INSTITUTIONS = new Set(['hospital', 'clinic', 'school', 'university', 'college', 'academy', 'bank', 'library', 'cafe', 'café', 'restaurant', 'hotel', 'museum', 'church', 'center', 'centre', 'company', 'studio', 'bakery', 'pharmacy', 'office', 'lab', 'laboratory', 'institute', 'agency', 'firm', 'store', 'shop', 'gym', 'theater', 'theatre', 'zoo', 'airport', 'station', 'factory', 'hall', 'high']);

/** Work people do ("nurse", "mechanic"): a role, never a name, even capitalised at the head of a sentence ("Mechanic says …"). */
export const OCCUPATIONS = new Set(['engineer', 'developer', 'nurse', 'teacher', 'doctor', 'student', 'designer', 'manager', 'lawyer', 'writer', 'artist', 'chef', 'cook', 'scientist', 'researcher', 'accountant', 'consultant', 'programmer', 'analyst', 'photographer', 'musician', 'pharmacist', 'architect', 'therapist', 'professor', 'librarian', 'journalist', 'entrepreneur', 'freelancer', 'mechanic', 'electrician', 'plumber', 'pilot', 'farmer', 'firefighter', 'officer', 'dentist', 'veterinarian', 'vet', 'editor', 'marketer', 'salesperson', 'retiree', 'baker', 'barista', 'waiter', 'waitress', 'carpenter', 'paramedic', 'surgeon', 'translator', 'cashier', 'driver', 'tutor', 'coach', 'secretary', 'receptionist', 'janitor', 'clerk', 'banker', 'economist', 'physicist', 'chemist', 'biologist', 'psychologist', 'sociologist', 'historian', 'actor', 'actress', 'dancer', 'singer', 'illustrator', 'animator', 'intern', 'technician', 'administrator', 'director', 'ceo', 'founder', 'mathematician', 'statistician', 'paralegal', 'midwife', 'caregiver', 'nanny', 'gardener', 'butcher', 'tailor', 'soldier', 'policeman', 'detective', 'postman', 'housewife']);

/** Cries a chat line may open with ("Yikes.", "Phew, …"): no name, and nothing the clause says. */
export const INTERJECTIONS = ['yikes', 'phew', 'whoa', 'oops', 'ooh', 'ahh', 'geez', 'jeez', 'meh'];

/** Capitalised words the model may tag as names that never are one here. */
const NOT_NAMES = new Set([...INTERJECTIONS, 'i', 'hi', 'hey', 'hello', 'due', 'guess', 'congrats', 'morning', 'evening', 'thanks', 'thank', 'ok', 'okay', 'yes', 'no', 'yeah', 'sure', 'oh', 'wow', 'lol', 'haha', 'hahaha', 'omg', 'lmao', 'tbh', 'idk', 'btw', 'imo', 'ugh', 'yay', 'aww', 'omw', 'brb', 'ttyl', 'xoxo', 'gotta', 'gonna', 'wanna', 'please', 'sorry', 'dear', 'congratulations', 'welcome', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'mondays', 'tuesdays', 'wednesdays', 'thursdays', 'fridays', 'saturdays', 'sundays', 'weekends', 'january', 'february', 'march', 'april', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'christmas', 'easter', 'today', 'tomorrow', 'yesterday', 'tonight', 'english', 'good', 'great', 'cool', 'nice', 'happy', 'what', 'how', 'why', 'when', 'where', 'who', 'can', 'could', 'would', 'should', 'do', 'does', 'is', 'are', 'will', 'let', 'tell', 'any', 'also', 'btw', 'ai', 'assistant']);
/** Lower-case words that may join a multi-word name ("Rio de Janeiro", "Bank of America"). */
const NAME_JOINERS = new Set(['de', 'da', 'do', 'dos', 'del', 'la', 'of', 'von', 'van', 'upon', 'on', 'am', '&']);

/** The sex a word for a relative says ("sister", "dad"), or null ("cousin"). */
export function gender(word: string): Gender {
  if (FEMALE.includes(word)) return 'female';
  if (MALE.includes(word)) return 'male';
  return null;
}

/** Words before a noun that say whose or which it is ("his dad", "the mum at the gate"): then no name. */
const DETERMINERS = new Set(['the', 'a', 'an', 'his', 'her', 'their', 'your', 'my', 'our', 'its', 'this', 'that', "'s"]);

/** Titles that open a name ("Dr. Chen", "St. Mary"), only when a name follows. */
const TITLES = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'mt', 'sr', 'jr']);

/** True for a token that can be part of a proper name. */
export function isNameToken(t: Token | undefined): boolean {
  if (!t) return false;
  if (TITLES.has(withoutStop(t.lower))) return /^\p{Lu}/u.test(t.text);
  if (t.pos !== 'PROPN' && !(t.pos === 'NOUN' && /^\p{Lu}/u.test(t.text))) return false;
  // A lower-case word the tokenizer kept with its full stop ("the midnight sun." read as "Sun.") is no name.
  if (t.text.endsWith('.') && !/^\p{Lu}/u.test(t.text)) return false;
  // A letter held three times is a cry ("Noooo", "Yesss"), no name.
  return /^\p{L}/u.test(t.text) && !NOT_NAMES.has(withoutStop(t.lower)) && !/(\p{L})\1\1/u.test(t.lower);
}

/** The word without a full stop the tokenizer kept on it ("dr." → "dr"). */
function withoutStop(word: string): string {
  return word.endsWith('.') ? word.slice(0, -1) : word;
}

/** The proper name starting at token `i` ("St. Mary", "Rio de Janeiro"), as [end index, text], or null. */
export function properName(tokens: readonly Token[], i: number, sentenceStart = false): [number, string] | null {
  if (!isNameToken(tokens[i])) return null;
  const isTitle = (t: Token | undefined) => !!t && TITLES.has(withoutStop(t.lower));
  if (isTitle(tokens[i]) && (!isNameToken(tokens[i + 1]) || isTitle(tokens[i + 1]))) return null;
  if (sentenceStart && i === 0) {
    // A capitalised first word is a name only if the model says so, it is no plural of a common
    // noun ("Cats and …") and no exclamation ("Congratulations!").
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.pos !== 'PROPN' || next?.text === '!' || OCCUPATIONS.has(t.lower) || RELATIONS.has(t.lower) || SOCIAL.has(t.lower) || SPECIES.has(t.lower)) return null;
    if (t.lower.endsWith('s') && (t.lemma !== t.lower || ['and', ',', 'are', 'were', 'have', 'can', 'could', 'love', 'like', 'make'].includes(next?.lower ?? ''))) return null;
    if (next && !isNameToken(next) && !['VERB', 'AUX', 'PUNCT', 'CCONJ', 'ADP', 'PART'].includes(next.pos)) return null;
  }
  let end = i + 1;
  while (end < tokens.length) {
    if (isNameToken(tokens[end])) end++;
    else if (NAME_JOINERS.has(tokens[end]!.lower) && isNameToken(tokens[end + 1]) && tokens[end + 1]!.pos === 'PROPN') end += 2;
    else break;
  }
  if (isTitle(tokens[end - 1])) end--;
  if (end <= i) return null;
  return [end, tokens.slice(i, end).map((t, k) => (k === 0 ? t.text : t.space + t.text)).join('')];
}

/** The forms of "she" and of "he" (pronouns.ts reads them too). */
export const FEMININE: ReadonlySet<string> = new Set(['she', 'her', 'hers', 'herself']);
export const MASCULINE: ReadonlySet<string> = new Set(['he', 'him', 'his', 'himself']);
const IT_PRONOUNS = new Set(['it', 'its', 'itself']);
/** Possessives before "name is" that name whoever they stand for ("His name is Biscuit"). */
const NAMING_PRONOUNS = new Set(['his', 'her', 'its', 'their']);

/** The mentions of a segment so far, newest last. */
export class Mentions {
  private list: Mention[] = [];
  /** The listed mention of each name, by its lower-case form (one per name). */
  private byName = new Map<string, Mention>();
  private counter = 0;
  private message = 0;
  /** The order of the first mention after the last change of topic ("By the way, …"). */
  private topicFrom = 0;
  /** The message an animal was last spoken of in (null: none yet). */
  private animalMessage: number | null = null;
  /**
   * Where the talk last named a thing no mention holds ("a great book", "business management"):
   * the order the next mention got then, and the message.
   */
  private thing: { order: number; message: number } | null = null;

  /** Starts a new message. */
  beginMessage(): void {
    this.message++;
  }

  /** The talk turns to another topic ("By the way, …", "Anyway, …"): what came before is no longer what "it" stands for. */
  changeTopic(): void {
    this.topicFrom = this.counter;
  }

  /** A pet or other animal was spoken of in this message or the two before ("a puppy", "my cat"). */
  animalNearby(): boolean {
    return this.animalMessage !== null && this.animalMessage >= this.message - 2;
  }

  /** An animal is spoken of now, named or not ("a golden retriever puppy"). */
  noteAnimal(): void {
    this.animalMessage = this.message;
  }

  /** A thing is spoken of now that no mention holds ("I read a great book", "to study business management"). */
  noteThing(): void {
    this.thing = { order: this.counter, message: this.message };
  }

  add(m: Omit<Mention, 'order' | 'message'>): Mention {
    const key = m.name.toLowerCase();
    const existing = this.byName.get(key);
    // What a name was first typed as wins over a weaker guess later ("my daughter Emma", then "to Emma").
    const keep = existing && existing.kind !== 'unknown' && !m.role;
    const merged: Mention = { ...m, ...(keep ? { kind: existing.kind, role: existing.role, gender: existing.gender, plural: existing.plural } : {}), order: this.counter++, message: this.message };
    if (existing) this.list.splice(this.list.indexOf(existing), 1);
    this.list.push(merged);
    this.byName.set(key, merged);
    return merged;
  }

  all(): readonly Mention[] {
    return this.list;
  }

  /** The mention of a name, if the segment has one. */
  known(name: string): Mention | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /** The order the next mention gets: mentions added (or named again) from here on have this order or a later one. */
  next(): number {
    return this.counter;
  }

  /** The newest mention a third-person pronoun can stand for, or null when none fits. */
  resolve(pronoun: string, exclude: ReadonlySet<string>): Mention | null {
    const p = pronoun.toLowerCase();
    const fits = (m: Mention): boolean => {
      if (exclude.has(m.name)) return false;
      // What "it" or "they" stands for is a thing of the talk just before: this message or the two
      // before it (a question, its answer), and not from before a change of topic ("… in Europe or
      // Asia. By the way, I moved and it's been a big adjustment"). People and pets stay for the segment.
      const thing = m.kind === 'thing' || m.kind === 'place' || m.kind === 'organization' || m.kind === 'unknown';
      if (thing && (m.message < this.message - 2 || m.order < this.topicFrom) && !FEMININE.has(p) && !MASCULINE.has(p)) return false;
      // A big city the first-name lists hold as a name ("London is wild") is no "he" or "she".
      const personLike = m.kind === 'person' || m.kind === 'animal' || (m.kind === 'unknown' && !isPlaceName(m.name));
      if (FEMININE.has(p)) return !m.plural && (m.gender === 'female' || (m.gender === null && personLike));
      if (MASCULINE.has(p)) return !m.plural && (m.gender === 'male' || (m.gender === null && personLike));
      // "it" is no one named by a first name ("Henrik … The doctor thinks it's a sprain").
      if (IT_PRONOUNS.has(p)) return !m.plural && !untypedPhrase(m) && (m.kind === 'animal' || m.kind === 'thing' || m.kind === 'organization' || m.kind === 'place' || (m.kind === 'unknown' && !firstNameOf(m.name).person && !isPlaceName(m.name)));
      if (['they', 'them', 'their', 'theirs', 'themselves'].includes(p)) return m.plural;
      return false;
    };
    // "he" and "she" stand for a person or a pet before a name of several words that nothing types
    // ("Leah … the ridge at Mam Tor … she was zooming along"): such a name only when nothing else fits.
    const gendered = FEMININE.has(p) || MASCULINE.has(p);
    let untyped: Mention | null = null;
    for (let i = this.list.length - 1; i >= 0; i--) {
      const m = this.list[i]!;
      if (!fits(m)) continue;
      if (gendered && untypedPhrase(m)) {
        untyped ??= m;
        continue;
      }
      // "I read a great book, I'll lend it to you"; "… to study business management." "You'd be
      // great at it": a thing named since, in this message or the one before, is likelier what
      // "it" means than the older mention (a puppy named earlier). No mention holds that thing,
      // so the clause makes no claim (its words stay in the episode) rather than a wrong one.
      const thingSince = this.thing !== null && this.thing.order > m.order && this.thing.message >= this.message - 1;
      return IT_PRONOUNS.has(p) && thingSince ? null : m;
    }
    return untyped;
  }
}

/**
 * A name of several words that opens with no first name and that nothing types ("Mam Tor",
 * "Leeds United", "Manchester Marathon"): a place, a team, an event or a person, so neither the
 * "he" or "she" of the next line before a person does, nor an "it" (read as one, "I knew it!"
 * was "Priya knew Manchester Marathon"). A single untyped word ("Biscuit", "Olu") is often a pet
 * or a name the lists lack, and stays what the nearest pronoun may stand for.
 */
function untypedPhrase(m: Mention): boolean {
  return m.kind === 'unknown' && m.proper && /\s/.test(m.name);
}

/**
 * Registers what a sentence mentions: named pets and relatives, relatives and pets of the speaker
 * ("my sister"), and other proper names typed by the preposition before them.
 */
export function noteMentions(tokens: readonly Token[], owner: string, mentions: Mentions, listener: string | null = null): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const word = t.lower;
    // "His name is Biscuit", "her name's Ana": a name for whoever the pronoun stood for, a later "he" or "she".
    if (NAMING_PRONOUNS.has(word) && tokens[i + 1]?.lower === 'name' && ['is', "'s", 'was'].includes(tokens[i + 2]?.lower ?? '')) {
      const name = properName(tokens, i + 3);
      if (name) {
        const animal = mentions.animalNearby();
        mentions.add({ name: name[1], kind: animal ? 'animal' : 'person', gender: word === 'her' ? 'female' : word === 'his' ? 'male' : null, plural: false, role: null, proper: true });
        i = name[0] - 1;
        continue;
      }
    }
    const previous = tokens[i - 1]?.lower;
    const possessor = previous === 'my' || previous === 'our' ? owner : previous === 'your' && listener ? listener : null;
    if ((SPECIES.has(word) || RELATIONS.has(word) || SOCIAL.has(word)) && (t.pos === 'NOUN' || t.pos === 'PROPN')) {
      const animal = SPECIES.has(word);
      if (animal) mentions.noteAnimal();
      const plural = PLURAL_FAMILY.includes(word);
      // "a cat named Pixel", "my sister Ana", "my dog, Biscuit", "my brother is called Tom"
      let j = i + 1;
      if (tokens[j]?.text === ',') j++;
      if (['is', 'was'].includes(tokens[j]?.lower ?? '') && ['named', 'called'].includes(tokens[j + 1]?.lower ?? '')) j++;
      if (['named', 'called'].includes(tokens[j]?.lower ?? '')) j++;
      const name = properName(tokens, j);
      const whose = possessor ?? (['my', 'our'].includes(tokens[i - 2]?.lower ?? '') && tokens[i - 1]!.pos === 'ADJ' ? owner : null);
      if (name && !plural) {
        mentions.add({ name: name[1], kind: animal ? 'animal' : 'person', gender: gender(word) ?? firstNameOf(name[1]).gender, plural: false, role: word, proper: true });
        i = name[0] - 1;
      } else if (whose) {
        mentions.add({ name: `${whose}'s ${word}`, kind: animal ? 'animal' : 'person', gender: gender(word), plural, role: word, proper: false });
      } else if (CALLED.has(word) && /^\p{Lu}/u.test(t.text) && !DETERMINERS.has(previous ?? '')) {
        // "Dad left the gas ring on", "Papá just laughed": the speaker's, called as a name.
        mentions.add({ name: `${owner}'s ${word}`, kind: 'person', gender: gender(word), plural: false, role: word, proper: false });
      }
      continue;
    }
    if (t.pos === 'NOUN' && !/^\p{Lu}/u.test(t.text)) {
      // "my knee" → "Ben's knee" for a later "it"; a plural ("peanuts") for a later "them".
      const plural = t.lower !== t.lemma && t.lower.endsWith('s');
      if (possessor && tokens[i + 1]?.pos !== 'NOUN' && !predicateOfPronoun(tokens, i - 1)) mentions.add({ name: `${possessor}'s ${t.text}`, kind: 'thing', gender: null, plural, role: null, proper: false });
      else if (plural && !possessor && tokens[i + 1]?.pos !== 'NOUN' && ['ADP', 'VERB', 'ADJ'].includes(tokens[i - 1]?.pos ?? '')) mentions.add({ name: t.text, kind: 'thing', gender: null, plural: true, role: null, proper: false });
      else if (!plural && isThingNoun(tokens, i)) mentions.noteThing();
      continue;
    }
    const name = properName(tokens, i, true);
    if (!name) continue;
    let [end, text] = name;
    // "I read Becoming Nicole, it really moved me": a capitalised gerund inside a sentence opens a
    // title ("Finding Nemo"), and the title is a thing; read as the name "Nicole", the "it" after
    // it became a person ("Nicole really moved Sam").
    if (titleGerund(tokens, i - 1)) {
      mentions.add({ name: `${tokens[i - 1]!.text}${tokens[i]!.space}${text}`, kind: 'thing', gender: null, plural: false, role: null, proper: true });
      i = end - 1;
      continue;
    }
    const before = tokens[i - 1]?.lower ?? '';
    // "New Year's Eve", "Christmas Eve", "Mother's Day": a day's name, no one's (read as the
    // name "Eve", it was the "she" of the next line).
    if (holidayName(tokens, i, end)) {
      i = end + (tokens[end]?.text === "'s" && isNameToken(tokens[end + 1]) ? 1 : 0);
      continue;
    }
    const beforeThe = before === 'the' ? tokens[i - 2]?.lower ?? '' : before;
    let kind: MentionKind = end - i > 1 ? 'person' : 'unknown';
    if (tokens[end]?.text === "'s" && INSTITUTIONS.has(tokens[end + 1]?.lower ?? '')) {
      text += tokens[end]!.text;
      end++;
    }
    while (end < tokens.length && INSTITUTIONS.has(tokens[end]!.lower) && tokens[end]!.pos === 'NOUN') {
      text += tokens[end]!.space + tokens[end]!.text;
      end++;
      kind = 'organization';
    }
    // A name that modifies a common noun ("Thai food", "Roman history") is no mention of its own.
    if (kind !== 'organization' && tokens[end]?.pos === 'NOUN' && !/^\p{Lu}/u.test(tokens[end]!.text)) {
      i = end - 1;
      continue;
    }
    if (/'s$/.test(text) && kind !== 'organization') text = text.slice(0, -2);
    if (kind !== 'organization') {
      if (['in', 'to', 'from', 'near', 'visit', 'visiting', 'visited', 'around', 'across'].includes(beforeThe)) kind = 'place';
      else if (['at', 'for'].includes(beforeThe)) kind = 'organization';
    }
    // A first name (or a title) says which of "he" and "she" stands for a name; a name of several
    // words that opens with neither ("Mam Tor", "County Kerry") is untyped. A lone first name
    // stays untyped, so a later "in Montreal" still makes it a place (`add`), but it is no "it"
    // (`resolve`).
    const first = kind === 'unknown' || kind === 'person' ? firstNameOf(text) : null;
    if (first && kind === 'person') kind = first.person ? 'person' : 'unknown';
    mentions.add({ name: text, kind, gender: first?.gender ?? null, plural: false, role: null, proper: true });
    i = end - 1;
  }
}

/** Names of days that end in a common word after a name or a feast: "New Year's Eve", "Christmas Eve", "Valentine's Day". */
const DAY_HEADS = new Set(['eve', 'day']);
const FEASTS = new Set(['christmas', 'easter', 'boxing', 'labor', 'labour', 'memorial', 'independence', 'thanksgiving', 'election']);

/**
 * Whether the name at `i`..`end` is a day's name or the first part of one: "Eve" after "'s" or a
 * feast ("New Year's Eve", "Christmas Eve"), or "New Year" before "'s Eve".
 */
function holidayName(tokens: readonly Token[], i: number, end: number): boolean {
  const head = (k: number) => DAY_HEADS.has(tokens[k]?.lower ?? '') && /^\p{Lu}/u.test(tokens[k]!.text);
  if (end - i === 1 && head(i) && (tokens[i - 1]?.text === "'s" || FEASTS.has(tokens[i - 1]?.lower ?? ''))) return true;
  return tokens[end]?.text === "'s" && head(end + 1);
}

/** Whether the token at `i` is a capitalised gerund inside its sentence, the first word of a title before a name ("Finding Nemo"). */
function titleGerund(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i];
  return i > 0 && !!t && t.pos === 'VERB' && /^\p{Lu}\p{Ll}+ing$/u.test(t.text) && !/^[.!?:;"“(]$/.test(tokens[i - 1]!.text);
}

const DEFINITE = new Set(['the', 'this', 'that', 'these', 'those']);
/** Nouns of time and amount ("last week", "a lot", "all the time"): no thing a later "it" stands for. */
const NOT_THINGS = new Set(['day', 'week', 'month', 'year', 'weekend', 'morning', 'afternoon', 'evening', 'night', 'today', 'tonight', 'time', 'moment', 'minute', 'hour', 'second', 'while', 'lot', 'bit', 'way', 'kind', 'sort', 'part', 'rest', 'end', 'start', 'thing', 'stuff', 'idea', 'sense', 'luck', 'fun']);

/**
 * Whether the lower-case, singular noun at `i` brings in a thing of its own that a later "it" may
 * stand for: the head of its phrase (not "business" of "business plan"), no word of time or
 * amount, and not definite: "the trip" after "I was in Rio" is what was already spoken of, "a
 * great book" is new.
 */
function isThingNoun(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  if (tokens[i + 1]?.pos === 'NOUN' || NOT_THINGS.has(t.lemma.toLowerCase())) return false;
  let lead = i - 1;
  while (lead >= 0 && ['NOUN', 'ADJ', 'ADV', 'NUM'].includes(tokens[lead]!.pos) && /^\p{Ll}/u.test(tokens[lead]!.text)) lead--;
  return !DEFINITE.has(tokens[lead]?.lower ?? '');
}

/** Personal pronouns whose "be" predicate describes them: "it's been my way to relax" says what "it" is. */
const DESCRIBED_PRONOUNS = new Set(['it', 'he', 'she', 'they']);

/**
 * Whether the phrase starting at token `start` ("my way") is what a personal pronoun is said to be
 * ("it's been my way to relax", "she was my rock"): it names nothing new for a later "it", which
 * still stands for what the pronoun did. After "this is" or a name it is a thing of its own ("This
 * is my car. It is red.").
 */
function predicateOfPronoun(tokens: readonly Token[], start: number): boolean {
  let j = start - 1;
  let copula = false;
  for (; j >= 0 && (tokens[j]!.pos === 'AUX' || tokens[j]!.pos === 'ADV' || tokens[j]!.pos === 'PART'); j--) {
    if (tokens[j]!.lemma.toLowerCase() === 'be' || ["'s", 'is', 'was', 'been', 'are', 'were', "'re"].includes(tokens[j]!.lower)) copula = true;
  }
  return copula && j >= 0 && tokens[j]!.pos === 'PRON' && DESCRIBED_PRONOUNS.has(tokens[j]!.lower);
}
