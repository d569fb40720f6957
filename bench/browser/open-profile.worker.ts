/// <reference lib="webworker" />
/**
 * Times each step of opening a memory separately, inside a worker like the real host: reading the
 * model (Cache API), checking and parsing it, building the tokeniser, reading every item and the
 * index snapshots from IndexedDB, building the engine's state, restoring the partition's indexes
 * from its snapshot (or building them from the records when there is none yet), and for
 * comparison building the keyword index from the records (tokenising and indexing), then the
 * first searches of a whole open.
 */
import { createMemory } from '../../src/engine.js';
import { KeywordIndex } from '../../src/index/keyword-index.js';
import { tokenize } from '../../src/index/tokenizer.js';
import { readSnapshots } from '../../src/index/snapshot-keeper.js';
import { MemoryState } from '../../src/memory-state.js';
import { cachedModelFetch } from '../../src/models/model-cache.js';
import { crc32, parseStaticModel } from '../../src/models/static-model.js';
import { createStaticEmbedder } from '../../src/models/static-embedder.js';
import { createStaticTokenizer } from '../../src/models/static-tokenizer.js';
import { searchText, type MemoryRecord } from '../../src/records.js';
import { createIndexedDbStore } from '../../src/store/indexeddb-store.js';

self.onmessage = async (event: MessageEvent<{ name: string; modelUrl: string; query: string; user: string }>) => {
  const steps: Record<string, number> = {};
  const time = async <T>(step: string, work: () => T | Promise<T>): Promise<T> => {
    const start = performance.now();
    const value = await work();
    steps[step] = Math.round((performance.now() - start) * 10) / 10;
    return value;
  };
  try {
    const { name, modelUrl, query, user } = event.data;
    const bytes = await time('model: read from Cache API', async () => new Uint8Array(await (await cachedModelFetch('engram-models')(modelUrl)).arrayBuffer()));
    await time('model: CRC-32 check', () => crc32(bytes.subarray(16)));
    const model = await time('model: parse (no CRC)', () => parseStaticModel(bytes, { verifyChecksum: false }));
    const tokenizer = await time('model: build tokeniser', () => createStaticTokenizer(model.words));
    const embedder = createStaticEmbedder(model, tokenizer);
    const store = await time('IndexedDB: open', () => createIndexedDbStore(name, { prefetch: false }));
    const items = await time('IndexedDB: read every item (packs)', () => store.loadAll());
    const stored = await time('IndexedDB: read the index snapshots', () => readSnapshots(store));
    const state = await time('engine state: group into partitions', () => new MemoryState(items));
    const generation = store.snapshots!.generation();
    const partition = [...state.partitions.values()][0]!;
    const snapshot = stored.get([...state.partitions.keys()][0]!);
    if (snapshot?.generation === generation) {
      state.offerSnapshots(stored, generation);
      await time('keyword index: restore from snapshot (+ vectors)', () => partition.indexes());
      if (partition.built !== 'snapshot') throw new Error('the stored snapshot was refused');
    } else {
      await time('keyword index: build from records (no snapshot yet)', () => partition.indexes());
    }
    const encoded = await time('keyword index: encode its snapshot', () => partition.snapshotAt(generation));
    steps['keyword snapshot size (KiB)'] = Math.round((encoded?.length ?? 0) / 1024);
    const records = items.filter((i): i is MemoryRecord => i.kind !== 'message');
    const texts = records.map(searchText);
    await time('keyword index: tokenise every record', () => texts.forEach((t) => tokenize(t)));
    await time('keyword index: tokenise + Orama insert', () => new KeywordIndex().add(records.map((r, i) => ({ id: r.id, kind: r.kind, text: texts[i]! }))));
    await store.close();
    const again = await createIndexedDbStore(name);
    const memory = await time('createMemory (getAll + state)', () => createMemory({ store: again, embedder }));
    await time('first hybrid search (builds the indexes)', () => memory.search({ user_id: user, query, method: 'hybrid', top_k: 10 }));
    await time('second hybrid search', () => memory.search({ user_id: user, query: 'what did I say about the weekend trip', method: 'hybrid', top_k: 10 }));
    await time('keyword search', () => memory.search({ user_id: user, query: 'airport shuttle', method: 'keyword', top_k: 10 }));
    await time('vector search', () => memory.search({ user_id: user, query: 'airport shuttle', method: 'vector', top_k: 10 }));
    await memory.close();
    self.postMessage({ ok: true, steps, items: items.length });
  } catch (error) {
    self.postMessage({ ok: false, error: String((error as Error)?.stack ?? error), steps });
  }
};
