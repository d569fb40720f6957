/**
 * The entity graph of one segment, derived at extraction from what the rules already read: who
 * and what was named (canonical name, type, aliases) and what was said to link them (subject,
 * predicate, object), each link pointing at the fact or plan it comes from and carrying when it
 * became true and when a later statement in the segment superseded it ("I live in Lisbon", then
 * "I moved to Porto"). It is a plain value: the engine decides how to store it and merges graphs
 * across segments (ids are stable: the same name gives the same id in every segment).
 */
import type { Claim } from './claims.js';
import type { Mention, MentionKind } from './mentions.js';
import type { ProfileStatement } from './profile-rules.js';

export type EntityType = MentionKind | 'concept';

export interface GraphEntity {
  /** Stable across segments: derived from the canonical name (`e:pixel`), or the user's id (`user:maya`). */
  id: string;
  name: string;
  type: EntityType;
  aliases: string[];
}

/** Where a relation was said: the fact or plan of an episode in the same extraction, by position. */
export interface FactRef {
  episode: number;
  list: 'facts' | 'foresight';
  index: number;
}

export interface GraphRelation {
  subject: string;
  predicate: string;
  object: string;
  fact: FactRef | null;
  source_message_ids: string[];
  /** When it became true (the date the claim names, else when it was said), epoch ms. */
  valid_from: number;
  /** When a later statement replaced it, or null while it holds. */
  superseded_at: number | null;
}

export interface EntityGraph {
  entities: GraphEntity[];
  relations: GraphRelation[];
}

/** What the graph is built from: per message, its speaker, mentions, claims and profile statements. */
export interface GraphReading {
  sender_id: string;
  speaker: string;
  role: string;
  message_id: string;
  timestamp: number;
  mentioned: readonly Mention[];
  claims: readonly Claim[];
  statements: readonly (ProfileStatement & { claim: Claim | null })[];
}

/** Fields that hold one value at a time: a new value supersedes the old. */
export const SINGLE_VALUED: ReadonlySet<string> = new Set(['lives_in', 'works_at', 'works_as', 'age']);
const PREDICATES: Record<string, string> = { location: 'lives_in', workplace: 'works_at', occupation: 'works_as', age: 'age', pets: 'has_pet', likes: 'likes', dislikes: 'dislikes', allergies: 'allergic_to' };

const PREPOSITIONS = new Set(['in', 'at', 'to', 'from', 'with', 'for', 'on', 'of', 'by', 'about', 'into', 'near', 'over', 'like']);

/**
 * The predicate of the words between two entities: a phrase that ends in a preposition is kept
 * whole ("lives in", "is married to", "went hiking with"); otherwise the verb alone, without the
 * words that describe the object ("prefers async" Rust → `prefers`).
 */
function predicateOf(words: readonly string[]): string {
  return (PREPOSITIONS.has(words[words.length - 1]!) ? words : words.slice(0, 1)).join('_');
}

/** Ids of names seen lately: the same names come back in message after message. Bounded: emptied when full. */
const entityIds = new Map<string, string>();
const ENTITY_ID_CACHE = 10_000;

export function entityId(name: string): string {
  let id = entityIds.get(name);
  if (id === undefined) {
    id = `e:${name.toLowerCase().normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '')}`;
    if (entityIds.size >= ENTITY_ID_CACHE) entityIds.clear();
    entityIds.set(name, id);
  }
  return id;
}

const LETTER = /\p{L}/u;

/** Where `name` first stands as whole words in `text`, or -1. */
function wordAt(text: string, name: string): number {
  for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
    if (!LETTER.test(text[i - 1] ?? ' ') && !LETTER.test(text[i + name.length] ?? ' ')) return i;
  }
  return -1;
}

/** The list filed under `key`, made and filed first when there is none. */
function listAt<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** A name's first run of letters ("St" of "St. Mary", "Ana"); empty when it opens with no letter. */
function firstWord(name: string): string {
  let end = 0;
  while (end < name.length && LETTER.test(name[end]!)) end++;
  return name.slice(0, end);
}

/**
 * The entities' places in `known` by their first run of letters; those that open with no letter
 * under "". A name found as a word (`wordAt`) starts where a run of letters starts, and that run is
 * its own first one, so a claim can only hold the names filed under the runs it holds.
 */
function namesByFirstWord(known: readonly GraphEntity[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  known.forEach((e, k) => listAt(out, firstWord(e.name)).push(k));
  return out;
}

/** The places in `known` of the names a text may hold (`namesByFirstWord`), ascending. */
function candidates(text: string, byFirstWord: ReadonlyMap<string, readonly number[]>): number[] {
  const out = new Set<number>(byFirstWord.get('') ?? []);
  // Letters one UTF-16 unit at a time, as `wordAt` reads a name's edges.
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const letter = i < text.length && LETTER.test(text[i]!);
    if (letter && start < 0) start = i;
    if (letter || start < 0) continue;
    for (const k of byFirstWord.get(text.slice(start, i)) ?? []) out.add(k);
    start = -1;
  }
  return [...out].sort((a, b) => a - b);
}

/** What the graph reads of an extracted episode: its statements, to point a relation at the fact it came from. */
interface EpisodeStatements {
  facts: readonly { content: string; source_message_ids: readonly string[] }[];
  foresight: readonly { content: string; source_message_ids: readonly string[] }[];
}

/** Builds the graph of one segment from its readings and the episodes extracted from them. */
export function buildEntityGraph(readings: readonly GraphReading[], episodes: readonly EpisodeStatements[]): EntityGraph {
  const entities = new Map<string, GraphEntity>();
  const relations: GraphRelation[] = [];
  const entity = (name: string, type: EntityType, id = entityId(name)): GraphEntity => {
    let e = entities.get(id);
    if (!e) entities.set(id, (e = { id, name, type, aliases: [] }));
    else if (e.type === 'unknown' || e.type === 'concept') e.type = type;
    return e;
  };
  const alias = (e: GraphEntity, a: string) => {
    if (a !== e.name && !e.aliases.includes(a)) e.aliases.push(a);
  };
  // The statements by content, in the order they were written (episode, facts before foresight,
  // place), made once: looking one up reads only its namesakes, not every statement.
  let statements: Map<string, { ref: FactRef; sources: readonly string[] }[]> | undefined;
  const factOf = (claim: Claim | null, messageId: string): FactRef | null => {
    if (!claim) return null;
    if (!statements) {
      statements = new Map();
      for (const [episode, ep] of episodes.entries()) {
        for (const list of ['facts', 'foresight'] as const) {
          ep[list].forEach((f, index) => listAt(statements!, f.content).push({ ref: { episode, list, index }, sources: f.source_message_ids }));
        }
      }
    }
    return statements.get(claim.content)?.find((s) => s.sources.includes(messageId))?.ref ?? null;
  };
  // The relations in force by subject and predicate, and every subject–object pair ever linked:
  // each new relation asks them, where reading all relations for each made a long conversation quadratic.
  const inForce = new Map<string, GraphRelation[]>();
  const linked = new Set<string>();
  const key = (...parts: string[]) => parts.join('\u0000');
  const relate = (subject: GraphEntity, predicate: string, object: GraphEntity, r: GraphReading, claim: Claim | null) => {
    const dated = claim && !claim.plan ? claim.dates.find((d) => d.at <= r.timestamp) : undefined;
    const valid_from = dated?.at ?? r.timestamp;
    const current = listAt(inForce, key(subject.id, predicate));
    if (current.some((x) => x.object === object.id)) return;
    if (SINGLE_VALUED.has(predicate)) {
      for (const x of current) x.superseded_at = valid_from;
      current.length = 0;
    }
    const relation: GraphRelation = { subject: subject.id, predicate, object: object.id, fact: factOf(claim, r.message_id), source_message_ids: [r.message_id], valid_from, superseded_at: null };
    relations.push(relation);
    current.push(relation);
    linked.add(key(subject.id, object.id));
  };

  const people = new Map<string, GraphEntity>();
  for (const r of readings) {
    if (r.role === 'user' && !people.has(r.sender_id)) {
      const user = entity(r.speaker, 'person', `user:${r.sender_id}`);
      if (r.sender_id !== r.speaker) alias(user, r.sender_id);
      people.set(r.sender_id, user);
    }
    const owner = people.get(r.sender_id);
    for (const m of r.mentioned) {
      if (!m.proper) continue;
      const e = entity(m.name, m.kind);
      // "Maya's cat" is Pixel: the description is an alias of the name.
      if (m.role && owner) alias(e, `${owner.name}'s ${m.role}`);
    }
    if (!owner) continue;
    for (const s of r.statements) {
      if (s.field === 'name') {
        alias(owner, s.value);
        continue;
      }
      const named = /^(.+) \(([^)]+)\)$/.exec(s.value);
      if (s.field === 'family' || s.field === 'pets') {
        const [name, role] = named ? [named[1]!, named[2]!] : [`${owner.name}'s ${s.value}`, s.value];
        const e = entity(name, s.field === 'pets' ? 'animal' : 'person');
        if (named) alias(e, `${owner.name}'s ${role}`);
        relate(owner, s.field === 'pets' ? 'has_pet' : `has_${role.replace(/\W+/g, '_')}`, e, r, s.claim);
        continue;
      }
      const type: EntityType = s.field === 'location' ? 'place' : s.field === 'workplace' ? 'organization' : 'concept';
      relate(owner, PREDICATES[s.field] ?? s.field, entity(s.value, type), r, s.claim);
    }
    // Claims that link two named entities: "Ana lives in Braga." → (Ana, lives_in, Braga).
    const known = [...entities.values()].filter((e) => e.type !== 'concept').sort((a, b) => b.name.length - a.name.length);
    const byFirstWord = namesByFirstWord(known);
    for (const claim of r.claims) {
      if (claim.plan) continue;
      const at = (e: GraphEntity) => wordAt(claim.content, e.name);
      // Only the names whose first word the claim holds can be in it (the rest would be -1), in `known`'s order.
      const found = candidates(claim.content, byFirstWord).map((k) => ({ e: known[k]!, i: at(known[k]!) })).filter((x) => x.i >= 0).sort((a, b) => a.i - b.i);
      // "Maya's sister Ana lives in …": the subject is what is possessed, not its owner.
      let first = 0;
      while (found[first] && claim.content.startsWith("'s", found[first]!.i + found[first]!.e.name.length) && found[first + 1]) first++;
      const subject = found[first];
      const object = found.find((x) => x.e !== subject?.e && x.i > (subject?.i ?? 0) + (subject?.e.name.length ?? 0));
      if (!subject || !object || (first === 0 && subject.i > 0)) continue;
      const between = claim.content.slice(subject.i + subject.e.name.length, object.i).replace(/^'s\b/, '').toLowerCase();
      const words = between.match(/[\p{L}]+/gu)?.filter((w) => !['a', 'an', 'the', 'and', 'then'].includes(w)) ?? [];
      if (words.length === 0 || words.length > 4) continue;
      // What the profile rules already linked ("has a cat named" Pixel is has_pet) is not linked twice.
      if (linked.has(key(subject.e.id, object.e.id))) continue;
      relate(subject.e, predicateOf(words), object.e, r, claim);
    }
  }
  return { entities: [...entities.values()], relations };
}

/** The graph with its links to facts dropped: for facts that another extractor rewrote. */
export function withoutFactRefs(graph: EntityGraph): EntityGraph {
  return { entities: graph.entities, relations: graph.relations.map((r) => ({ ...r, fact: null })) };
}
