/**
 * `npm run bench:quality`: LongMemEval-S through Engram's public API, two protocols, on the fixed
 * half of the questions that no constant was fitted on.
 *
 *   (a) `user`: the paper's protocol, user turns only, every non-abstention question (468);
 *   (b) `all`:  both sides of every session (the assistant as a second participant), every
 *               non-abstention question; single-session-assistant questions then have their
 *               evidence in turns the searched owner did not speak.
 *   (c) `other`: both sides with the roles swapped, as between two people: the searched owner is
 *               the side that answered, so nearly every question's evidence lies in what the
 *               other participant said.
 *
 * Each question is its own memory: its haystack sessions are added (dated) and flushed, then the
 * question is searched with each method; retrieved episodes count for their session. Prints, per
 * protocol: session-level recall_all@5/10 and ndcg_any@5/10 per method next to a stemmed BM25
 * baseline over the same sessions (Orama with the English stemmer and stop words, the way a
 * competent user sets it up) and, when both legs are measured, next to one-line fusions of the
 * legs' own top-100 episode lists computed outside the engine (outside-fusion.ts); the same per
 * question type, turn-level recall from the `has_answer` labels, and a reliability table of the
 * hybrid and agentic scores on the wire (episodes and nested facts) with the buckets that stray
 * more than 0.1 and how many chance alone would leave so (reliability.ts), and hybrid's best score
 * on the half's abstention questions (no answer in memory).
 *
 *   npm run bench:quality -- [--protocol a|b|c|both|abc] [--half report|fit|all] [--limit N]
 *                            [--methods keyword,vector,hybrid,agentic] [--contract-defaults] [--json]
 *                            [--embedder-dims N] [--haystack full|personal|days|few|medium|large] [--agentic-expansion]
 *                            [--via memory|http] [--reranker none|teacher] [--names] [--misses]
 *
 * Data: LongMemEval-S (cleaned), MIT licence, expected at ../shared/data/longmemeval_s_dedup.json.gz
 * (see that folder's README for where it comes from); `--data PATH` points elsewhere.
 * By default each search asks for top_k 10 with radius 0; `--contract-defaults` sends only the query.
 * `--haystack personal` keeps only LongMemEval's own simulated chats about a person's life (the
 * evidence among them), without the ShareGPT and UltraChat filler (see `inHaystack`); `--haystack days`
 * stores every three of those as one conversation of several topics (see `haystackGroups`);
 * `--haystack few` holds one to five of them, the answer sessions among them, a memory just begun
 * (`top_k` then shows nearly all of it: what it measures is the scores' reliability); `--haystack large`
 * adds 450 conversations of other questions' haystacks to the full one (`extraConversations`), a
 * memory of about 500, where a score weighs ten times as many rivals as LongMemEval's; `--haystack
 * medium` the first 150 of those, a memory of about 200.
 * `--agentic-expansion` turns on agentic's expansion round (`createMemory({ agenticExpansion })`).
 * `--via http` builds every memory through `npm run serve` and its EverOS routes instead of in-process
 * (`http-memory.ts`): what an outside evaluation measures. `--reranker teacher` gives agentic search
 * the teacher reranker as `npm run serve` does by default (none by default here, as in `createMemory`).
 * `--names` stores the two sides as two named people (`sender_name`) and asks every question in the
 * third person by name ("How many tops has Maren bought?", `namedQuestion`), the way questions about
 * a conversation between people are asked; the stemmed BM25 baseline is asked the same words.
 * `--misses` lists the questions hybrid misses an answer session of at 10, with every row's place
 * for each answer session: where to start reading (on the fit half: the report half is for
 * reporting).
 */
import { parseArgs } from 'node:util';
import { calibrationOf, countItems, emptyCounts, reliabilityReport, strayCheck } from './reliability.js';
import type { Embedder, SearchEpisodeItem, SearchMethod } from '../src/index.js';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { createUnprimedTeacher, readRerankerChoice } from '../src/cli/open-memory.js';
import { startBenchServer } from './http-memory.js';
import { OUTSIDE_FUSIONS, outsideFusionSessions } from './outside-fusion.js';
import { stemmedBm25 } from './stemmed-bm25.js';
import {
  BM25_REPLICATION, evidenceTurns, fillHaystack, haystackGroups, haystackMemory, holdsAnswer, isAbstention, loadDataset, protocolTurns, questionHalf, rankedSessions, recallAll, scoreWithTurns, sessionsInOrder, storedId, turnRecall,
  DAY_SESSIONS, FEW_MOST, LARGE_EXTRA, MEDIUM_EXTRA, extraConversations, namedQuestion, type Dataset, type Haystack, type Metrics, type Protocol, type Question, type TurnRecall,
} from './longmemeval.js';

const { values } = parseArgs({
  options: {
    protocol: { type: 'string', default: 'both' },
    half: { type: 'string', default: 'report' },
    limit: { type: 'string' },
    methods: { type: 'string', default: 'keyword,vector,hybrid,agentic' },
    json: { type: 'boolean', default: false },
    data: { type: 'string' },
    'contract-defaults': { type: 'boolean', default: false },
    'embedder-dims': { type: 'string' },
    haystack: { type: 'string', default: 'full' },
    'agentic-expansion': { type: 'boolean', default: false },
    via: { type: 'string', default: 'memory' },
    reranker: { type: 'string' },
    names: { type: 'boolean', default: false },
    misses: { type: 'boolean', default: false },
  },
});

const PROTOCOLS: Record<string, Protocol[]> = { a: ['user'], b: ['all'], c: ['other'], both: ['user', 'all'], abc: ['user', 'all', 'other'] };
const protocols = PROTOCOLS[values.protocol!];
if (!protocols) throw new Error(`--protocol must be a, b, c, both or abc, not ${values.protocol}`);
if (!['fit', 'report', 'all'].includes(values.half!)) throw new Error(`--half must be fit, report or all, not ${values.half}`);
if (!['full', 'personal', 'days', 'few', 'medium', 'large'].includes(values.haystack!)) throw new Error(`--haystack must be full, personal, days, few, medium or large, not ${values.haystack}`);
const haystack = values.haystack as Haystack;
if (!['memory', 'http'].includes(values.via!)) throw new Error(`--via must be memory or http, not ${values.via}`);
if (values.via === 'http' && (values['embedder-dims'] || values['agentic-expansion'])) throw new Error('--via http searches the server as `npm run serve` starts it: no --embedder-dims or --agentic-expansion');
const rerankerChoice = readRerankerChoice(values.reranker, 'none');
const server = values.via === 'http' ? await startBenchServer({ reranker: rerankerChoice }) : null;
// As `npm run serve` holds it (open-memory.ts); a teacher that cannot load stops the bench.
const teacher = rerankerChoice === 'teacher' && !server ? await createUnprimedTeacher() : null;
const methods = values.methods!.split(',') as SearchMethod[];
const names = values.names!;
/** The question as searched: LongMemEval's own, or in the third person under `--names`. */
const asked = (q: Question) => (names ? namedQuestion(q.question) : q.question);
const BASELINE = 'bm25 (stemmed)';
/** With both legs measured, the outside fusions of their top-100 episode lists (outside-fusion.ts) are rows too. */
const outside = methods.includes('keyword') && methods.includes('vector') ? Object.keys(OUTSIDE_FUSIONS) : [];

process.stderr.write('LongMemEval-S: loading ../shared/data/longmemeval_s_dedup.json.gz (or --data PATH)\n');
const dataset = await loadDataset(values.data);
const inHalf = (q: Question) => values.half === 'all' || questionHalf(q.question_id) === values.half;
let questions = dataset.questions.filter((q) => !isAbstention(q) && inHalf(q));
if (values.limit) questions = questions.slice(0, Number(values.limit));
// LongMemEval's questions about something never said (`_abs`), all of the half: what hybrid's best score is when no answer exists.
const unanswerable = dataset.questions.filter((q) => isAbstention(q) && inHalf(q));
const embedder = weakened(await createDefaultEmbedder(), values['embedder-dims'] ? Number(values['embedder-dims']) : undefined);

/**
 * `--embedder-dims N`: the bundled model cut to its first N dimensions, a weaker model of the
 * same kind. A stress test for fusion: on conversations between people the vector leg can be much
 * weaker than the keyword leg, and hybrid must still not lose to keyword.
 */
function weakened(base: Embedder, dims: number | undefined): Embedder {
  if (dims === undefined) return base;
  if (!Number.isInteger(dims) || dims < 1 || dims > base.dim) throw new Error(`--embedder-dims must be 1..${base.dim}`);
  const cut = (v: Float32Array) => {
    const out = v.slice(0, dims);
    const norm = Math.hypot(...out) || 1;
    return out.map((x) => x / norm);
  };
  return { id: `${base.id}/first-${dims}-dims`, dim: dims, embed: async (texts, options) => (await base.embed(texts, options)).map(cut) };
}

/** One row's answer to one question; every row holds one per question, in the order of `questions`. */
interface Outcome {
  ranked: string[];
  relevant: string[];
  type: string;
  turn5: number | null;
  turn10: number | null;
}

/** Stemmed BM25 over the protocol's stored conversations (one document each), the baseline to beat. */
async function bm25Sessions(ds: Dataset, q: Question, protocol: Protocol): Promise<string[]> {
  const text = (sessionIds: string[]) => sessionIds.flatMap((id) => protocolTurns(ds, id, protocol).map(({ turn }) => turn.content)).join('\n');
  const docs = [
    ...haystackGroups(q, haystack).map((group) => ({ id: storedId(group), text: text(group.map((i) => q.haystack_session_ids[i]!)) })),
    ...extraConversations(ds, q, haystack).map((extra) => ({ id: extra.stored, text: text([extra.sessionId]) })),
  ].filter((d) => d.text.trim());
  return sessionsInOrder(q, await (await stemmedBm25(docs))(asked(q)));
}

/**
 * A question's memory with its haystack added: through the bench server's EverOS routes (`--via
 * http`; `key` names its project) or in process with `options`.
 */
function memoryOf(key: string, q: Question, protocol: Protocol, options: Parameters<typeof haystackMemory>[4] = {}) {
  return server ? fillHaystack(server.memoryFor(key), dataset, q, protocol, haystack, names) : haystackMemory(dataset, q, embedder, protocol, options, haystack, names);
}

const NAMES_LABEL = names ? 'sides named, questions in the third person, ' : '';
const HAYSTACK_LABEL: Record<Haystack, string> = {
  full: '',
  personal: 'personal haystack (no ShareGPT/UltraChat filler), ',
  days: `days haystack (personal chats, ${DAY_SESSIONS} to a stored conversation), `,
  few: `few haystack (the answer sessions and the personal chats nearest them, 1 to ${FEW_MOST} or the answer sessions' count), `,
  medium: `medium haystack (the full one and ${MEDIUM_EXTRA} conversations of other questions' haystacks), `,
  large: `large haystack (the full one and ${LARGE_EXTRA} conversations of other questions' haystacks), `,
};
/** The methods whose scores are calibrated 0..1 chances (keyword and vector answer raw measures). */
const CALIBRATED: SearchMethod[] = ['hybrid', 'agentic'];
const report: Record<string, unknown> = {};
const started = performance.now();

for (const protocol of protocols) {
  const outcomes = new Map<string, Outcome[]>([...methods, ...outside, BASELINE].map((m) => [m, []]));
  // Reliability of the calibrated methods' wire scores (hybrid, agentic), episodes and facts (reliability.ts).
  const reliabilityOf = new Map(CALIBRATED.filter((m) => methods.includes(m)).map((m) => [m, emptyCounts()]));
  let searchMs = 0;
  for (const [qi, q] of questions.entries()) {
    const memory = await memoryOf(`${protocol}-q${qi}`, q, protocol, { agenticExpansion: values['agentic-expansion']!, ...(teacher ? { reranker: teacher } : {}) });
    const evidence = evidenceTurns(dataset, q, protocol);
    for (const method of methods) {
      const t0 = performance.now();
      const params = values['contract-defaults'] ? {} : { top_k: 10, radius: 0 };
      const { data } = await memory.search({ user_id: 'user', query: asked(q), method, ...params });
      searchMs += performance.now() - t0;
      const episodes: SearchEpisodeItem[] = data.episodes;
      outcomes.get(method)!.push({
        ranked: rankedSessions(q, episodes), relevant: q.answer_session_ids, type: q.question_type,
        turn5: turnRecall(evidence, episodes, 5), turn10: turnRecall(evidence, episodes, 10),
      });
      const reliability = reliabilityOf.get(method);
      if (reliability) countItems(reliability, episodes, (i) => holdsAnswer(q, episodes[i]!.session_id!));
    }
    if (outside.length) {
      // Each leg's top 100 episodes, fused outside the engine (outside-fusion.ts).
      const fused = await outsideFusionSessions(async (method) => (await memory.search({ user_id: 'user', query: asked(q), method, top_k: 100, radius: 0 })).data.episodes);
      for (const name of outside) outcomes.get(name)!.push({ ranked: sessionsInOrder(q, fused[name]!), relevant: q.answer_session_ids, type: q.question_type, turn5: null, turn10: null });
    }
    await memory.close();
    outcomes.get(BASELINE)!.push({ ranked: await bm25Sessions(dataset, q, protocol), relevant: q.answer_session_ids, type: q.question_type, turn5: null, turn10: null });
    if ((qi + 1) % 10 === 0) process.stderr.write(`  protocol ${protocol}: ${qi + 1}/${questions.length} questions, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }

  // The best episode's hybrid score where the memory holds no answer (its haystack holds a near
  // miss: the same topic, another detail). Scores are chances given an answer exists; this is
  // what a `min_score` meets when none does.
  const topScores: number[] = [];
  for (const [qi, q] of (methods.includes('hybrid') ? unanswerable : []).entries()) {
    const memory = await memoryOf(`${protocol}-abs${qi}`, q, protocol);
    const { data } = await memory.search({ user_id: 'user', query: asked(q), method: 'hybrid', top_k: 10, radius: 0 });
    if (data.episodes[0]) topScores.push(data.episodes[0].score);
    await memory.close();
  }
  const noAnswer = { questions: topScores.length, mean_top_score: topScores.length ? topScores.reduce((a, b) => a + b, 0) / topScores.length : null, top_at_least_0_5: topScores.filter((x) => x >= 0.5).length, top_at_least_0_8: topScores.filter((x) => x >= 0.8).length };

  const types = [...new Set(questions.map((q) => q.question_type))].sort();
  const perMethod: Record<string, Metrics & TurnRecall & { by_type: Record<string, Metrics & TurnRecall> }> = {};
  for (const [method, list] of outcomes) {
    const ofType = (t: string) => list.filter((o) => o.type === t);
    perMethod[method] = { ...scoreWithTurns(list), by_type: Object.fromEntries(types.map((t) => [t, scoreWithTurns(ofType(t))])) };
  }
  const calibrations = Object.fromEntries([...reliabilityOf].map(([m, r]) => [m, calibrationOf(r)]));
  // Per method: the buckets off, and what chance alone would leave off (reliability.ts).
  const strays = Object.fromEntries(Object.entries(calibrations).map(([m, c]) => [m, strayCheck(c)]));
  // `calibration` stays hybrid's (what earlier reports named so); `calibration_by_method` adds agentic's.
  report[protocol] = { questions: questions.length, methods: perMethod, calibration: calibrations['hybrid'], calibration_by_method: calibrations, calibration_check: strays, no_answer: noAnswer, ms_per_search: searchMs / Math.max(1, questions.length * methods.length) };

  if (!values.json) {
    const f = (x: number | null) => (x === null ? '  –  ' : x.toFixed(3));
    const name = { user: '(a) user turns', all: '(b) all turns, both sides', other: '(c) both sides, roles swapped: evidence from the other participant' }[protocol];
    console.log(`\nLongMemEval-S, protocol ${name}, ${server ? `through HTTP (npm run serve at ${server.url}), ` : ''}${HAYSTACK_LABEL[haystack]}${NAMES_LABEL}${values.half} half, ${questions.length} questions, session level; embedder ${embedder.id}; agentic reranker ${rerankerChoice}; ${(searchMs / Math.max(1, questions.length * methods.length)).toFixed(1)} ms/search`);
    console.log('method            R_all@5  R_all@10  nDCG@5  nDCG@10  turn@5  turn@10');
    for (const [method, m] of Object.entries(perMethod)) {
      console.log(`${method.padEnd(17)} ${f(m.recall_all_at_5)}    ${f(m.recall_all_at_10)}     ${f(m.ndcg_any_at_5)}   ${f(m.ndcg_any_at_10)}   ${f(m.turn_recall_at_5)}  ${f(m.turn_recall_at_10)}`);
    }
    if (protocol === 'user') {
      const b = BM25_REPLICATION;
      console.log(`${'BM25 (paper repl.)'.padEnd(17)} ${f(b.recall_all_at_5)}    ${f(b.recall_all_at_10)}     ${f(b.ndcg_any_at_5)}   ${f(b.ndcg_any_at_10)}   (all 470 questions, published)`);
    }
    console.log(`\nR_all@10 / nDCG@10 per question type (${name})`);
    console.log(`${'type'.padEnd(27)} ${'n'.padStart(4)}  ${[...outcomes.keys()].map((m) => m.padEnd(15)).join(' ')}`);
    for (const t of types) {
      const n = questions.filter((q) => q.question_type === t).length;
      console.log(`${t.padEnd(27)} ${String(n).padStart(4)}  ${[...outcomes.keys()].map((m) => `${f(perMethod[m]!.by_type[t]!.recall_all_at_10)} / ${f(perMethod[m]!.by_type[t]!.ndcg_any_at_10)}`.padEnd(15)).join(' ')}`);
    }
    // Turn level: only the engine's methods return the text it reads (the fusions and the baseline rank sessions).
    console.log(`\nTurn-level recall @5 / @10 per question type (${name}): the share of evidence turns whose words are in the returned episodes, their facts or passages; n counts the questions with an evidence turn stored`);
    console.log(`${'type'.padEnd(27)} ${'n'.padStart(4)}  ${methods.map((m) => m.padEnd(15)).join(' ')}`);
    for (const t of types) {
      const n = outcomes.get(methods[0]!)!.filter((o) => o.type === t && o.turn10 !== null).length;
      console.log(`${t.padEnd(27)} ${String(n).padStart(4)}  ${methods.map((m) => `${f(perMethod[m]!.by_type[t]!.turn_recall_at_5)} / ${f(perMethod[m]!.by_type[t]!.turn_recall_at_10)}`.padEnd(15)).join(' ')}`);
    }
    if (values.misses) {
      // Where hybrid (else the first method) misses an answer session at 10: every row's places for them.
      const judge = methods.includes('hybrid') ? 'hybrid' : methods[0]!;
      const misses = questions.flatMap((q, qi) => (recallAll(outcomes.get(judge)![qi]!.ranked, q.answer_session_ids, 10) < 1 ? [qi] : []));
      console.log(`\nQuestions ${judge} misses an answer session of at 10 (${misses.length}): each method's place for every answer session (- : not returned)`);
      for (const qi of misses) {
        const q = questions[qi]!;
        const places = [...outcomes].map(([m, list]) => {
          const { ranked } = list[qi]!;
          return `${m} [${q.answer_session_ids.map((s) => ranked.indexOf(s) + 1 || '-').join(',')}]`;
        });
        console.log(`${q.question_id} (${q.question_type}) ${asked(q)}\n    ${places.join('  ')}`);
      }
    }
    for (const [method, calibration] of Object.entries(calibrations)) {
      for (const line of reliabilityReport(`Reliability of ${method} scores on the wire (${name}${method === 'agentic' ? `, reranker ${rerankerChoice}` : ''}): an item is a hit when its session holds the answer`, calibration)) console.log(line);
    }
    if (noAnswer.questions) {
      console.log(`\nNo answer in memory (the ${noAnswer.questions} abstention questions of the ${values.half} half, their haystacks holding a near miss): hybrid's best episode scored ${f(noAnswer.mean_top_score)} on average, 0.5 or more in ${noAnswer.top_at_least_0_5} and 0.8 or more in ${noAnswer.top_at_least_0_8} of them.`);
    }
  }
}

if (values.json) console.log(JSON.stringify({ dataset: 'LongMemEval-S', half: values.half, embedder: embedder.id, agentic_reranker: rerankerChoice, protocols: report, bm25_replication: BM25_REPLICATION, seconds: (performance.now() - started) / 1000 }));
await server?.stop();
