/**
 * The in-page half of `bench/browser-cold-open.ts`. `seed` writes the records once (straight
 * through the IndexedDB store, in batches) and the Orama snapshot of the same records; a page
 * loaded with `?run=engram` or `?run=orama` then opens the memory from cold and answers one query,
 * timing everything from the navigation's start (performance.now() is relative to it).
 */
import { createMemoryClient } from '../../src/client.js';
import { cachedModelFetch } from '../../src/models/model-cache.js';
import { loadStaticModelFromUrl } from '../../src/models/load-static-model.js';
import { createStaticEmbedder } from '../../src/models/static-embedder.js';
import type { KnowledgeRecord } from '../../src/records.js';
import { createIndexedDbStore, deleteIndexedDbMemory, indexedDbName } from '../../src/store/indexeddb-store.js';
import { writeSnapshot } from './orama-snapshot.js';

export interface SeedResult {
  records: number;
  /** Bytes of text (UTF-16) and vectors (the data itself, as JavaScript holds it). */
  rawBytes: number;
  /** Bytes of text (UTF-8) and float32 vectors: the smallest plain form of the data. */
  rawUtf8Bytes: number;
  /** Bytes the browser reports for the origin's storage grown by writing the records (IndexedDB), or null. */
  storedBytes: number | null;
  /** The origin's usage at the end of seeding (Orama's snapshot included), to measure what the first open adds. */
  usageAfterSeed: number | null;
  /** Length of Orama's JSON snapshot (0 when not built). */
  snapshotChars: number;
  seedMs: number;
  snapshotMs: number;
}

export interface ColdResult {
  ok: boolean;
  error?: string;
  /** Milliseconds since navigation start. */
  scriptStart: number;
  ready?: number;
  firstAnswer?: number;
  secondAnswer?: number;
  /** Milliseconds per warm hybrid query after the first answers. */
  warm?: number[];
  hits?: number;
  /** Worker-side marks, milliseconds since navigation start. */
  worker?: Record<string, number>;
}

const MODEL_URL = new URL('/models/static-en/model.bin', location.href).href;
const USER = 'bench-user';
const now = () => Math.round(performance.now() * 10) / 10;

/** Runs one seeding step, naming it in the error when it fails (IndexedDB's errors name no step). */
async function step<T>(label: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const e = error as { name?: string; message?: string };
    throw new Error(`seed step "${label}" failed: ${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`);
  }
}

const usage = async () => (await navigator.storage?.estimate?.())?.usage ?? null;

/** Questions for the warm queries after an open (the same every run). */
const WARM_QUERIES = [
  'what did I say about the weekend trip', 'which restaurant did I like', 'when is my sister visiting', 'how much did the new laptop cost',
  'what book was I reading', 'where did I go hiking', 'what is my gym routine', 'who recommended the podcast', 'what did the doctor say',
  'which flight did I book', 'what was the recipe for dinner', 'when does the project deadline fall', 'what movie did we watch',
  'how is the garden doing', 'what did I buy for the birthday', 'which train do I take to work', 'what is my budget for the month',
  'where is the meeting next week', 'what course am I taking', 'what plants did I buy',
];

async function seed(name: string, texts: string[], withSnapshot: boolean): Promise<SeedResult> {
  const start = performance.now();
  await step('delete', () => deleteIndexedDbMemory(name));
  const model = await step('model', () => loadStaticModelFromUrl(MODEL_URL, { fetch: cachedModelFetch('engram-models') }));
  const embedder = createStaticEmbedder(model);
  const vectors = await step('embed', () => embedder.embed(texts));
  const t = Date.UTC(2026, 0, 1);
  const records: KnowledgeRecord[] = texts.map((text, i) => ({
    app_id: 'default', project_id: 'default', owner_type: 'user', owner_id: USER,
    id: `kn_bench_${i}`, kind: 'knowledge', session_id: null, timestamp: t + i * 60_000, created_at: t + i * 60_000, updated_at: t + i * 60_000,
    sender_ids: [USER], source_message_ids: [], parent_type: null, parent_id: null,
    vector: vectors[i]!, vector_model: embedder.id,
    title: text.split(/\s+/).slice(0, 8).join(' '), content: text, source: null,
  }));
  const before = await usage();
  const store = await step('open', () => createIndexedDbStore(name, { prefetch: false }));
  for (let i = 0; i < records.length; i += 1000) await step(`commit ${i}`, () => store.commit({ put: records.slice(i, i + 1000), delete: [] }));
  await step('meta', () => store.setMeta('embedder', { id: embedder.id, dim: embedder.dim }));
  await store.close();
  const after = await usage();
  const storedBytes = before === null || after === null ? null : after - before;
  const seeded = performance.now();
  const rawBytes = records.reduce((sum, r) => sum + (r.title.length + r.content.length) * 2 + r.vector!.byteLength, 0);
  const utf8 = new TextEncoder();
  const rawUtf8Bytes = records.reduce((sum, r) => sum + utf8.encode(r.title).byteLength + utf8.encode(r.content).byteLength + r.vector!.byteLength, 0);
  const snapshotChars = withSnapshot
    ? await step('orama snapshot', () => writeSnapshot(name, embedder.dim, records.map((r, i) => ({ id: r.id, text: `${r.title}\n${r.content}`, embedding: Array.from(vectors[i]!) }))))
    : 0;
  return { records: records.length, rawBytes, rawUtf8Bytes, storedBytes, usageAfterSeed: await usage(), snapshotChars, seedMs: Math.round(seeded - start), snapshotMs: Math.round(performance.now() - seeded) };
}

async function runEngram(name: string, query: string, cache: boolean): Promise<ColdResult> {
  const result: ColdResult = { ok: false, scriptStart: now() };
  const memory = await createMemoryClient({ name, modelUrl: MODEL_URL, modelCache: cache ? 'engram-models' : false });
  result.ready = now();
  const first = await memory.search({ user_id: USER, query, method: 'hybrid', top_k: 10 });
  result.firstAnswer = now();
  result.hits = first.data.episodes.length;
  await memory.search({ user_id: USER, query: WARM_QUERIES[0]!, method: 'hybrid', top_k: 10 });
  result.secondAnswer = now();
  result.warm = [];
  for (const q of WARM_QUERIES) {
    const t0 = performance.now();
    await memory.search({ user_id: USER, query: q, method: 'hybrid', top_k: 10 });
    result.warm.push(performance.now() - t0);
  }
  const status = await memory.status();
  // Worker marks are relative to the worker's own start; shift them onto the page's clock.
  const shift = status.timeOrigin - performance.timeOrigin;
  // `created`: the worker's own time origin (its thread and global scope made), before its modules load.
  result.worker = { created: Math.round(shift * 10) / 10, ...Object.fromEntries(Object.entries(status.marks).map(([k, v]) => [k, Math.round((v + shift) * 10) / 10])) };
  await memory.close();
  result.ok = true;
  return result;
}

async function runOrama(name: string, query: string): Promise<ColdResult> {
  const result: ColdResult = { ok: false, scriptStart: now() };
  const worker = new Worker(new URL('./orama-snapshot.worker.ts', import.meta.url), { type: 'module' });
  const answer = await new Promise<{ ok: boolean; error?: string; marks: Record<string, number>; hits?: number; timeOrigin?: number }>((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.postMessage({ key: name, modelUrl: MODEL_URL, query, dim: 128 });
  });
  result.firstAnswer = now();
  worker.terminate();
  if (!answer.ok) return { ...result, error: answer.error ?? 'failed' };
  const shift = (answer.timeOrigin ?? performance.timeOrigin) - performance.timeOrigin;
  result.worker = Object.fromEntries(Object.entries(answer.marks).map(([k, v]) => [k, Math.round((v + shift) * 10) / 10]));
  result.hits = answer.hits ?? 0;
  result.ok = true;
  return result;
}

/** Step-by-step timings of an open, each step on its own (see open-profile.worker.ts). */
async function profile(name: string, query: string): Promise<{ ok: boolean; error?: string; steps: Record<string, number>; items?: number }> {
  const worker = new Worker(new URL('./open-profile.worker.ts', import.meta.url), { type: 'module' });
  try {
    return await new Promise((resolve) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.postMessage({ name, modelUrl: MODEL_URL, query, user: USER });
    });
  } finally {
    worker.terminate();
  }
}

/** The values the memory's database holds, by object store: their payload bytes (pack bodies, vectors, snapshots). */
async function storedValueBytes(name: string): Promise<{ packs: number; packCount: number; snapshots: number }> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(indexedDbName(name));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const all = (store: string) => new Promise<unknown[]>((resolve, reject) => {
    const request = db.transaction(store).objectStore(store).getAll();
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const packs = (await all('packs')) as { body: Uint8Array; vectors: Float32Array }[];
  const snapshots = (await all('snapshots')) as { bytes: Uint8Array }[];
  db.close();
  return {
    packs: packs.reduce((n, p) => n + p.body.byteLength + p.vectors.byteLength, 0),
    packCount: packs.length,
    snapshots: snapshots.reduce((n, s) => n + s.bytes.byteLength, 0),
  };
}

const params = new URLSearchParams(location.search);
const run = params.get('run');
const name = params.get('name') ?? 'bench';
const query = params.get('q') ?? 'how long does it take to get to the airport';
const g = globalThis as unknown as { coldOpen: { seed: typeof seed; profile: typeof profile; usage: typeof usage; storedValueBytes: typeof storedValueBytes }; coldResult?: ColdResult };
g.coldOpen = { seed, profile, usage, storedValueBytes };
if (run === 'engram' || run === 'engram-nocache' || run === 'orama') {
  const started = now();
  (run === 'orama' ? runOrama(name, query) : runEngram(name, query, run === 'engram'))
    .then((r) => (g.coldResult = r))
    .catch((error: unknown) => (g.coldResult = { ok: false, scriptStart: started, error: String((error as Error)?.stack ?? error) }));
}
