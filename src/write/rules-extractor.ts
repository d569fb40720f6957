/**
 * The rule-based extractor: turns a closed segment into an episode per user taking part, atomic
 * facts (one attributed claim each, pronouns resolved, absolute dates), foresight (stated plans,
 * each once, with its due date), explicit profile facts and an agent case per assistant. It reads
 * language with wink-nlp and chrono-node and needs no model server, so the write path works
 * everywhere; an LLM extractor produces richer text through the same port.
 */
import { extractText } from '../contract/requests.js';
import { provenanceId, sentBy, type BufferedMessage } from '../records.js';
import { addresseeWords, claimsOf, type Claim } from './claims.js';
import { findDates, isoDate, spoken, type ResolvedDate } from './dates.js';
import type { ExtractedCase, ExtractedEpisode, ExtractedForesight, ExtractedProfile, ExtractedStatement, Extraction, Extractor, Segment } from './extraction.js';
import { buildEntityGraph } from './entity-graph.js';
import { english, type Language } from './language.js';
import { listWords } from './lists.js';
import { Mentions, type Mention } from './mentions.js';
import { LIST_FIELDS, namedBelonging, profileStatements, type ProfileHistoryEntry, type ProfileStatement } from './profile-rules.js';
import { escapeRegExp } from './regexp.js';
import { analyse, clip, singleSpaced, type Sentence, type Token } from './sentences.js';
import type { CalledNames } from './social-formula.js';

/** A sentence that turns the talk to something else. */
const TOPIC_CHANGE = /^(?:(?:oh|anyway|so|also|ok|okay)[,!]?\s+)?(?:by the way|btw|anyway|anyhow|on (?:another|a different|a separate|an unrelated) note|unrelated(?:ly)?|changing the subject|speaking of)\b/i;
const INTRODUCTION = /^(?:I am|[Mm]y name is|[Cc]all me|I am called)\s+(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)?)[.!]?$/u;
const GENERIC = /^(thing|time|lot|way|day|week|month|year|today|tomorrow|yesterday|bit|kind|sort|people|something|anything|everything|question|answer|help|idea|thanks|message)$/;
const GENERIC_ADJ = /^(good|great|nice|new|old|little|big|other|same|many|much|few|last|next|first|more|most|such|own|sure|lovely|wonderful)$/;
const POSITIVE = /\b(thanks|thank you|great|perfect|that works|worked|awesome|helpful|exactly what)\b/i;
const NEGATIVE = /\b(doesn['’]t work|didn['’]t work|not what I|wrong|useless|didn['’]t help|not helpful|that['’]s incorrect)\b/i;

function speakerName(message: BufferedMessage): string {
  return message.sender_name?.trim() || message.sender_id;
}

/** What the rules read in one message. */
export interface Reading {
  message: BufferedMessage;
  sentences: Sentence[];
  claims: Claim[];
  /** The dates the message names, resolved. */
  dates: ResolvedDate[];
  /** What a user says about themselves (read from every such clause, claim or not), with the claim it came with. */
  statements: (ProfileStatement & { claim: Claim | null })[];
  /** The names this message mentioned, in order. */
  mentioned: Mention[];
}

/** Reads a segment's messages in order, carrying its names forward for pronouns. */
export function readSegment(segment: Segment, names: Map<string, string>, language: Language): Reading[] {
  const mentions = new Mentions();
  const participants = [...names.values()];
  // What each participant is called by, made once for the segment (claims.ts `addresseeWords`).
  const addressees = new Map<string | null, CalledNames>();
  const addresseeOf = (listener: string | null) => {
    let words = addressees.get(listener);
    if (!words) addressees.set(listener, (words = addresseeWords(listener)));
    return words;
  };
  return segment.messages.map((message) => {
    let name = names.get(message.sender_id) ?? message.sender_id;
    const others = participants.filter((n) => n !== name);
    const listener = others.length === 1 ? others[0]! : null;
    const sentences = analyse(extractText(message.content), language);
    // Mentions this message adds or names again are those from this order on.
    const firstNew = mentions.next();
    mentions.beginMessage();
    const claims: Claim[] = [];
    const dates: ResolvedDate[] = [];
    const ownClauses: Token[][] = [];
    for (const s of sentences) {
      if (TOPIC_CHANGE.test(s.text)) mentions.changeTopic();
      const { claims: own, ownClauses: clauses } = claimsOf(s, { name, listener, addressee: addresseeOf(listener) }, message.timestamp, mentions);
      ownClauses.push(...clauses);
      for (const claim of own) {
        const introduced = INTRODUCTION.exec(claim.evidence)?.[1];
        if (!introduced) {
          claims.push(claim);
          continue;
        }
        // "I'm Maya." is no fact about Maya: it names the speaker, whose claims from here on use it.
        // The rest of this message already speaks under it ("I'm Maya. I have a cat …").
        if (!message.sender_name?.trim() && message.role === 'user' && names.get(message.sender_id) === message.sender_id) {
          names.set(message.sender_id, introduced);
          name = introduced;
        }
      }
      // Sentences that make no claim (questions, replies) still name dates for the narrative.
      dates.push(...(own.length ? own.flatMap((c) => c.dates) : findDates(s.text, message.timestamp)));
    }
    const mentioned = mentions.all().filter((m) => m.order >= firstNew && !participants.includes(m.name));
    const statements = message.role !== 'user' ? [] : [
      ...ownClauses.flatMap((tokens) => profileStatements(tokens).map((st) => ({ ...st, claim: claims.find((c) => c.tokens === tokens) ?? null }))),
      // "Her name is Mochi." after "my cat": the pronoun was resolved to "Aiko's cat" in the claim.
      ...claims.flatMap((c) => {
        const st = namedBelonging(c.content, escapeRegExp(name));
        return st ? [{ ...st, claim: c }] : [];
      }),
    ];
    return { message, sentences, claims, dates, statements, mentioned };
  });
}

function statementsOf(reading: Reading): { facts: ExtractedStatement[]; foresight: ExtractedForesight[] } {
  const { message } = reading;
  const provenance = { timestamp: message.timestamp, sender_ids: [message.sender_id], source_message_ids: [provenanceId(message)] };
  const facts: ExtractedStatement[] = [];
  const foresight: ExtractedForesight[] = [];
  const seen = new Set<string>();
  for (const claim of reading.claims) {
    if (seen.has(claim.content)) continue;
    seen.add(claim.content);
    // A plan is foresight, not also a fact: the episode shows it once.
    if (claim.plan) foresight.push({ content: claim.content, evidence: claim.evidence, due_at: claim.due_at, ...provenance });
    else facts.push({ content: claim.content, evidence: claim.evidence, ...provenance });
  }
  return { facts, foresight };
}

/** The message's words with each date phrase followed by its absolute date: "yesterday (2026-11-28)". */
function annotated(reading: Reading): string {
  const text = singleSpaced(extractText(reading.message.content)).trim();
  // Built in one pass: rebuilding the text at every date costs its length once per date.
  let out = '';
  let last = 0;
  for (const d of reading.dates) {
    const at = text.indexOf(d.phrase, last);
    if (at < 0 || d.label === d.phrase) continue;
    const end = at + d.phrase.length;
    out += `${text.slice(last, end)} (${d.label})`;
    last = end;
  }
  return out + text.slice(last);
}

function narrative(readings: Reading[]): string {
  const messages = readings.map((r) => r.message);
  const lines = readings.map((r) => {
    const m = r.message;
    const name = speakerName(m);
    const text = annotated(r);
    const verb = m.role === 'assistant' ? 'replied' : m.role === 'tool' ? 'returned' : 'said';
    return text ? `${name} ${verb}: ${text}` : '';
  });
  const first = messages[0]!;
  return `On ${isoDate(first.timestamp)}: ${lines.filter(Boolean).join('\n')}`;
}

/** The topics of a conversation: its names (pets and relatives with what they are), then frequent nouns. */
function topics(readings: Reading[], max: number, speakers: readonly string[] = []): string[] {
  const byName = new Map<string, { label: string; count: number; order: number; proper: boolean }>();
  // Who is talking is no topic ("I'm Maya." names the speaker, not what was discussed).
  const talking = new Set(speakers.map((s) => s.toLowerCase()));
  let order = 0;
  for (const r of readings) {
    for (const m of r.mentioned) {
      if (talking.has(m.name.toLowerCase())) continue;
      const label = m.proper && m.role ? `${m.role} ${m.name}` : m.name;
      const key = m.name.toLowerCase();
      const entry = byName.get(key);
      if (entry) entry.count++;
      else byName.set(key, { label, count: 1, order: order++, proper: m.proper });
    }
  }
  const named = [...byName.values()].filter((e) => e.proper).sort((a, b) => b.count - a.count || a.order - b.order).slice(0, max).sort((a, b) => a.order - b.order).map((e) => e.label);
  if (named.length >= max) return named;
  // Noun phrases by their head: "garden plans", "night shifts", "billing system".
  const nouns = new Map<string, { count: number; order: number; text: string }>();
  for (const r of readings) {
    for (const s of r.sentences) {
      s.tokens.forEach((t, k) => {
        if (t.pos !== 'NOUN' || s.tokens[k + 1]?.pos === 'NOUN' || t.lemma.length < 4 || GENERIC.test(t.lemma)) return;
        let from = k;
        while (from > k - 2 && from > 0 && ['NOUN', 'ADJ'].includes(s.tokens[from - 1]!.pos) && /^\p{Ll}/u.test(s.tokens[from - 1]!.text) && !GENERIC_ADJ.test(s.tokens[from - 1]!.lower)) from--;
        const text = s.tokens.slice(from, k + 1).map((x) => x.lower).join(' ');
        const key = `${s.tokens.slice(from, k).map((x) => x.lower).join(' ')} ${t.lemma}`.trim();
        const e = nouns.get(key) ?? { count: 0, order: order++, text };
        e.count++;
        nouns.set(key, e);
      });
    }
  }
  const inNames = (w: string) => named.some((n) => n.toLowerCase().includes(w));
  const common = [...nouns.entries()].filter(([w]) => !inNames(w)).sort((a, b) => b[1].count - a[1].count || a[1].order - b[1].order).slice(0, max - named.length).map(([, e]) => e.text);
  return [...named, ...common];
}

function episodeFor(ownerType: 'user' | 'agent', ownerId: string, segment: Segment, names: Map<string, string>, readings: Reading[]): ExtractedEpisode {
  const messages = segment.messages;
  const first = messages[0]!;
  const ownerName = names.get(ownerId) ?? ownerId;
  const others = [...names.entries()].filter(([id]) => id !== ownerId).map(([, n]) => n);
  const facts: ExtractedStatement[] = [];
  const foresight: ExtractedForesight[] = [];
  for (const r of readings) {
    // The owner is (type, id): a user and an agent may share an id, never their words.
    if (!sentBy(r.message, { owner_type: ownerType, owner_id: ownerId })) continue;
    const out = statementsOf(r);
    facts.push(...out.facts);
    foresight.push(...out.foresight);
  }
  const userReadings = readings.filter((r) => r.message.role === 'user');
  const about = topics(userReadings.length ? userReadings : readings, 4, [...names.values()]);
  const subjectText = about.length ? listWords(about) : clip(facts[0]?.content ?? foresight[0]?.content ?? `Conversation on ${isoDate(first.timestamp)}`, 100);
  // The second sentence: the most precise plan, else a dated fact, else the first fact.
  const lead = foresight.find((f) => /\bon \d{4}-\d{2}-\d{2}\b/.test(f.content)) ?? foresight.find((f) => f.due_at !== null) ?? foresight[0] ?? facts.find((f) => /\d{4}-\d{2}/.test(f.content)) ?? facts[0];
  const when = spoken({ at: first.timestamp, precision: 'day' });
  const summary = `${ownerName}${others.length ? ` talked with ${listWords(others)}` : ' wrote'}${about.length ? ` about ${listWords(about)}` : ''} ${when}.${lead ? ` ${lead.content}` : ''}`;
  return {
    owner_type: ownerType,
    owner_id: ownerId,
    subject: clip(subjectText.charAt(0).toUpperCase() + subjectText.slice(1), 100),
    summary: clip(summary, 400),
    episode: narrative(readings),
    timestamp: first.timestamp,
    sender_ids: [...names.keys()],
    source_message_ids: messages.map(provenanceId),
    facts,
    foresight,
  };
}

/** The profile update of one user: fields in the order they were said, a later value superseding an earlier one. */
function profileFor(userId: string, readings: Reading[]): ExtractedProfile | null {
  const update: Record<string, unknown> = {};
  const sources: Record<string, string[]> = {};
  const history: ProfileHistoryEntry[] = [];
  // A list field's values and sources so far, for a look-up per statement: a message of thousands
  // of statements ("My sister … lives in …" over and over) once copied its whole list for each.
  const seen = new Map<string, { values: Set<unknown>; sources: Set<string> }>();
  const own = readings.filter((r) => sentBy(r.message, { owner_type: 'user', owner_id: userId }));
  for (const r of own) {
    const id = provenanceId(r.message);
    {
      for (const { field, value } of r.statements) {
        if ((LIST_FIELDS as readonly string[]).includes(field)) {
          let list = seen.get(field);
          if (!list) seen.set(field, (list = { values: new Set(), sources: new Set() }));
          if (!list.values.has(value)) {
            list.values.add(value);
            ((update[field] as unknown[] | undefined) ?? (update[field] = [])).push(value);
          }
          if (!list.sources.has(id)) {
            list.sources.add(id);
            (sources[field] ??= []).push(id);
          }
        } else {
          const previous = update[field];
          if (previous !== undefined && previous !== value) history.push({ field, value: previous, source_message_ids: sources[field] ?? [], superseded_at: r.message.timestamp, superseded_by: value });
          update[field] = value;
          sources[field] = [id];
        }
      }
    }
  }
  if (!('name' in update) && own[0]?.message.sender_name) update['name'] = own[0].message.sender_name;
  if (Object.keys(update).length === 0) return null;
  if (Object.keys(sources).length) update['sources'] = sources;
  if (history.length) update['history'] = history;
  return { user_id: userId, update, sender_ids: [userId], source_message_ids: own.map((r) => provenanceId(r.message)) };
}

function caseFor(agentId: string, segment: Segment, readings: Reading[]): ExtractedCase | null {
  const messages = segment.messages;
  const request = messages.find((m) => m.role === 'user' && extractText(m.content).trim());
  const replies = readings.filter((r) => r.message.sender_id === agentId && r.message.role === 'assistant');
  if (!request || replies.length === 0) return null;
  const approach = replies.map((r) => r.sentences.slice(0, 2).map((s) => s.text).join(' ')).filter(Boolean).join(' Then: ');
  const lastUser = [...messages].reverse().find((m) => m.role === 'user' && m !== request);
  const feedback = lastUser ? extractText(lastUser.content) : '';
  // Without a model the rules cannot judge quality; explicit user feedback moves it off the middle.
  const quality = NEGATIVE.test(feedback) ? 0.3 : POSITIVE.test(feedback) ? 0.8 : 0.5;
  return {
    agent_id: agentId,
    task_intent: clip(extractText(request.content), 300),
    approach: clip(approach, 1000),
    quality_score: quality,
    key_insight: null,
    timestamp: request.timestamp,
    sender_ids: [...new Set(messages.map((m) => m.sender_id))],
    source_message_ids: messages.map(provenanceId),
  };
}

/** Extracts one segment with a loaded language model (synchronous: the bench times it alone). */
export function extractWith(language: Language, segment: Segment): Extraction {
  const messages = segment.messages;
  const names = new Map<string, string>();
  for (const m of messages) if (!names.has(m.sender_id)) names.set(m.sender_id, speakerName(m));
  const users = [...new Set(messages.filter((m) => m.role === 'user').map((m) => m.sender_id))];
  const agents = [...new Set(messages.filter((m) => m.role === 'assistant').map((m) => m.sender_id))];
  // Each message is read once; episodes, profiles and cases all use the reading.
  const readings = readSegment(segment, names, language);
  const episodes: ExtractedEpisode[] = users.map((u) => episodeFor('user', u, segment, names, readings));
  // A segment with no user in it still becomes memory: the agent's own episode.
  if (users.length === 0) for (const a of agents) episodes.push(episodeFor('agent', a, segment, names, readings));
  const profiles = users.map((u) => profileFor(u, readings)).filter((p): p is ExtractedProfile => p !== null);
  const cases = users.length ? agents.map((a) => caseFor(a, segment, readings)).filter((c): c is ExtractedCase => c !== null) : [];
  const graph = buildEntityGraph(readings.map((r) => ({
    sender_id: r.message.sender_id, speaker: names.get(r.message.sender_id) ?? r.message.sender_id, role: r.message.role, message_id: provenanceId(r.message),
    timestamp: r.message.timestamp, mentioned: r.mentioned, claims: r.claims, statements: r.statements,
  })), episodes);
  return { episodes, profiles, cases, graph, extractor: 'rules' };
}

/** Creates the model-free extractor. */
export function createRulesExtractor(): Extractor {
  return {
    id: 'rules',
    async extract(segment: Segment): Promise<Extraction> {
      return extractWith(await english(), segment);
    },
  };
}
