/**
 * `npx tsx bench/teacher-thread.ts`: what a cold agentic search does to everything else the same
 * process serves (the server's situation: one thread answers every tenant's requests). For each
 * question, one memory of its LongMemEval-S haystack (user turns) gets the teacher reranker as
 * the server holds it, and an agentic search runs over it with nothing cached yet. Meanwhile a
 * timer due every 5 ms records how late it runs: its longest delay is how long a request arriving
 * then would wait before the server even reads it. (`monitorEventLoopDelay` is no help here: it
 * samples too seldom while the loop is held and recorded 10 ms for a stall of over a second.) Side by side: the teacher's
 * encoder on the caller's thread and on its own worker thread (the default).
 *
 *   npx tsx bench/teacher-thread.ts [--limit 5] [--data path]
 *
 * Printed per mode, medians over the questions: the agentic search's time and the event loop's
 * longest delay during it. Progress to stderr, the table to stdout.
 */
import { parseArgs } from 'node:util';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { createTeacherReranker } from '../src/models/teacher-reranker.js';
import type { Reranker } from '../src/models/ports.js';
import { haystackMemory, isAbstention, loadDataset, longMemEvalNote } from './longmemeval.js';

const { values } = parseArgs({ options: { limit: { type: 'string', default: '5' }, data: { type: 'string' } } });
process.stderr.write(`${longMemEvalNote(values.data)}\n`);
const dataset = await loadDataset(values.data);
const questions = dataset.questions.filter((q) => !isAbstention(q));
const limit = Number(values.limit);
const embedder = await createDefaultEmbedder();
const TICK_MS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const rows: string[] = [];
for (const thread of [false, true]) {
  const agenticMs: number[] = [];
  const longest: number[] = [];
  for (let i = 0; i < limit; i++) {
    const q = questions[i]!;
    // A fresh teacher per question: its sentence cache starts empty, as on a memory never searched.
    const teacher = await createTeacherReranker({ split: 'line', thread });
    const reranker: Reranker = { id: teacher.id, rerank: (query, candidates, options) => teacher.rerank(query, candidates, options) };
    const memory = await haystackMemory(dataset, q, embedder, 'user', { reranker });
    const delays: number[] = [];
    let due = performance.now() + TICK_MS;
    const timer = setInterval(() => {
      const now = performance.now();
      delays.push(Math.max(0, now - due));
      due = now + TICK_MS;
    }, TICK_MS);
    const started = performance.now();
    await memory.search({ user_id: 'user', query: q.question, method: 'agentic', top_k: 10 });
    agenticMs.push(performance.now() - started);
    // One more turn of the loop, so a stall that lasted to the end is sampled.
    await new Promise((resolve) => setTimeout(resolve, 20));
    clearInterval(timer);
    longest.push(Math.max(0, ...delays));
    await memory.close();
    await teacher.close();
    process.stderr.write(`${thread ? 'worker thread' : "caller's thread"}: question ${i + 1}/${limit}\n`);
  }
  rows.push(`| ${thread ? 'worker thread (default)' : "caller's thread"} | ${median(agenticMs).toFixed(0)} | ${median(longest).toFixed(0)} |`);
}
console.log(`Cold agentic search with the teacher reranker: how long the event loop stalls meanwhile (medians over ${limit} questions)\n`);
console.log('| teacher encoder | agentic search ms | longest event-loop delay ms |');
console.log('|---|---|---|');
for (const row of rows) console.log(row);
