/**
 * Explicit profile facts a user states about themselves, read from the tagged words of a claim:
 * name, age, where they live, occupation and workplace, pets, family, likes, dislikes and
 * allergies. Values are cut where the words stop naming the thing ("I live in Lisbon last week" is
 * a place, Lisbon; "a nurse at St. Mary hospital" is an occupation and a workplace). Implicit traits
 * need judgement and are left to an LLM extractor; the rules never invent them.
 *
 * The stored shape (`profile_data`): scalar fields (`name`, `age`, `location`, `occupation`,
 * `workplace`) hold the current value; list fields (`pets` as "Pixel (cat)", `family` as
 * "Ana (sister)", `likes`, `dislikes`, `allergies`) are unioned; `sources` maps each field to the
 * message ids that stated it; `history` keeps each superseded scalar value:
 * `{ field, value, source_message_ids, superseded_at, superseded_by }`.
 */
import { INSTITUTIONS, OCCUPATIONS, properName, RELATIONS, SPECIES } from './mentions.js';
import type { Token } from './sentences.js';

export const SCALAR_FIELDS = ['name', 'age', 'location', 'occupation', 'workplace'] as const;
export const LIST_FIELDS = ['pets', 'family', 'likes', 'dislikes', 'allergies'] as const;
export type ProfileField = (typeof SCALAR_FIELDS)[number] | (typeof LIST_FIELDS)[number];

export interface ProfileStatement {
  field: ProfileField;
  value: string;
}

export interface ProfileHistoryEntry {
  field: string;
  value: unknown;
  source_message_ids: string[];
  superseded_at: number | null;
  superseded_by: unknown;
}

const STOP = new Set([',', '.', '!', '?', ';', ':', 'but', 'because', 'so', 'since', 'which', 'who', 'when', 'while', 'if', 'and', 'although', 'though', 'now', 'anymore', 'too', 'either', 'lately', 'recently', 'these', 'nowadays']);
const TIME_WORDS = new Set(['last', 'next', 'this', 'yesterday', 'tomorrow', 'today', 'tonight', 'ago', 'every', 'each', 'since', 'for', 'on', 'in', 'at', 'during', 'before', 'after', 'with', 'from', 'until', 'about']);

function words(tokens: readonly Token[]): string[] {
  return tokens.map((t) => t.lower);
}

/** Index of the first occurrence of a word sequence in a clause's lower-case words, or -1. */
function find(w: readonly string[], seq: string[], from = 0): number {
  outer: for (let i = from; i <= w.length - seq.length; i++) {
    for (let k = 0; k < seq.length; k++) if (w[i + k] !== seq[k] && !(seq[k] === '*')) continue outer;
    return i;
  }
  return -1;
}

function text(tokens: readonly Token[]): string {
  return tokens.map((t, i) => (i === 0 ? t.text : t.space + t.text)).join('').trim();
}

/** A place: a proper name ("Lisbon", "São Paulo", "New York"), never the words after it. */
function place(tokens: readonly Token[], i: number): string | null {
  const start = tokens[i]?.lower === 'the' ? i + 1 : i;
  const name = properName(tokens, start);
  return name ? name[1] : null;
}

/** A workplace: a proper name with the institution noun after it ("St. Mary hospital"), or "a bakery". */
function workplace(tokens: readonly Token[], i: number): string | null {
  let start = tokens[i]?.lower === 'the' ? i + 1 : i;
  const name = properName(tokens, start);
  if (name) {
    let [end, value] = name;
    while (end < tokens.length && INSTITUTIONS.has(tokens[end]!.lower) && tokens[end]!.pos === 'NOUN') value += tokens[end]!.space + tokens[end++]!.text;
    return value;
  }
  if (['a', 'an'].includes(tokens[start]?.lower ?? '')) start++;
  const np = nounPhrase(tokens, start);
  return np && INSTITUTIONS.has(np.split(' ').pop()!.toLowerCase()) ? np : null;
}

/** Adjectives and nouns up to the head noun ("night nurse", "software engineer"). */
function nounPhrase(tokens: readonly Token[], i: number): string | null {
  let end = i;
  while (end < tokens.length && ['ADJ', 'NOUN', 'PROPN'].includes(tokens[end]!.pos) && !STOP.has(tokens[end]!.lower)) end++;
  if (end === i || !['NOUN', 'PROPN'].includes(tokens[end - 1]!.pos)) return null;
  return text(tokens.slice(i, end));
}

/** What someone likes: the object up to the end of the clause, a time phrase or 6 words. */
function object(tokens: readonly Token[], i: number): string | null {
  let start = i;
  if (tokens[start]?.lower === 'to' && tokens[start + 1]?.pos === 'VERB') start++;
  const first = tokens[start];
  if (!first || first.pos === 'PRON' || ['it', 'that', 'this', 'them', 'to', 'a', 'the'].includes(first.lower) && !['NOUN', 'ADJ', 'PROPN'].includes(tokens[start + 1]?.pos ?? '')) return null;
  let end = start;
  while (end < tokens.length && end - start < 6 && !STOP.has(tokens[end]!.lower) && !(end > start && TIME_WORDS.has(tokens[end]!.lower) && tokens[end]!.lower !== 'in' && tokens[end]!.lower !== 'with')) end++;
  while (end > start && ['ADP', 'DET', 'CCONJ', 'PART', 'ADV'].includes(tokens[end - 1]!.pos)) end--;
  if (end === start) return null;
  const value = text(tokens.slice(start, end)).replace(/^(the|a|an) /i, '');
  return value.length > 1 ? value : null;
}

/** Pets and relatives of the speaker: "I have a cat named Pixel", "my sister Ana", "my dog, Biscuit". */
/**
 * "I have / got / adopted … a": the speaker owns what the clause names after it. The word between
 * is lazy, so each match is the shortest from its start ("i got" before "i got bought"): the
 * earliest end is what `ownedBefore` needs.
 */
const OWNING = /\bi (?:[a-z]+ )??(?:have|has|got|adopted|rescued|own|bought|am getting)\b/g;

/**
 * Whether the first `k` words hold an "I have …" (`OWNING`), for any `k`: the words are joined and
 * searched once, and the earliest end of a match says from which `k` on it is there. Asking the
 * regex of each prefix would cost the clause's length for every pet or relative it names.
 */
function ownedBefore(w: readonly string[]): (k: number) => boolean {
  const joined = w.join(' ');
  let end = Infinity;
  OWNING.lastIndex = 0;
  for (let m = OWNING.exec(joined); m; m = OWNING.exec(joined)) {
    end = Math.min(end, m.index + m[0].length);
    OWNING.lastIndex = m.index + 1;
  }
  if (end === Infinity) return () => false;
  // The length of the first k words joined: the match lies in them when it ends within it.
  let length = -1;
  const within: number[] = [0];
  for (const word of w) within.push((length += word.length + 1));
  return (k) => (within[k] ?? Infinity) >= end;
}

function belongings(tokens: readonly Token[], out: ProfileStatement[]): void {
  const w = words(tokens);
  let owning: ((k: number) => boolean) | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const word = w[i]!;
    const animal = SPECIES.has(word);
    if ((!animal && !RELATIONS.has(word)) || tokens[i]!.pos === 'VERB') continue;
    // Whose: "my/our …", or "I have/got/adopted a …" earlier in the clause.
    let k = i - 1;
    while (k >= 0 && ['ADJ', 'NUM'].includes(tokens[k]!.pos)) k--;
    const owned = ['my', 'our'].includes(w[k] ?? '') || (['a', 'an', 'two', 'three', 'new'].includes(w[k] ?? '') && (owning ??= ownedBefore(w))(k));
    if (!owned) continue;
    let j = i + 1;
    if (w[j] === ',') j++;
    if (['is', 'was'].includes(w[j] ?? '') && ['named', 'called'].includes(w[j + 1] ?? '')) j++;
    if (['named', 'called'].includes(w[j] ?? '')) j++;
    const name = properName(tokens, j);
    const field = animal ? 'pets' : 'family';
    out.push({ field, value: name ? `${name[1]} (${word})` : word });
  }
}

/** "Aiko's cat's name is Mochi." / "Aiko's cat is named Mochi." → a pet (or relative) with its name. */
export function namedBelonging(content: string, owner: string): ProfileStatement | null {
  if (!content.includes(' name') && !content.includes(' called')) return null;
  const m = new RegExp(`^${owner}'s ([a-z-]+)(?:'s name is| is (?:named|called)) (\\p{Lu}[\\p{L}'-]+)`, 'u').exec(content);
  if (!m) return null;
  if (SPECIES.has(m[1]!)) return { field: 'pets', value: `${m[2]} (${m[1]})` };
  if (RELATIONS.has(m[1]!)) return { field: 'family', value: `${m[2]} (${m[1]})` };
  return null;
}

/** The word sequences that open each kind of statement, in the order they are tried. */
const NAME_AFTER: string[][] = [['my', 'name', 'is'], ['call', 'me'], ['i', 'am', 'called'], ['i', 'go', 'by']];
const LOCATION_AFTER: string[][] = [['i', 'live', 'in'], ['i', 'am', 'living', 'in'], ['i', 'have', 'been', 'living', 'in'], ['i', 'reside', 'in'], ['i', 'am', 'based', 'in'], ['i', 'moved', 'to'], ['i', 'just', 'moved', 'to'], ['i', 'have', 'moved', 'to'], ['i', 'recently', 'moved', 'to'], ['i', 'relocated', 'to'], ['we', 'moved', 'to'], ['we', 'live', 'in'], ['i', 'now', 'live', 'in'], ['i', 'live', 'in', 'the', 'city', 'of']];
const WORKPLACE_AFTER: string[][] = [['i', 'work', 'at'], ['i', 'work', 'for'], ['i', 'am', 'working', 'at'], ['i', 'am', 'working', 'for'], ['i', 'work', 'in'], ['i', 'just', 'started', 'at'], ['i', 'started', 'working', 'at'], ['i', 'joined']];
const DISLIKE_AFTER: string[][] = [['i', 'do', "n't", 'like'], ['i', 'do', 'not', 'like'], ['i', 'hate'], ['i', 'really', 'hate'], ['i', 'dislike'], ['i', 'ca', "n't", 'stand'], ['i', 'can', 'not', 'stand'], ['i', 'cannot', 'stand'], ['i', 'detest'], ['i', 'do', "n't", 'enjoy']];
const LIKE_AFTER: string[][] = [['i', 'love'], ['i', 'like'], ['i', 'enjoy'], ['i', 'adore'], ['i', 'really', 'love'], ['i', 'really', 'like'], ['i', 'really', 'enjoy'], ['i', 'absolutely', 'love'], ['i', 'am', 'a', 'big', 'fan', 'of'], ['i', 'am', 'a', 'fan', 'of'], ['i', 'am', 'a', 'huge', 'fan', 'of'], ['i', 'am', 'into'], ['i', 'am', 'really', 'into'], ['i', 'am', 'passionate', 'about'], ['my', 'favorite', '*', 'is'], ['my', 'favourite', '*', 'is']];
const ALLERGY_AFTER: string[][] = [['i', 'am', 'allergic', 'to'], ['i', 'have', 'an', 'allergy', 'to'], ['i', 'am', 'severely', 'allergic', 'to'], ['i', 'am', 'very', 'allergic', 'to']];
const WORK_AS: string[][] = [['i', 'work', 'as'], ['i', 'am', 'working', 'as'], ['i', 'have', 'been', 'working', 'as'], ['i', 'worked', 'as']];

/** The profile statements in one first-person clause (its words as spoken). */
export function profileStatements(tokens: readonly Token[]): ProfileStatement[] {
  const out: ProfileStatement[] = [];
  const w = words(tokens);
  // The clause as one string, for the patterns that read it whole (made once, not per pattern).
  const joined = w.join(' ');
  const at = (seq: string[]) => find(w, seq);
  const after = (seqs: string[][], read: (i: number) => string | null, field: ProfileField) => {
    for (const seq of seqs) {
      const i = at(seq);
      if (i < 0) continue;
      const value = read(i + seq.length);
      if (value) {
        out.push({ field, value });
        return true;
      }
    }
    return false;
  };
  const negated = /\b(not|never|n't|no longer)\b/.test(joined);

  // Name
  after(NAME_AFTER, (i) => place(tokens, i), 'name');
  if (w[0] === 'i' && w[1] === 'am') {
    const name = properName(tokens, 2);
    if (name && (name[0] === tokens.length || [',', '.', '!', 'and'].includes(w[name[0]] ?? ''))) out.push({ field: 'name', value: name[1] });
  }
  // Age
  const age = /\bi am (\d{1,3})(?: years? old)?\b(?! (?:minutes|hours|days|weeks|months|km|miles|kg|percent))|\bi (?:just )?turned (\d{1,3})\b/.exec(joined);
  if (age && Number(age[1] ?? age[2]) < 120) out.push({ field: 'age', value: age[1] ?? age[2]! });
  // Where they live (not where they will move: that is a plan)
  if (!negated && !/\b(will|going to|gonna|plan|planning|want|would|might|hope|used to|next)\b/.test(joined)) {
    after(LOCATION_AFTER, (i) => place(tokens, i), 'location');
    const from = at(['moved', 'from']);
    if (from >= 0) {
      const to = find(w, ['to'], from + 2);
      if (to >= 0) {
        const value = place(tokens, to + 1);
        if (value) out.push({ field: 'location', value });
      }
    }
  }
  // Occupation and workplace
  if (!negated) {
    const asAt = ((): number => {
      for (const seq of WORK_AS) {
        const i = at(seq);
        if (i >= 0 && seq[1] !== 'worked') return i + seq.length;
      }
      const i = at(['i', 'am']);
      if (i >= 0 && ['a', 'an'].includes(w[i + 2] ?? '')) {
        const np = nounPhrase(tokens, i + 3);
        const head = np?.split(' ').pop()?.toLowerCase() ?? '';
        if (np && (OCCUPATIONS.has(head) || /(?:ist|ician|ologist|eer)$/.test(head))) return i + 2;
      }
      return -1;
    })();
    if (asAt >= 0) {
      const start = ['a', 'an'].includes(w[asAt] ?? '') ? asAt + 1 : asAt;
      const np = nounPhrase(tokens, start);
      if (np) {
        out.push({ field: 'occupation', value: np });
        const end = start + np.split(/\s+/).length;
        if (['at', 'for'].includes(w[end] ?? '')) {
          const place = workplace(tokens, end + 1);
          if (place) out.push({ field: 'workplace', value: place });
        }
      }
    }
    after(WORKPLACE_AFTER, (i) => workplace(tokens, i), 'workplace');
  }
  // Likes, dislikes, allergies
  if (!/\b(would|should|could)\b/.test(joined)) {
    const dislike = after(DISLIKE_AFTER, (i) => object(tokens, i), 'dislikes');
    if (!dislike && !negated) after(LIKE_AFTER, (i) => object(tokens, i), 'likes');
  }
  if (!negated) {
    after(ALLERGY_AFTER, (i) => object(tokens, i), 'allergies');
    const allergy = at(['allergy']);
    if (allergy >= 2 && w[allergy - 2] === 'a' && /\bi have\b/.test(joined)) out.push({ field: 'allergies', value: tokens[allergy - 1]!.text });
  }
  belongings(tokens, out);
  return out;
}

const LIST_CAP = 50;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Folds an update into a profile: scalars replace (the value they replace moves to `history`, with
 * `at` as its end), lists union (newest last, capped), `sources` and `history` of the update are
 * folded in the same way. `at` is when the update was said (epoch ms).
 */
export function mergeProfile(current: Record<string, unknown>, update: Record<string, unknown>, at: number | null = null): Record<string, unknown> {
  // Every key a user sends is plain data: "constructor", "valueOf" or "__proto__" must neither read
  // Object.prototype's methods nor set a prototype, so reads are own-property reads and the
  // objects written have no prototype.
  const out = plain(current);
  const sources = plain<string[]>(record(own(current, 'sources')));
  const history: ProfileHistoryEntry[] = [...arrayOf<ProfileHistoryEntry>(own(current, 'history'))];
  const updateSources = plain<string[]>(record(own(update, 'sources')));
  history.push(...arrayOf<ProfileHistoryEntry>(own(update, 'history')));
  for (const [key, value] of Object.entries(update)) {
    if (key === 'sources' || key === 'history' || key === 'summary') continue;
    const stated = Array.isArray(own(updateSources, key)) ? (own(updateSources, key) as string[]) : undefined;
    if (Array.isArray(value)) {
      const existing = arrayOf<unknown>(own(out, key));
      const merged = [...existing.filter((v) => !value.some((n) => same(n, v))), ...value];
      out[key] = merged.slice(-LIST_CAP);
      if (stated) sources[key] = [...new Set([...arrayOf<string>(own(sources, key)), ...stated])].slice(-LIST_CAP);
    } else if (value !== undefined) {
      const previous = own(out, key);
      if (previous !== undefined && previous !== null && !same(previous, value)) {
        history.push({ field: key, value: previous, source_message_ids: arrayOf<string>(own(sources, key)), superseded_at: at, superseded_by: value });
      }
      out[key] = value;
      if (stated) sources[key] = stated;
    }
  }
  if (Object.keys(sources).length) out['sources'] = Object.fromEntries(Object.entries(sources));
  if (history.length) out['history'] = history.slice(-LIST_CAP);
  out['summary'] = summarizeProfile(out);
  // An ordinary object again for callers (fromEntries defines, so "__proto__" stays a data key).
  return Object.fromEntries(Object.entries(out));
}

/** A record's own property, never one inherited from Object.prototype. */
function own(record: object, key: string): unknown {
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function arrayOf<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

/** A prototype-less copy of a record's own enumerable properties, so any key assigns as data. */
function plain<T = unknown>(from: Record<string, unknown>): Record<string, T> {
  const copy = Object.create(null) as Record<string, T>;
  for (const [key, value] of Object.entries(from)) copy[key] = value as T;
  return copy;
}

/** A one-paragraph portrait from the explicit fields. */
export function summarizeProfile(profile: Record<string, unknown>): string {
  const named = own(profile, 'name');
  const name = typeof named === 'string' ? named : 'The user';
  const parts: string[] = [];
  const scalar = (key: string) => { const v = own(profile, key); return typeof v === 'string' ? v : undefined; };
  const list = (key: string) => arrayOf<unknown>(own(profile, key)).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  if (scalar('age')) parts.push(`is ${scalar('age')} years old`);
  if (scalar('occupation')) parts.push(`works as ${/^[aeiou]/i.test(scalar('occupation')!) ? 'an' : 'a'} ${scalar('occupation')}`);
  if (scalar('workplace')) parts.push(`works at ${scalar('workplace')}`);
  if (scalar('location')) parts.push(`lives in ${scalar('location')}`);
  if (list('likes').length) parts.push(`likes ${list('likes').slice(-5).join(', ')}`);
  if (list('dislikes').length) parts.push(`dislikes ${list('dislikes').slice(-5).join(', ')}`);
  if (list('allergies').length) parts.push(`is allergic to ${list('allergies').join(', ')}`);
  if (list('family').length) parts.push(`has family: ${list('family').join(', ')}`);
  if (list('pets').length) parts.push(`has pets: ${list('pets').join(', ')}`);
  return parts.length ? `${name} ${parts.join('; ')}.` : `${name} has not shared personal details yet.`;
}
