/**
 * `npm run bench`: ingest and search latency of the engine at 1k and 10k memories, side by side
 * with plain `@orama/orama` (its default tokenizer, its own vector and hybrid search) doing the
 * same searches over the same texts and vectors, in the same run. Ratios matter more than
 * absolute numbers on a shared machine.
 *
 *   npm run bench -- [--sizes 1000,10000] [--queries 100] [--json]
 */
import { parseArgs } from 'node:util';
import { create, insertMultiple, search as oramaSearch, type AnyOrama } from '@orama/orama';
import { createMemory, type Memory, type SearchMethod } from '../src/index.js';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { isAbstention, loadDataset, parseHaystackDate, type Dataset } from './longmemeval.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    queries: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
  },
});
const sizes = values.sizes!.split(',').map(Number);
const queryCount = Number(values.queries);
const METHODS: SearchMethod[] = ['keyword', 'vector', 'hybrid', 'agentic'];

interface Latency {
  p50: number;
  p95: number;
  mean: number;
}

function summarize(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95), mean: samples.reduce((s, x) => s + x, 0) / Math.max(1, samples.length) };
}

async function time<T>(samples: number[], work: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  const out = await work();
  samples.push(performance.now() - t0);
  return out;
}

/** User turns of LongMemEval sessions, in a fixed order, as conversations to ingest. */
function conversations(dataset: Dataset): { turns: string[]; at: number }[] {
  const out: { turns: string[]; at: number }[] = [];
  const seen = new Set<string>();
  for (const q of dataset.questions) {
    q.haystack_session_ids.forEach((id, i) => {
      if (seen.has(id)) return;
      seen.add(id);
      const turns = (dataset.sessions[id] ?? []).filter((t) => t.role === 'user' && t.content.trim()).map((t) => t.content);
      if (turns.length) out.push({ turns, at: parseHaystackDate(q.haystack_dates[i]!) });
    });
  }
  return out;
}

const dataset = await loadDataset();
const convs = conversations(dataset);
const queries = dataset.questions.filter((q) => !isAbstention(q)).slice(0, queryCount).map((q) => q.question);
const embedder = await createDefaultEmbedder();

interface Row {
  size: number;
  records: number;
  ingest: { engram_ms_per_session: Latency; orama_ms_per_record: number; engram_ms_per_record: number };
  search: Record<string, { engram: Latency; orama: Latency | null }>;
}

async function fill(memory: Memory, target: number): Promise<{ records: number; perSession: number[]; texts: { text: string; vector: Float32Array }[] }> {
  const perSession: number[] = [];
  let i = 0;
  while (memory.stats().records < target && i < convs.length) {
    const c = convs[i]!;
    const session = `s${i}`;
    await time(perSession, async () => {
      await memory.add({ session_id: session, messages: c.turns.map((content, j) => ({ sender_id: 'user', role: 'user' as const, timestamp: c.at + j * 1000, content })) });
      await memory.flush({ session_id: session });
    });
    i++;
  }
  // The same texts and vectors the engine indexed, for plain Orama.
  const listed: { text: string; vector: Float32Array }[] = [];
  for (const type of ['episode', 'atomic_fact', 'foresight'] as const) {
    for (let page = 1; ; page++) {
      const { data } = await memory.get({ user_id: 'user', memory_type: type, page, page_size: 100 });
      const items = type === 'episode' ? data.episodes.map((e) => `${e.subject}\n${e.summary}\n${e.episode}`) : data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.content));
      for (const text of items) listed.push({ text, vector: new Float32Array(0) });
      if (data.count < 100) break;
    }
  }
  const vectors = await embedder.embed(listed.map((l) => l.text));
  listed.forEach((l, k) => (l.vector = vectors[k]!));
  return { records: memory.stats().records, perSession, texts: listed };
}

const rows: Row[] = [];
for (const size of sizes) {
  const memory = await createMemory({ embedder });
  const filled = await fill(memory, size);
  const ingestMs = filled.perSession.reduce((s, x) => s + x, 0);

  const orama = create({ schema: { text: 'string', embedding: `vector[${embedder.dim}]` } as const }) as AnyOrama;
  const t0 = performance.now();
  insertMultiple(orama, filled.texts.map((t) => ({ text: t.text, embedding: Array.from(t.vector) })) as never, 1000);
  const oramaIngest = performance.now() - t0;

  const search: Row['search'] = {};
  const queryVectors = await embedder.embed(queries);
  for (const method of METHODS) {
    const engram: number[] = [];
    const plain: number[] = [];
    for (const [qi, query] of queries.entries()) {
      await time(engram, () => memory.search({ user_id: 'user', query, method, top_k: 10 }));
      if (method === 'agentic') continue; // plain Orama has no multi-round search
      const vector = Array.from(queryVectors[qi]!);
      await time(plain, () =>
        method === 'keyword'
          ? oramaSearch(orama, { term: query, properties: ['text'], limit: 10 })
          : method === 'vector'
            ? oramaSearch(orama, { mode: 'vector', vector: { value: vector, property: 'embedding' }, similarity: 0.1, limit: 10 } as never)
            : oramaSearch(orama, { mode: 'hybrid', term: query, vector: { value: vector, property: 'embedding' }, similarity: 0.1, limit: 10 } as never),
      );
    }
    search[method] = { engram: summarize(engram), orama: plain.length ? summarize(plain) : null };
  }
  rows.push({
    size,
    records: filled.records,
    ingest: {
      engram_ms_per_session: summarize(filled.perSession),
      engram_ms_per_record: ingestMs / filled.records,
      orama_ms_per_record: oramaIngest / filled.texts.length,
    },
    search,
  });
  await memory.close();
}

if (values.json) {
  console.log(JSON.stringify({ embedder: embedder.id, queries: queries.length, rows }));
} else {
  const f = (x: number) => x.toFixed(2).padStart(7);
  console.log(`Engram vs plain Orama, ${queries.length} LongMemEval questions per method, embedder ${embedder.id}, top_k 10 (ms)`);
  console.log('records  method    engram p50  engram p95   orama p50   orama p95   p50 ratio');
  for (const row of rows) {
    for (const [method, s] of Object.entries(row.search)) {
      const ratio = s.orama ? (s.engram.p50 / s.orama.p50).toFixed(2) : '   -';
      console.log(`${String(row.records).padStart(7)}  ${method.padEnd(8)} ${f(s.engram.p50)}    ${f(s.engram.p95)}     ${s.orama ? f(s.orama.p50) : '      -'}     ${s.orama ? f(s.orama.p95) : '      -'}     ${ratio}`);
    }
    const i = row.ingest;
    console.log(`${String(row.records).padStart(7)}  ingest   ${f(i.engram_ms_per_record)} ms/record (extract + embed + index + store; ${i.engram_ms_per_session.p50.toFixed(1)} ms p50 per session)   plain Orama insert ${i.orama_ms_per_record.toFixed(3)} ms/record`);
  }
}
