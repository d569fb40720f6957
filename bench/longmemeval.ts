/**
 * LongMemEval-S loading and the paper's retrieval metrics (session level): recall_all@k (every
 * answer session in the top k) and ndcg_any@k (binary relevance), averaged over the questions
 * that are not abstentions.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createMemory, type Embedder, type Memory, type MemoryOptions, type SearchEpisodeItem } from '../src/index.js';
import type { BenchMemory } from './http-memory.js';

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
  has_answer?: boolean;
}

export interface Question {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
  answer: string;
  answer_session_ids: string[];
  haystack_dates: string[];
  haystack_session_ids: string[];
}

export interface Dataset {
  questions: Question[];
  sessions: Record<string, Turn[]>;
}

export const DEFAULT_DATA = new URL('../../shared/data/longmemeval_s_dedup.json.gz', import.meta.url);

/**
 * What the LongMemEval benchmarks read and where it comes from, for someone without this
 * repository's data folder. `loadDataset` prints it (stderr) before it reads anything.
 */
export function longMemEvalNote(path: string | URL = DEFAULT_DATA): string {
  return [
    'data: LongMemEval-S, the S split of LongMemEval (Wu et al., ICLR 2025), cleaned release, 498 of its 500 questions; MIT licence.',
    `      read from ${path instanceof URL ? fileURLToPath(path) : path} (benchmarks with --data take another path).`,
    '      Format: gzipped JSON {"questions": [{question_id, question_type, question, question_date, answer, answer_session_ids,',
    '      haystack_dates, haystack_session_ids}], "sessions": {"<session id>": [{role, content, has_answer?}]}}: the release\'s',
    '      longmemeval_s file with each haystack session stored once in "sessions" instead of inline in every question.',
    "      Get LongMemEval from its authors' public release (MIT) and convert its S file to this shape.",
  ].join('\n');
}

export async function loadDataset(path: string | URL = DEFAULT_DATA): Promise<Dataset> {
  process.stderr.write(`${longMemEvalNote(path)}\n`);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
    throw new Error('LongMemEval-S is not there: see the note above for what it is and how to get it.');
  }
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as Dataset;
}

/** "2023/05/20 (Sat) 02:21" → epoch ms (UTC). */
export function parseHaystackDate(text: string): number {
  const m = /^(\d{4})\/(\d{2})\/(\d{2})(?: \(\w+\))? (\d{2}):(\d{2})/.exec(text);
  if (!m) throw new Error(`unexpected date ${text}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
}

export const isAbstention = (q: Question) => q.question_id.includes('_abs');

export function recallAll(ranked: readonly string[], relevant: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return relevant.every((id) => top.has(id)) ? 1 : 0;
}

export function ndcgAny(ranked: readonly string[], relevant: readonly string[], k: number): number {
  const rel = new Set(relevant);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (rel.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(rel.size, k); i++) idcg += 1 / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

export interface Metrics {
  recall_all_at_5: number;
  recall_all_at_10: number;
  ndcg_any_at_5: number;
  ndcg_any_at_10: number;
  questions: number;
}

/** Averages the four metrics over ranked session lists. */
export function score(results: readonly { ranked: string[]; relevant: string[] }[]): Metrics {
  const mean = (f: (r: { ranked: string[]; relevant: string[] }) => number) => results.reduce((s, r) => s + f(r), 0) / Math.max(1, results.length);
  return {
    recall_all_at_5: mean((r) => recallAll(r.ranked, r.relevant, 5)),
    recall_all_at_10: mean((r) => recallAll(r.ranked, r.relevant, 10)),
    ndcg_any_at_5: mean((r) => ndcgAny(r.ranked, r.relevant, 5)),
    ndcg_any_at_10: mean((r) => ndcgAny(r.ranked, r.relevant, 10)),
    questions: results.length,
  };
}

/** The third-party BM25 replication of the paper's protocol on S, session level. */
export const BM25_REPLICATION: Omit<Metrics, 'questions'> = {
  recall_all_at_5: 0.764,
  recall_all_at_10: 0.843,
  ndcg_any_at_5: 0.684,
  ndcg_any_at_10: 0.706,
};

/**
 * Which turns a haystack memory holds. `user`: the paper's protocol, user turns only. `all`: both
 * sides of every session, the assistant as a second participant (`assistant`), so questions about
 * what the other side said (single-session-assistant) have their evidence in the memory, but in
 * turns the searched owner did not speak. `other`: both sides with the roles swapped, the way two
 * people talk: the searched owner is the side that answered, so the evidence of almost every
 * question lies in what the *other* participant said (the case where keyword search alone used to
 * beat hybrid on human-human conversations).
 */
export type Protocol = 'user' | 'all' | 'other';

/** The turns of session `sessionId` a protocol adds, in order, with their index in the session. */
export function protocolTurns(dataset: Dataset, sessionId: string, protocol: Protocol): { turn: Turn; index: number }[] {
  return (dataset.sessions[sessionId] ?? [])
    .map((turn, index) => ({ turn, index }))
    .filter(({ turn }) => (protocol !== 'user' || turn.role === 'user') && turn.content.trim());
}

/**
 * Which of a question's haystack sessions are added, and how. `full`: all of them (the paper's
 * setting). `personal`: only the simulated chats about a person's life (LongMemEval's own
 * sessions, its evidence among them), without the ShareGPT and UltraChat filler: every
 * conversation then talks about the same kinds of things (family, trips, hobbies, purchases), as
 * between two people who know each other, and topic alone no longer tells the evidence apart.
 * `days`: the personal chats, every `DAY_SESSIONS` consecutive ones stored as one conversation
 * (one after another, dated as the first): each conversation then runs over several topics, as a
 * day's talk between two people does, so a conversation's text and its vector no longer say what
 * it is about, and only its sentences tell the evidence apart. A stored conversation counts for
 * every session it holds. `few`: a memory just begun, of one to `FEW_MOST` personal chats (how many
 * is fixed per question by a hash of its id): its answer sessions and the personal chats next to
 * them in the haystack's order, a new user's first conversations, about the same kinds of things;
 * a question with more answer sessions than that keeps them all. `large`: the full haystack and
 * `LARGE_EXTRA` more conversations from the haystacks of other questions (`extraConversations`),
 * a memory of about ten times as many conversations as LongMemEval's, the size of months of use;
 * `medium`: the full haystack and the first `MEDIUM_EXTRA` of those, a memory of about 200.
 */
export type Haystack = 'full' | 'personal' | 'days' | 'few' | 'medium' | 'large';

/** How many conversations of other questions' haystacks a `--haystack large` memory adds to the question's own. */
export const LARGE_EXTRA = 450;

/** How many of those a `--haystack medium` memory adds: the first of the same list. */
export const MEDIUM_EXTRA = 150;

/** How many personal chats make one stored conversation under `--haystack days`. */
export const DAY_SESSIONS = 3;

/** How many conversations a `--haystack few` memory holds at most, unless its answer sessions are more. */
export const FEW_MOST = 5;

export function inHaystack(sessionId: string, haystack: Haystack): boolean {
  return haystack === 'full' || haystack === 'medium' || haystack === 'large' || !/^(?:sharegpt|ultrachat)_/.test(sessionId);
}

/** Every session of the dataset that answers no question, once each, in the dataset's order: what `large` memories add. */
const extraPools = new WeakMap<Dataset, string[]>();
function extraPool(dataset: Dataset): string[] {
  let pool = extraPools.get(dataset);
  if (!pool) {
    const answers = new Set(dataset.questions.flatMap((q) => q.answer_session_ids));
    pool = [...new Set(dataset.questions.flatMap((q) => q.haystack_session_ids))].filter((id) => !answers.has(id));
    extraPools.set(dataset, pool);
  }
  return pool;
}

/**
 * The conversations a `--haystack large` memory adds to the question's own haystack (the first
 * `MEDIUM_EXTRA` of them for `medium`, none for the
 * other haystacks): `LARGE_EXTRA` sessions of other questions' haystacks that answer no question
 * and are not in this one's, picked by a hash of the question's id and theirs, each stored as
 * `x<k>` (`k` its place in the dataset's pool) and dated as one of the question's own sessions
 * (picked by the same hash), so the memory is one timeline. A session that answers no question
 * holds no evidence a question's answer sessions contradict; it is a rival, never a hit.
 */
export function extraConversations(dataset: Dataset, q: Question, haystack: Haystack): { stored: string; sessionId: string; date: string }[] {
  const count = haystack === 'large' ? LARGE_EXTRA : haystack === 'medium' ? MEDIUM_EXTRA : 0;
  if (count === 0) return [];
  const own = new Set(q.haystack_session_ids);
  const pool = extraPool(dataset);
  return pool
    .map((sessionId, k) => ({ sessionId, k, rank: fnv1a(`${q.question_id}#${sessionId}`) }))
    .filter((s) => !own.has(s.sessionId))
    .sort((a, b) => a.rank - b.rank || a.k - b.k)
    .slice(0, count)
    .map(({ sessionId, k, rank }) => ({ stored: `x${k}`, sessionId, date: q.haystack_dates[rank % q.haystack_dates.length]! }));
}

/** The haystack session indices a `few` memory holds, in order: the answer sessions and the personal chats next to them. */
function fewSessions(q: Question, kept: readonly number[]): number[] {
  const answers = kept.filter((i) => q.answer_session_ids.includes(q.haystack_session_ids[i]!));
  const size = Math.max(answers.length, 1 + (fnv1a(`${q.question_id}#few`) % FEW_MOST));
  const distance = (i: number) => Math.min(...answers.map((a) => Math.abs(a - i)));
  const others = kept.filter((i) => !answers.includes(i)).sort((x, y) => distance(x) - distance(y) || x - y);
  return [...answers, ...others.slice(0, size - answers.length)].sort((x, y) => x - y);
}

/** The stored conversations of a question's memory: each a list of haystack session indices, in order. */
export function haystackGroups(q: Question, haystack: Haystack): number[][] {
  const kept = q.haystack_session_ids.flatMap((id, i) => (inHaystack(id, haystack) ? [i] : []));
  if (haystack === 'few') return fewSessions(q, kept).map((i) => [i]);
  if (haystack !== 'days') return kept.map((i) => [i]);
  const groups: number[][] = [];
  for (let at = 0; at < kept.length; at += DAY_SESSIONS) groups.push(kept.slice(at, at + DAY_SESSIONS));
  return groups;
}

/** The stored session id of a conversation (`s<i>`, or `s<i>_<j>_…` for several sessions). */
export const storedId = (group: readonly number[]) => `s${group.join('_')}`;

/** The haystack session ids a stored session id stands for (an added conversation, `x<k>`, its own: never an answer). */
export function sessionsOf(q: Question, stored: string): string[] {
  if (stored.startsWith('x')) return [stored];
  return stored.slice(1).split('_').map((i) => q.haystack_session_ids[Number(i)]!);
}

/** Whether a stored conversation holds one of the question's answer sessions. */
export function holdsAnswer(q: Question, stored: string): boolean {
  return sessionsOf(q, stored).some((id) => q.answer_session_ids.includes(id));
}

/** The haystack session ids of stored conversations in ranked order, each once, first place first. */
export function sessionsInOrder(q: Question, storedIds: Iterable<string>): string[] {
  const ranked: string[] = [];
  for (const stored of storedIds) for (const id of sessionsOf(q, stored)) if (!ranked.includes(id)) ranked.push(id);
  return ranked;
}

/**
 * A question's own memory, built through the public API as the protocol says: each stored
 * conversation's turns, dated, added and flushed. Session ids in the data carry characters outside
 * the scope alphabet, so session i is stored as `s<i>` (see `haystackGroups` for several).
 */
export async function haystackMemory(dataset: Dataset, q: Question, embedder: Embedder, protocol: Protocol = 'user', options: Omit<MemoryOptions, 'embedder'> = {}, haystack: Haystack = 'full', names = false): Promise<Memory> {
  return fillHaystack(await createMemory({ ...options, embedder }), dataset, q, protocol, haystack, names);
}

/** Who says a turn as a protocol adds it: its own role, or under `other` the other one. */
export function sideOf(turn: Turn, protocol: Protocol): 'user' | 'assistant' {
  return (turn.role === 'user') !== (protocol === 'other') ? 'user' : 'assistant';
}

/** Adds a question's haystack to a memory, in-process or reached over HTTP (`http-memory.ts`). */
export async function fillHaystack<M extends BenchMemory>(memory: M, dataset: Dataset, q: Question, protocol: Protocol = 'user', haystack: Haystack = 'full', names = false): Promise<M> {
  /** One stored conversation: its turns (each with the stored id of its session), dated from `at`; `lone` when it holds one session. */
  const addConversation = async (sessionId: string, turns: { turn: Turn; index: number; session: string }[], at: number, lone: boolean) => {
    if (turns.length === 0) return;
    await memory.add({
      session_id: sessionId,
      messages: turns.map(({ turn, index, session }, k) => ({
        id: `${session}t${index}`,
        sender_id: sideOf(turn, protocol),
        role: sideOf(turn, protocol),
        ...(names ? { sender_name: SIDE_NAMES[turn.role] } : {}),
        // A lone session keeps its turns' own places (as before groups existed); a group counts on across its sessions.
        timestamp: at + (lone ? index : k) * 1000,
        content: turn.content,
      })),
    });
    await memory.flush({ session_id: sessionId });
  };
  for (const group of haystackGroups(q, haystack)) {
    const turns = group.flatMap((i) => protocolTurns(dataset, q.haystack_session_ids[i]!, protocol).map((t) => ({ ...t, session: `s${i}` })));
    await addConversation(storedId(group), turns, parseHaystackDate(q.haystack_dates[group[0]!]!), group.length === 1);
  }
  for (const extra of extraConversations(dataset, q, haystack)) {
    await addConversation(extra.stored, protocolTurns(dataset, extra.sessionId, protocol).map((t) => ({ ...t, session: extra.stored })), parseHaystackDate(extra.date), true);
  }
  return memory;
}

/**
 * `--names`: the two sides as two named people, the way conversations between people are stored
 * and asked about ("When did Melanie paint a sunrise?"). Each side keeps its name whichever role
 * the protocol gives it, and `namedQuestion` asks about them in the third person.
 */
export const SIDE_NAMES = { user: 'Maren', assistant: 'Teodor' } as const;

/**
 * A question in the third person: the asker's "I", "my", "me" become LongMemEval's user by name,
 * "you" the assistant by name, with the verb forms that follow them mended ("What do I" → "What
 * does Maren", "I've" → "Maren has"). Word-level, for retrieval: grammar only as far as a search
 * could notice.
 */
export function namedQuestion(question: string): string {
  const u = SIDE_NAMES.user;
  const a = SIDE_NAMES.assistant;
  // The third person of the verbs a first- or second-person subject takes ("do I" → "does Maren").
  const third = (verb: string) => {
    const lower = verb.toLowerCase();
    const form = ({ have: 'has', do: 'does', am: 'is', were: 'was' } as Record<string, string>)[lower] ?? `${lower}s`;
    return verb[0] === verb[0]!.toUpperCase() ? form[0]!.toUpperCase() + form.slice(1) : form;
  };
  const who = `(${u}|${a})`;
  const rules: [RegExp, string | ((...groups: string[]) => string)][] = [
    [/\bI'm\b|\bI am\b/g, `${u} is`],
    [/\bI've\b/g, `${u} has`],
    [/\bI'd\b/g, `${u} would`],
    [/\bI'll\b/g, `${u} will`],
    [/\bI\b/g, u],
    [/\b[Mm]y\b|\b[Mm]ine\b/g, `${u}'s`],
    [/\b(?:me|myself)\b/gi, u],
    [/\byou're\b|\byou are\b/gi, `${a} is`],
    [/\byou've\b/gi, `${a} has`],
    [/\byours?\b/gi, `${a}'s`],
    [/\byou(?:rself)?\b/gi, a],
    // "do Maren", "have not Teodor": the verb before the name.
    [new RegExp(`\\b(do|have|am|were)( not)? ${who}\\b`, 'gi'), (_m, verb, not, name) => `${third(verb!)}${not ?? ''} ${name}`],
    // "Maren have", "Teodor think": the verb after it, unless a modal or "did" carries the tense.
    [new RegExp(`\\b(?<!(?:did|does|will|would|can|could|should|to) )${who} (have|do|am|were|think|want|need|know|remember|like)\\b`, 'g'), (_m, name, verb) => `${name} ${third(verb!)}`],
  ];
  let out = question;
  for (const [pattern, replacement] of rules) out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  return out;
}

/**
 * The fixed split by question id: FNV-1a of the id, even → `fit` (constants are chosen on these),
 * odd → `report` (numbers are reported on these). About half each, the same on every run.
 */
export function questionHalf(questionId: string): 'fit' | 'report' {
  return fnv1a(questionId) % 2 === 0 ? 'fit' : 'report';
}

/** FNV-1a (32 bits) of a text's UTF-16 code units. Its low bit follows the parity of their sum alone. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Whitespace-folded, lower-case text, for finding a turn's words inside returned text. */
export function foldText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The evidence turns (`has_answer`) of a question that the protocol put into the memory, folded. */
export function evidenceTurns(dataset: Dataset, q: Question, protocol: Protocol): string[] {
  const out: string[] = [];
  for (const sessionId of q.haystack_session_ids) {
    for (const { turn } of protocolTurns(dataset, sessionId, protocol)) if (turn.has_answer) out.push(foldText(turn.content));
  }
  return out;
}

/** A date the write path inserted after a date phrase: " (2023-05-06)", " (week of 2023-05-01)", " (2023-05)", " (2023)". */
const INSERTED_DATE = / \((?:week of )?\d{4}(?:-\d{2}){0,2}\)/g;

/**
 * Turn-level recall at k: the share of evidence turns whose words appear in the top-k returned
 * episodes (their episode text or their nested facts and passages). Null when the protocol holds
 * no evidence turn. The absolute dates the write path inserts after relative ones ("yesterday
 * (2023-05-06)") are taken out of the returned text first, so a turn that names a date still
 * matches its own words.
 */
export function turnRecall(evidence: readonly string[], episodes: readonly SearchEpisodeItem[], k: number): number | null {
  if (evidence.length === 0) return null;
  const returned = episodes.slice(0, k).map((e) => `${e.episode}\n${e.atomic_facts.map((f) => f.content).join('\n')}`).join('\n');
  const text = foldText(returned.replace(INSERTED_DATE, ''));
  return evidence.filter((turn) => text.includes(turn)).length / evidence.length;
}

/** Turn-level recall at 5 and 10, averaged per question. */
export interface TurnRecall {
  turn_recall_at_5: number | null;
  turn_recall_at_10: number | null;
}

/**
 * The mean of the questions' turn-level recall at 5 and 10 (`turnRecall`), over the questions that
 * have one: a question whose protocol stored no evidence turn (null) is left out, not counted as 0.
 * Null when none has one, or when the rows rank sessions only (fusions computed outside, the baseline).
 */
export function meanTurnRecall(outcomes: readonly { turn5: number | null; turn10: number | null }[]): TurnRecall {
  const mean = (xs: (number | null)[]) => {
    const held = xs.filter((x): x is number => x !== null);
    return held.length ? held.reduce((a, b) => a + b, 0) / held.length : null;
  };
  return { turn_recall_at_5: mean(outcomes.map((o) => o.turn5)), turn_recall_at_10: mean(outcomes.map((o) => o.turn10)) };
}

/** The four session-level metrics (`score`) and the mean turn recall (`meanTurnRecall`) of ranked rows. */
export function scoreWithTurns(rows: readonly { ranked: string[]; relevant: string[]; turn5: number | null; turn10: number | null }[]): Metrics & TurnRecall {
  return { ...score(rows), ...meanTurnRecall(rows) };
}

/** The haystack session ids of retrieved episodes, first occurrence first. */
export function rankedSessions(q: Question, episodes: readonly SearchEpisodeItem[]): string[] {
  return sessionsInOrder(q, episodes.map((e) => e.session_id!));
}
