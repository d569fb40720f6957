/**
 * `npm run bench:quality`: LongMemEval-S through Engram's public API with the paper's protocol.
 * Each question is its own memory: its haystack sessions are added (user turns only, dated) and
 * flushed, then the question is searched with each method; retrieved episodes count for their
 * session. Prints recall_all@5/10 and ndcg_any@5/10 per method next to the BM25 replication.
 *
 *   npm run bench:quality -- [--limit N] [--methods keyword,vector,hybrid] [--contract-defaults] [--json]
 *
 * By default each search asks for top_k 10 with radius 0 (every vector hit may compete);
 * `--contract-defaults` sends only the query, so top_k -1 and the automatic radius apply.
 */
import { parseArgs } from 'node:util';
import type { SearchMethod } from '../src/index.js';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { BM25_REPLICATION, haystackMemory, isAbstention, loadDataset, rankedSessions, score, type Metrics } from './longmemeval.js';

const { values } = parseArgs({
  options: {
    limit: { type: 'string' },
    methods: { type: 'string', default: 'keyword,vector,hybrid' },
    json: { type: 'boolean', default: false },
    data: { type: 'string' },
    'contract-defaults': { type: 'boolean', default: false },
  },
});

const methods = values.methods!.split(',') as SearchMethod[];
const dataset = await loadDataset(values.data);
let questions = dataset.questions.filter((q) => !isAbstention(q));
if (values.limit) questions = questions.slice(0, Number(values.limit));
const embedder = await createDefaultEmbedder();
const results = new Map<SearchMethod, { ranked: string[]; relevant: string[]; type: string }[]>(methods.map((m) => [m, []]));
const started = performance.now();
let searchMs = 0;

for (const [qi, q] of questions.entries()) {
  const memory = await haystackMemory(dataset, q, embedder);
  for (const method of methods) {
    const t0 = performance.now();
    const params = values['contract-defaults'] ? {} : { top_k: 10, radius: 0 };
    const { data } = await memory.search({ user_id: 'user', query: q.question, method, ...params });
    searchMs += performance.now() - t0;
    results.get(method)!.push({ ranked: rankedSessions(q, data.episodes), relevant: q.answer_session_ids, type: q.question_type });
  }
  await memory.close();
  if (!values.json && (qi + 1) % 50 === 0) process.stderr.write(`  ${qi + 1}/${questions.length} questions\n`);
}

const report: Record<string, Metrics> = {};
for (const [method, list] of results) report[method] = score(list);
const elapsed = (performance.now() - started) / 1000;

if (values.json) {
  console.log(JSON.stringify({ dataset: 'LongMemEval-S', protocol: 'user turns, session level', questions: questions.length, embedder: embedder.id, methods: report, bm25_replication: BM25_REPLICATION, seconds: elapsed }));
} else {
  const f = (x: number) => x.toFixed(3);
  console.log(`LongMemEval-S, ${questions.length} questions, user turns, session level; embedder ${embedder.id}; ${elapsed.toFixed(0)} s (${(searchMs / (questions.length * methods.length)).toFixed(1)} ms/search)`);
  console.log('method            R_all@5  R_all@10  nDCG@5  nDCG@10');
  for (const [method, m] of Object.entries(report)) console.log(`${method.padEnd(17)} ${f(m.recall_all_at_5)}    ${f(m.recall_all_at_10)}     ${f(m.ndcg_any_at_5)}   ${f(m.ndcg_any_at_10)}`);
  const b = BM25_REPLICATION;
  console.log(`${'BM25 (replication)'.padEnd(17)} ${f(b.recall_all_at_5)}    ${f(b.recall_all_at_10)}     ${f(b.ndcg_any_at_5)}   ${f(b.ndcg_any_at_10)}`);
}
