/**
 * `npm run bench:conversations`: retrieval on long conversations between two people, the other
 * shape of memory Engram serves besides an assistant's chats with its user (LongMemEval,
 * `bench:quality`). Each conversation is one memory: every session's turns of both speakers are
 * added (dated) and flushed, the first speaker as the user, the second as `assistant`, both by
 * name (`sender_name`); each question (asked in the third person by name, about either speaker)
 * is searched as the first speaker. Retrieved episodes count for their session. Prints, overall
 * and per category: session-level recall_all@5/10 and ndcg_any@10 for each method, next to a
 * stemmed BM25 baseline over the same sessions (Orama with the English stemmer and stop words, one
 * document per session, each line "Name: text") and, when both legs are measured, next to the
 * outside fusions of the legs' top-100 episode lists (outside-fusion.ts); turn-level recall at 10
 * from the questions' evidence turns; and the reliability of hybrid's and agentic's scores on the
 * wire (per 0.1 bucket, reliability.ts), calibrated on LongMemEval, here on conversations it never saw.
 *
 *   npm run bench:conversations -- [--data FILE|DIR] [--half report|fit|all]
 *                                  [--methods keyword,vector,hybrid,agentic] [--via memory|http] [--reranker none|teacher]
 *                                  [--agentic-expansion] [--top-k N] [--json] [--misses]
 *
 * Data: `bench/fixtures/conversations/*.json` by default, written for this bench (see that folder's
 * README): no constant of the engine was chosen on them. Any set converted to the same shape
 * (`ConversationSet` below) runs with `--data`, and so does LoCoMo's release as it is (`locomo10.json`,
 * converted on load: `fromLocomo`). Questions are split into halves by id as in
 * `bench:quality` (`questionHalf`); `--misses` lists the questions hybrid misses an evidence
 * session of at 10 with every row's place for each, for reading on the fit half. `--via http` builds
 * the memories through `npm run serve` (http-memory.ts), as an outside evaluation does;
 * `--reranker teacher` gives agentic search the teacher reranker, as `npm run serve` holds it;
 * `--agentic-expansion` turns on agentic's expansion round (`createMemory({ agenticExpansion })`);
 * `--top-k N` (10 to 100, default 10) asks each search for N and scores its first ten, as an
 * outside evaluation that asks for 20 does: the first ten must not depend on how many are asked for.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createMemory, type SearchEpisodeItem, type SearchMethod } from '../src/index.js';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { createUnprimedTeacher, readRerankerChoice } from '../src/cli/open-memory.js';
import { startBenchServer, type BenchMemory } from './http-memory.js';
import { foldText, questionHalf, recallAll, scoreWithTurns, turnRecall, type Metrics, type TurnRecall } from './longmemeval.js';
import { OUTSIDE_FUSIONS, outsideFusionSessions } from './outside-fusion.js';
import { stemmedBm25 } from './stemmed-bm25.js';
import { calibrationOf, countItems, emptyCounts, reliabilityReport, strayCheck } from './reliability.js';

/** One conversation between two people, with questions whose evidence is labelled to the turn. */
export interface ConversationSet {
  id: string;
  speakers: [string, string];
  sessions: { id: string; date: string; turns: { speaker: string; text: string }[] }[];
  questions: { id: string; question: string; answer: string; category: string; evidence: { session: string; turn: number }[] }[];
}

const DEFAULT_DATA = new URL('./fixtures/conversations/', import.meta.url);

/** The sets in a file or in every `.json` file of a folder, by file name; a LoCoMo file is converted (`fromLocomo`). */
export function loadConversations(path: string): ConversationSet[] {
  const files = statSync(path).isDirectory() ? readdirSync(path).filter((f) => f.endsWith('.json')).sort().map((f) => join(path, f)) : [path];
  return files.flatMap((f) => {
    const data = JSON.parse(readFileSync(f, 'utf8')) as unknown;
    return Array.isArray(data) ? fromLocomo(data as LocomoSample[]) : [data as ConversationSet];
  });
}

/** One conversation of LoCoMo's release (`locomo10.json`): sessions `session_<n>` dated by `session_<n>_date_time`. */
export interface LocomoSample {
  sample_id: string | number;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: { question: string; answer?: unknown; evidence: string[]; category: number }[];
}

/** "1:56 pm on 8 May, 2023" → "2023-05-08T13:56" (LoCoMo's session dates). */
export function locomoDate(text: string): string {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(text.trim());
  const month = m ? ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'].indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unreadable LoCoMo session date: ${text}`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${m[6]}-${two(month + 1)}-${two(Number(m[4]))}T${two(hour)}:${m[2]}`;
}

/**
 * LoCoMo's conversations in this bench's shape, so `--data locomo10.json` runs as it is released.
 * A turn that shares a photo keeps its caption ("… [shares a photo: a sunset over a lake]"), the
 * words the conversation carries; categories keep LoCoMo's numbers (`locomo-1` … `locomo-4`), and
 * category 5 (questions about what was never said) is left out, as is an evidence reference
 * that names no turn (the release has a few, "D8:6; D9:17" written as one).
 */
export function fromLocomo(samples: readonly LocomoSample[]): ConversationSet[] {
  return samples.map((sample) => {
    const c = sample.conversation;
    const numbers = Object.keys(c).flatMap((k) => /^session_(\d+)$/.exec(k)?.[1] ?? []).map(Number).sort((a, b) => a - b);
    const where = new Map<string, { session: string; turn: number }>();
    const sessions = numbers.map((n) => {
      const turns = (c[`session_${n}`] as { speaker: string; dia_id: string; text: string; blip_caption?: string }[]).map((t, j) => {
        where.set(t.dia_id, { session: `S${n}`, turn: j });
        return { speaker: t.speaker, text: t.blip_caption ? `${t.text} [shares a photo: ${t.blip_caption}]` : t.text };
      });
      return { id: `S${n}`, date: locomoDate(String(c[`session_${n}_date_time`])), turns };
    });
    const questions = sample.qa.flatMap((q, i) => {
      const evidence = q.evidence.flatMap((ref) => ref.split(/[;,\s]+/)).flatMap((ref) => where.get(ref) ?? []);
      if (q.category === 5 || evidence.length === 0) return [];
      return [{ id: `${sample.sample_id}-q${i + 1}`, question: q.question, answer: String(q.answer ?? ''), category: `locomo-${q.category}`, evidence }];
    });
    return { id: String(sample.sample_id), speakers: [c.speaker_a, c.speaker_b], sessions, questions };
  });
}

/** A speaker's id on the wire: the name, lower-cased, in the scope alphabet. */
export const speakerId = (name: string) => name.toLowerCase().replace(/[^a-z0-9_.@+-]+/g, '-');

/** Session ids on the wire are the set's own ids lower-cased ("S3" → "s3"). */
const storedSession = (id: string) => id.toLowerCase();

/** Adds a conversation to a memory: per session, both speakers' turns, 30 s apart from the session's date. */
export async function fillConversation<M extends BenchMemory>(memory: M, set: ConversationSet): Promise<M> {
  for (const session of set.sessions) {
    const at = Date.parse(`${session.date}Z`);
    if (Number.isNaN(at)) throw new Error(`${set.id} ${session.id}: unreadable date ${session.date}`);
    await memory.add({
      session_id: storedSession(session.id),
      messages: session.turns.map((turn, j) => ({
        id: `${storedSession(session.id)}t${j}`,
        sender_id: speakerId(turn.speaker),
        sender_name: turn.speaker,
        role: turn.speaker === set.speakers[0] ? 'user' : 'assistant',
        timestamp: at + j * 30_000,
        content: turn.text,
      })),
    });
    await memory.flush({ session_id: storedSession(session.id) });
  }
  return memory;
}

/** Stemmed BM25 over a set's sessions (one document each, "Name: text" lines), the baseline to beat. */
const bm25Sessions = (set: ConversationSet) => stemmedBm25(set.sessions.map((s) => ({ id: storedSession(s.id), text: s.turns.map((t) => `${t.speaker}: ${t.text}`).join('\n') })));

/** Session ids in ranked order, each once, first place first. */
const firstEach = (sessions: readonly string[]) => [...new Set(sessions)];

interface Outcome {
  ranked: string[];
  relevant: string[];
  category: string;
  turn5: number | null;
  turn10: number | null;
  question: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      half: { type: 'string', default: 'all' },
      methods: { type: 'string', default: 'keyword,vector,hybrid,agentic' },
      via: { type: 'string', default: 'memory' },
      json: { type: 'boolean', default: false },
      misses: { type: 'boolean', default: false },
      reranker: { type: 'string' },
      'agentic-expansion': { type: 'boolean', default: false },
      'top-k': { type: 'string', default: '10' },
    },
  });
  if (!['fit', 'report', 'all'].includes(values.half!)) throw new Error(`--half must be fit, report or all, not ${values.half}`);
  if (!['memory', 'http'].includes(values.via!)) throw new Error(`--via must be memory or http, not ${values.via}`);
  if (values['agentic-expansion'] && values.via === 'http') throw new Error('--agentic-expansion is a createMemory option: run it with --via memory');
  const topK = Number(values['top-k']);
  if (!Number.isInteger(topK) || topK < 10 || topK > 100) throw new Error(`--top-k must be a whole number from 10 to 100, not ${values['top-k']}`);
  const methods = values.methods!.split(',') as SearchMethod[];
  const outside = methods.includes('keyword') && methods.includes('vector') ? Object.keys(OUTSIDE_FUSIONS) : [];
  const BASELINE = 'bm25 (stemmed)';
  const sets = loadConversations(values.data ?? fileURLToPath(DEFAULT_DATA));
  const rerankerChoice = readRerankerChoice(values.reranker, 'none');
  const server = values.via === 'http' ? await startBenchServer({ reranker: rerankerChoice }) : null;
  const embedder = server ? null : await createDefaultEmbedder();
  // As `npm run serve` holds it (open-memory.ts); a teacher that cannot load stops the bench.
  const teacher = rerankerChoice === 'teacher' && !server ? await createUnprimedTeacher() : null;
  const outcomes = new Map<string, Outcome[]>([...methods, ...outside, BASELINE].map((m) => [m, []]));
  // The calibrated methods' wire scores (hybrid, agentic): is what a score says what it holds here too?
  const reliabilityOf = new Map<SearchMethod, ReturnType<typeof emptyCounts>>(methods.filter((m) => m === 'hybrid' || m === 'agentic').map((m) => [m, emptyCounts()]));
  const started = performance.now();
  let searches = 0;
  let searchMs = 0;

  for (const set of sets) {
    const questions = set.questions.filter((q) => values.half === 'all' || questionHalf(q.id) === values.half);
    if (questions.length === 0) continue;
    const memory: BenchMemory = server ? server.memoryFor(speakerId(set.id)) : await createMemory({ embedder: embedder!, agenticExpansion: values['agentic-expansion']!, ...(teacher ? { reranker: teacher } : {}) });
    await fillConversation(memory, set);
    const owner = speakerId(set.speakers[0]);
    const turnText = new Map(set.sessions.map((s) => [s.id, s.turns.map((t) => foldText(t.text))]));
    const bm25 = await bm25Sessions(set);
    for (const q of questions) {
      const relevant = [...new Set(q.evidence.map((e) => storedSession(e.session)))];
      const evidence = q.evidence.map((e) => turnText.get(e.session)![e.turn]!);
      const base = { relevant, category: q.category, question: `${q.id}: ${q.question}` };
      for (const method of methods) {
        const t0 = performance.now();
        const { data } = await memory.search({ user_id: owner, query: q.question, method, top_k: topK, radius: 0 });
        searchMs += performance.now() - t0;
        searches++;
        // The first ten whatever `--top-k` asked for: what is scored, and whose scores are binned.
        const episodes: SearchEpisodeItem[] = data.episodes.slice(0, 10);
        outcomes.get(method)!.push({ ...base, ranked: firstEach(episodes.map((e) => e.session_id!)), turn5: turnRecall(evidence, episodes, 5), turn10: turnRecall(evidence, episodes, 10) });
        const reliability = reliabilityOf.get(method);
        if (reliability) countItems(reliability, episodes, (i) => relevant.includes(episodes[i]!.session_id!));
      }
      if (outside.length) {
        const fused = await outsideFusionSessions(async (method) => (await memory.search({ user_id: owner, query: q.question, method, top_k: 100, radius: 0 })).data.episodes);
        for (const name of outside) outcomes.get(name)!.push({ ...base, ranked: firstEach(fused[name]!), turn5: null, turn10: null });
      }
      outcomes.get(BASELINE)!.push({ ...base, ranked: await bm25(q.question), turn5: null, turn10: null });
    }
    await memory.close();
    process.stderr.write(`  ${set.id}: ${set.sessions.length} sessions, ${questions.length} questions, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
  await server?.stop();

  const all = outcomes.get(BASELINE)!;
  const categories = [...new Set(all.map((o) => o.category))].sort();
  const result: Record<string, Metrics & TurnRecall & { by_category: Record<string, Metrics & TurnRecall> }> = {};
  for (const [method, list] of outcomes) {
    const of = (c: string) => list.filter((o) => o.category === c);
    result[method] = { ...scoreWithTurns(list), by_category: Object.fromEntries(categories.map((c) => [c, scoreWithTurns(of(c))])) };
  }
  const msPerSearch = searchMs / Math.max(1, searches);
  const calibrations = Object.fromEntries([...reliabilityOf].map(([m, counts]) => [m, calibrationOf(counts)]));
  if (values.json) {
    const checks = Object.fromEntries(Object.entries(calibrations).map(([m, c]) => [m, strayCheck(c)]));
    console.log(JSON.stringify({ sets: sets.map((s) => s.id), half: values.half, via: values.via, agentic_reranker: rerankerChoice, questions: all.length, methods: result, calibration_by_method: calibrations, calibration_check: checks, ms_per_search: msPerSearch }));
    return;
  }
  const f = (x: number | null) => (x === null ? '–' : x.toFixed(3).replace(/^0/, ''));
  console.log(`\nConversations between two people (${sets.map((s) => s.id).join(', ')}), ${values.half} half, ${all.length} questions, session level${server ? `, through HTTP (npm run serve at ${server.url})` : ''}; agentic reranker ${rerankerChoice}; ${msPerSearch.toFixed(1)} ms/search\n`);
  console.log('| method | R_all@5 | R_all@10 | nDCG@10 | turn@10 |\n|---|---|---|---|---|');
  for (const [method, m] of Object.entries(result)) console.log(`| ${method} | ${f(m.recall_all_at_5)} | ${f(m.recall_all_at_10)} | ${f(m.ndcg_any_at_10)} | ${f(m.turn_recall_at_10)} |`);
  console.log(`\nPer category, R_all@10 / nDCG@10:\n\n| method | ${categories.map((c) => `${c} (${result[BASELINE]!.by_category[c]!.questions})`).join(' | ')} |\n|---|${categories.map(() => '---').join('|')}|`);
  for (const [method, m] of Object.entries(result)) console.log(`| ${method} | ${categories.map((c) => `${f(m.by_category[c]!.recall_all_at_10)} / ${f(m.by_category[c]!.ndcg_any_at_10)}`).join(' | ')} |`);
  for (const [method, c] of Object.entries(calibrations)) {
    for (const line of reliabilityReport(`Reliability of ${method} scores on the wire${method === 'agentic' ? ` (reranker ${rerankerChoice})` : ''}: an item is a hit when its session holds an evidence turn`, c)) console.log(line);
  }
  if (values.misses && outcomes.has('hybrid')) {
    console.log('\nQuestions hybrid misses an evidence session of at 10 (place of each evidence session per row, – outside the 10):');
    outcomes.get('hybrid')!.forEach((o, i) => {
      if (recallAll(o.ranked, o.relevant, 10) === 1) return;
      console.log(`\n${o.question} [${o.category}] evidence ${o.relevant.join(', ')}`);
      for (const [method, list] of outcomes) console.log(`  ${method.padEnd(16)} ${o.relevant.map((s) => { const at = list[i]!.ranked.slice(0, 10).indexOf(s); return at < 0 ? '–' : String(at + 1); }).join(' ')}`);
    });
  }
}

// Run as a script (`npm run bench:conversations`), not when a test imports the helpers above.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
