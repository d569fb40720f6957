/**
 * `npm run bench`: ingest and search latency of the engine at 1k and 10k memories (100k with
 * `--sizes`), side by side in the same run with plain `@orama/orama` over the same texts and the
 * same 128-d vectors, configured two ways:
 *
 *   - "Orama, fair": the English stemmer and stop words Engram's tokenizer uses, asked for as
 *     many hits as Engram's legs fuse (`--orama-limit`, default 20 = Engram's per-leg pool for
 *     top_k 10). This is the baseline a competent user gets, and the one to beat.
 *   - "Orama, defaults": Orama's default tokenizer (no stemming, no stop words), where a question
 *     matches nearly every document; kept to show what the configuration is worth.
 *
 * Engram's query embedding is timed apart (its own row): the search rows serve each question's
 * vector from a cache, so they time retrieval alone, as the Orama columns do (they are handed the
 * vector). Ratios matter more than absolute numbers on a shared machine.
 *
 * Ingest runs through the whole write path with the rules extractor. Messages per CPU-second count
 * every thread of the process.
 *
 *   npm run bench -- [--sizes 1000,10000,100000] [--queries 100] [--warmup 20] [--orama-limit 20] [--json]
 */
import { parseArgs } from 'node:util';
import { create, insertMultiple, search as oramaSearch, type AnyOrama } from '@orama/orama';
import { stemmer } from '@orama/stemmers/english';
import { stopwords } from '@orama/stopwords/english';
import { createMemory, type Memory, type SearchMethod } from '../src/index.js';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import type { Embedder } from '../src/models/ports.js';
import { isAbstention, loadDataset, parseHaystackDate, type Dataset } from './longmemeval.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    queries: { type: 'string', default: '100' },
    'orama-limit': { type: 'string', default: '20' },
    warmup: { type: 'string', default: '20' },
    json: { type: 'boolean', default: false },
  },
});
const sizes = values.sizes!.split(',').map(Number);
const queryCount = Number(values.queries);
const oramaLimit = Number(values['orama-limit']);
const warmupCount = Number(values.warmup);
const METHODS: SearchMethod[] = ['keyword', 'vector', 'hybrid', 'agentic'];

interface Latency {
  p50: number;
  p95: number;
}

function summarize(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
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

/** The embedder with the benchmark's questions pre-embedded, so a search times retrieval alone. */
function withCachedQueries(embedder: Embedder, cache: Map<string, Float32Array>): Embedder {
  const lookup = async (texts: readonly string[], embed: (t: readonly string[]) => Promise<Float32Array[]>) => {
    const missing = texts.filter((t) => !cache.has(t));
    if (missing.length) (await embed(missing)).forEach((v, i) => cache.set(missing[i]!, v));
    return texts.map((t) => cache.get(t)!);
  };
  return {
    id: embedder.id,
    dim: embedder.dim,
    embed: (texts, options) => embedder.embed(texts, options),
    embedQueries: (texts, options) => lookup(texts, (t) => (embedder.embedQueries ? embedder.embedQueries(t, options) : embedder.embed(t, options))),
  };
}

const dataset = await loadDataset();
const convs = conversations(dataset);
const answerable = dataset.questions.filter((q) => !isAbstention(q)).map((q) => q.question);
const queries = answerable.slice(0, queryCount);
// Other questions, asked of every column before the timed ones (see the search loop).
const warmups = answerable.slice(queryCount, queryCount + warmupCount);
const embedder = await createDefaultEmbedder();

// Query embedding, timed apart: one question at a time, as a search embeds it.
const embedSamples: number[] = [];
const queryVectors = new Map<string, Float32Array>();
for (const q of queries) {
  const [v] = await time(embedSamples, () => (embedder.embedQueries ? embedder.embedQueries([q]) : embedder.embed([q])));
  queryVectors.set(q, v!);
}
for (const q of warmups) queryVectors.set(q, (await (embedder.embedQueries ? embedder.embedQueries([q]) : embedder.embed([q])))[0]!);
const cachedEmbedder = withCachedQueries(embedder, queryVectors);

// The first extraction loads the language model (wink-nlp's tables, once per process), as
// createDefaultEmbedder above loaded the embedding model: one conversation written to a memory of
// its own pays for it, so the ingest rows time the write path itself. The load is printed apart.
const warmUpMs = await (async () => {
  const memory = await createMemory({ embedder: cachedEmbedder });
  const t0 = performance.now();
  await memory.add({ session_id: 'warm-up', messages: convs[0]!.turns.map((content, j) => ({ sender_id: 'user', role: 'user' as const, timestamp: convs[0]!.at + j * 1000, content })) });
  await memory.flush({ session_id: 'warm-up' });
  const ms = performance.now() - t0;
  await memory.close();
  return ms;
})();

type Column = 'engram' | 'fair' | 'defaults';
interface Row {
  size: number;
  records: number;
  ingest: { messages: number; messages_per_s: number; messages_per_cpu_s: number; index_build_ms: number; orama_fair_insert_ms: number; orama_defaults_insert_ms: number };
  /** Resident memory before the memory was filled, after Engram's load (records + indexes), and with both Orama indexes too. */
  rss_mb: { before: number; after_engram_load: number; after_orama_load: number };
  search: Record<string, Partial<Record<Column, Latency>>>;
}

async function fill(memory: Memory, target: number): Promise<{ messages: number; ms: number; cpuMs: number; texts: { text: string; vector: Float32Array }[] }> {
  let messages = 0;
  // CPU time of this process next to wall time: on a shared machine, messages per CPU-second is the
  // figure that does not move with other processes' load.
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; memory.stats().records < target && i < convs.length; i++) {
    const c = convs[i]!;
    const session = `s${i}`;
    await memory.add({ session_id: session, messages: c.turns.map((content, j) => ({ sender_id: 'user', role: 'user' as const, timestamp: c.at + j * 1000, content })) });
    await memory.flush({ session_id: session });
    messages += c.turns.length;
    if (i % 500 === 499) process.stderr.write(`  filling: ${memory.stats().records} records, ${messages} messages, ${Math.round((messages / (performance.now() - t0)) * 1000)} messages/s\n`);
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
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
  return { messages, ms, cpuMs, texts: listed };
}

function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return Math.round(process.memoryUsage().rss / 2 ** 20);
}

function oramaIndex(texts: { text: string; vector: Float32Array }[], fair: boolean): { db: AnyOrama; ms: number } {
  const db = create({
    schema: { text: 'string', embedding: `vector[${embedder.dim}]` } as const,
    ...(fair ? { components: { tokenizer: { stemming: true, stemmer, stopWords: stopwords } } } : {}),
  }) as AnyOrama;
  const t0 = performance.now();
  insertMultiple(db, texts.map((t) => ({ text: t.text, embedding: Array.from(t.vector) })) as never, 1000);
  return { db, ms: performance.now() - t0 };
}

function oramaQuery(db: AnyOrama, method: SearchMethod, query: string, vector: number[], limit: number) {
  const v = { value: vector, property: 'embedding' };
  if (method === 'keyword') return oramaSearch(db, { term: query, properties: ['text'], limit });
  if (method === 'vector') return oramaSearch(db, { mode: 'vector', vector: v, similarity: 0.1, limit } as never);
  return oramaSearch(db, { mode: 'hybrid', term: query, vector: v, similarity: 0.1, limit } as never);
}

const rows: Row[] = [];
for (const size of sizes) {
  const rssBefore = rssMb();
  const memory = await createMemory({ embedder: cachedEmbedder });
  const filled = await fill(memory, size);
  // The partition's indexes are built by its first search: that search is the index side of ingest.
  const t0 = performance.now();
  await memory.search({ user_id: 'user', query: queries[0]!, method: 'keyword', top_k: 10 });
  const indexBuild = performance.now() - t0;
  const rssEngram = rssMb();
  const fair = oramaIndex(filled.texts, true);
  const defaults = oramaIndex(filled.texts, false);
  const rssOrama = rssMb();

  const search: Row['search'] = {};
  for (const method of METHODS) {
    const samples: Record<Column, number[]> = { engram: [], fair: [], defaults: [] };
    // Untimed: every column answers a few other questions first, so a row does not time the
    // first calls of a column's code while the JIT compiles it (Engram's search path is far longer
    // than Orama's; `--warmup 0` shows the cold figures). Other questions, so that no column has
    // seen a timed question before.
    for (const query of warmups) {
      await memory.search({ user_id: 'user', query, method, top_k: 10 });
      if (method === 'agentic') continue;
      const vector = Array.from(queryVectors.get(query)!);
      oramaQuery(fair.db, method, query, vector, oramaLimit);
      oramaQuery(defaults.db, method, query, vector, 10);
    }
    // Interleaved per question, so load from other processes falls on every column alike.
    for (const query of queries) {
      await time(samples.engram, () => memory.search({ user_id: 'user', query, method, top_k: 10 }));
      if (method === 'agentic') continue; // plain Orama has no multi-round search
      const vector = Array.from(queryVectors.get(query)!);
      await time(samples.fair, () => oramaQuery(fair.db, method, query, vector, oramaLimit));
      await time(samples.defaults, () => oramaQuery(defaults.db, method, query, vector, 10));
    }
    search[method] = Object.fromEntries(Object.entries(samples).filter(([, s]) => s.length).map(([c, s]) => [c, summarize(s)]));
  }
  rows.push({
    size,
    records: memory.stats().records,
    ingest: {
      messages: filled.messages,
      messages_per_s: (filled.messages / filled.ms) * 1000,
      messages_per_cpu_s: (filled.messages / filled.cpuMs) * 1000,
      index_build_ms: indexBuild,
      orama_fair_insert_ms: fair.ms,
      orama_defaults_insert_ms: defaults.ms,
    },
    rss_mb: { before: rssBefore, after_engram_load: rssEngram, after_orama_load: rssOrama },
    search,
  });
  await memory.close();
}

if (values.json) {
  console.log(JSON.stringify({ embedder: embedder.id, queries: queries.length, warmup_queries: warmups.length, orama_limit: oramaLimit, query_embedding: summarize(embedSamples), first_extraction_ms: warmUpMs, rows }));
} else {
  const f = (x: number | undefined) => (x === undefined ? '-' : x < 10 ? x.toFixed(2) : x.toFixed(1)).padStart(6);
  const ratio = (a: Latency | undefined, b: Latency | undefined) => (a && b ? (a.p50 / b.p50).toFixed(2) : '-').padStart(6);
  const e = summarize(embedSamples);
  console.log(`Engram vs plain Orama, ${queries.length} LongMemEval questions (after ${warmups.length} untimed others per method and column), embedder ${embedder.id}, top_k 10, fair Orama limit ${oramaLimit} (ms; p50 / p95)`);
  console.log(`query embedding (apart from the rows below): p50 ${e.p50.toFixed(2)} ms, p95 ${e.p95.toFixed(2)} ms`);
  console.log('records  method    Engram p50/p95   Orama fair p50/p95   Orama defaults p50/p95   Engram÷fair  Engram÷defaults');
  for (const row of rows) {
    for (const [method, s] of Object.entries(row.search)) {
      const col = (l: Latency | undefined) => `${f(l?.p50)} / ${f(l?.p95)}`;
      console.log(`${String(row.records).padStart(7)}  ${method.padEnd(8)} ${col(s.engram)}    ${col(s.fair)}       ${col(s.defaults)}          ${ratio(s.engram, s.fair)}       ${ratio(s.engram, s.defaults)}`);
    }
    const i = row.ingest;
    console.log(
      `${String(row.records).padStart(7)}  ingest   ${i.messages} messages, ${Math.round(i.messages_per_s)} messages/s (${Math.round(i.messages_per_cpu_s)} per CPU-second) through the write path after the first extraction's model load (${Math.round(warmUpMs)} ms, once per process); index build ${i.index_build_ms.toFixed(0)} ms ` +
        `(Orama insert: fair ${i.orama_fair_insert_ms.toFixed(0)} ms, defaults ${i.orama_defaults_insert_ms.toFixed(0)} ms); RSS ${row.rss_mb.before} MB before (the dataset), +${row.rss_mb.after_engram_load - row.rss_mb.before} MB after Engram's load, +${row.rss_mb.after_orama_load - row.rss_mb.after_engram_load} MB more with both Orama indexes`,
    );
  }
}
