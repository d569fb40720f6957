/**
 * `npx tsx bench/browser-teacher.ts`: the teacher reranker of a browser memory (the client's
 * `reranker: { provider: 'teacher', … }`; its own Web Worker beside the memory worker), in real
 * Chromium, served from a local server as an app serves it. Per run, in a fresh browser profile:
 *
 * - load, cold: from opening the memory to the teacher being ready, its 28 MB fetched;
 * - load, cached: the same after reopening the memory in that profile (the files from the Cache API);
 * - agentic search over one LongMemEval-S question's haystack (user turns, dated, flushed per
 *   session; run i takes question i), first with nothing embedded yet, then the same question
 *   again (its lines cached), beside a hybrid search of it.
 *
 *   npx tsx bench/browser-teacher.ts [--runs 5] [--data path]
 *
 * Medians over the runs; times are taken from Node around each call into the page (a few
 * milliseconds of page.evaluate included; the load is polled every 25 ms). Needs Chromium
 * (apt-get install -y chromium).
 */
import { parseArgs } from 'node:util';
import { startMemoryPages, driver, value, within } from '../test/support/memory-pages.js';
import { hasChromium } from '../test/support/browser.js';
import { haystackGroups, isAbstention, loadDataset, longMemEvalNote, parseHaystackDate, protocolTurns, storedId } from './longmemeval.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, data: { type: 'string' } } });
if (!hasChromium()) throw new Error('Chromium is needed: apt-get install -y chromium');
process.stderr.write(`${longMemEvalNote(values.data)}\n`);
const dataset = await loadDataset(values.data);
const questions = dataset.questions.filter((q) => !isAbstention(q));
const runs = Number(values.runs);
const TEACHER = { provider: 'teacher' as const, modelUrl: '/teacher/model.json', wasmPaths: '/tfjs/' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const pages = await startMemoryPages();
const times = { loadCold: [] as number[], loadCached: [] as number[], agenticCold: [] as number[], agenticWarm: [] as number[], hybrid: [] as number[] };
try {
  for (let run = 0; run < runs; run++) {
    const q = questions[run]!;
    const context = await pages.browser.newContext();
    const d = driver(await pages.open(context));
    const loaded = (name: string) => within(120_000, async () => (await d.progress(name)).some((p) => p.phase === 'reranker' && p.loaded === 1), `the teacher loaded (${name})`);

    let t0 = performance.now();
    value(await d.open('bench', undefined, undefined, undefined, TEACHER));
    await loaded('bench');
    times.loadCold.push(performance.now() - t0);

    for (const group of haystackGroups(q, 'full')) {
      const at = parseHaystackDate(q.haystack_dates[group[0]!]!);
      const turns = protocolTurns(dataset, q.haystack_session_ids[group[0]!]!, 'user');
      if (turns.length === 0) continue;
      const session_id = storedId(group);
      value(await d.call('bench', 'add', { session_id, messages: turns.map(({ turn, index }) => ({ sender_id: 'user', role: 'user', timestamp: at + index * 1000, content: turn.content })) }));
      value(await d.call('bench', 'flush', { session_id }));
    }
    const search = async (method: string) => {
      const start = performance.now();
      value(await d.call('bench', 'search', { user_id: 'user', query: q.question, method, top_k: 10 }));
      return performance.now() - start;
    };
    times.agenticCold.push(await search('agentic'));
    times.agenticWarm.push(await search('agentic'));
    times.hybrid.push(await search('hybrid'));

    // Reopened in the same profile: the teacher's files come from the Cache API.
    await d.close('bench');
    const again = driver(await pages.open(context));
    t0 = performance.now();
    value(await again.open('bench', undefined, undefined, undefined, TEACHER));
    await within(120_000, async () => (await again.progress('bench')).some((p) => p.phase === 'reranker' && p.loaded === 1), 'the teacher loaded again');
    times.loadCached.push(performance.now() - t0);
    await context.close();
    process.stderr.write(`run ${run + 1}/${runs}\n`);
  }
} finally {
  await pages.close();
}

const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
console.log(`The teacher reranker of a browser memory, Chromium, medians over ${runs} runs (one LongMemEval-S haystack each, user turns)\n`);
console.log('| step | time |');
console.log('|---|---|');
console.log(`| open → teacher ready, files fetched | ${ms(times.loadCold)} |`);
console.log(`| open → teacher ready, files from the Cache API | ${ms(times.loadCached)} |`);
console.log(`| agentic search, its lines not yet embedded | ${ms(times.agenticCold)} |`);
console.log(`| agentic search, the same question again | ${ms(times.agenticWarm)} |`);
console.log(`| hybrid search, the same question | ${ms(times.hybrid)} |`);
