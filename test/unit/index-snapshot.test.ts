/**
 * Keyword index snapshots: a restored index answers exactly as the one it was made from (before
 * and after later writes), a damaged, stale or mismatched snapshot is refused and its partition
 * rebuilt from the records, and over the IndexedDB store (fake-indexeddb here, Chromium in
 * test/browser/index-snapshot.test.ts) the generation stamp keeps a snapshot from outliving a commit.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { Partition } from '../../src/index/partition.js';
import { KeywordIndex, type KeywordDoc } from '../../src/index/keyword-index.js';
import { keepSnapshots, readSnapshots } from '../../src/index/snapshot-keeper.js';
import { SnapshotRejected } from '../../src/index/snapshot-codec.js';
import { decodeKeywordSnapshot, encodeKeywordSnapshot } from '../../src/index/snapshot.js';
import { MemoryState } from '../../src/memory-state.js';
import { partitionKey, type AtomicFactRecord, type StoredItem } from '../../src/records.js';
import { createIndexedDbStore, deleteIndexedDbMemory, indexedDbName, PACK_ITEMS } from '../../src/store/indexeddb-store.js';
import { fact } from '../support/storage-contract-cases.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';
import { createMemory, type Memory } from '../../src/engine.js';

const WORDS = ['airport', 'shuttle', 'dinner', 'sister', 'garden', 'budget', 'recipe', 'train', 'doctor', 'weekend', 'movie', 'gym', '東京', 'café'];
const QUERIES = ['airport shuttle', 'dinner with my sister', 'garden budget weekend', 'train to the doctor', '東京 café', 'nothing matches zzz'];

function docs(n: number, prefix = 'd'): KeywordDoc[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    kind: i % 4 === 0 ? 'episode' : 'atomic_fact',
    text: Array.from({ length: 3 + (i % 7) }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' '),
  }));
}

const answers = (index: KeywordIndex) => QUERIES.flatMap((q) => [index.search(q, null), index.search(q, ['episode']), index.search(q, null, 3)]);

function sourceOf(list: readonly KeywordDoc[]) {
  const byId = new Map(list.map((d) => [d.id, d]));
  return (id: string) => byId.get(id);
}

describe('keyword snapshot codec', () => {
  it('restores an index that answers exactly as the original, before and after later writes', () => {
    const all = docs(300);
    const original = new KeywordIndex();
    original.add(all);
    original.remove(['d5', 'd6']);
    const live = all.filter((d) => d.id !== 'd5' && d.id !== 'd6');
    const bytes = encodeKeywordSnapshot(original, 4);
    expect(bytes).not.toBeNull();
    const restored = decodeKeywordSnapshot(bytes!, 4, sourceOf(live), live.length);
    expect(restored.size).toBe(original.size);
    expect(answers(restored)).toEqual(answers(original));
    expect(answers(original).some((hits) => hits.length > 0)).toBe(true);
    // A term's share of the documents (what agentic expansion reads) survives the snapshot too.
    const holding = (term: string) => live.filter((d) => d.text.split(' ').includes(term)).length / live.length;
    for (const [word, term] of [['airport', 'airport'], ['recipe', 'recip'], ['東京', '東京']] as const) {
      expect(original.documentShare(term)).toBeCloseTo(holding(word), 10);
      expect(restored.documentShare(term)).toBeCloseTo(holding(word), 10);
    }
    expect(original.documentShare('zzz')).toBe(0);

    // The same writes on both: a removed snapshot document, a new one, one re-added under an old id.
    const later = docs(20, 'n');
    for (const index of [original, restored]) {
      index.add(later);
      index.remove(['d10', 'd11', 'n3', 'd299']);
      index.add([{ id: 'd10', kind: 'atomic_fact', text: 'airport shuttle dinner' }]);
    }
    expect(answers(restored)).toEqual(answers(original));

    // A snapshot of the restored index restores the same answers again.
    const now = [...live.filter((d) => !['d10', 'd11', 'd299'].includes(d.id)), ...later.filter((d) => d.id !== 'n3'), { id: 'd10', kind: 'atomic_fact' as const, text: 'airport shuttle dinner' }];
    const again = decodeKeywordSnapshot(encodeKeywordSnapshot(restored, 5)!, 5, sourceOf(now), now.length);
    expect(answers(again)).toEqual(answers(original));
  });

  it('refuses a damaged, cut, stale or mismatched snapshot, naming why', () => {
    const all = docs(50);
    const index = new KeywordIndex();
    index.add(all);
    const bytes = encodeKeywordSnapshot(index, 9)!;
    const reason = (b: Uint8Array, generation = 9, list = all, expected = list.length) => {
      try {
        decodeKeywordSnapshot(b, generation, sourceOf(list), expected);
        return 'accepted';
      } catch (error) {
        return error instanceof SnapshotRejected ? error.reason : `other: ${String(error)}`;
      }
    };
    expect(reason(bytes)).toBe('accepted');
    for (const at of [30, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const flipped = bytes.slice();
      flipped[at] = flipped[at]! ^ 0x5a;
      expect(reason(flipped)).toBe('checksum');
    }
    expect(reason(bytes.subarray(0, bytes.length - 3))).toBe('frame');
    expect(reason(bytes.subarray(0, 10))).toBe('frame');
    const magic = bytes.slice();
    magic[0] = 0;
    expect(reason(magic)).toBe('frame');
    const version = bytes.slice();
    version[4] = 99;
    expect(reason(version)).toBe('version');
    expect(reason(bytes, 10)).toBe('generation');
    // Records that are not the snapshot's: one gone, one of another kind, one more than it holds.
    expect(reason(bytes, 9, all.slice(1))).toBe('content');
    expect(reason(bytes, 9, all.map((d, i) => (i === 3 ? { ...d, kind: d.kind === 'episode' ? 'atomic_fact' : 'episode' } : d)))).toBe('content');
    expect(reason(bytes, 9, all, all.length + 1)).toBe('content');
  });
});

function record(i: number, owner = 'u1'): AtomicFactRecord {
  const r = fact(`f${i}`, `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]} note ${i}`);
  return { ...r, owner_id: owner };
}

describe('partition snapshots', () => {
  it('a partition restores an offered snapshot, and rebuilds from its records when it is damaged or a record changed', () => {
    const records = Array.from({ length: 40 }, (_, i) => record(i));
    const built = new Partition();
    for (const r of records) built.put(r);
    const expected = QUERIES.map((q) => built.indexes().keyword.search(q, null));
    expect(built.built).toBe('records');
    const bytes = built.snapshotAt(3)!;

    const restored = new Partition();
    for (const r of records) restored.put(r);
    restored.offerSnapshot(bytes, 3);
    expect(QUERIES.map((q) => restored.indexes().keyword.search(q, null))).toEqual(expected);
    expect(restored.built).toBe('snapshot');

    const damaged = new Partition();
    for (const r of records) damaged.put(r);
    const flipped = bytes.slice();
    flipped[flipped.length - 5] = flipped[flipped.length - 5]! ^ 1;
    damaged.offerSnapshot(flipped, 3);
    expect(QUERIES.map((q) => damaged.indexes().keyword.search(q, null))).toEqual(expected);
    expect(damaged.built).toBe('records');

    const changed = new Partition();
    for (const r of records) changed.put(r);
    changed.offerSnapshot(bytes, 3);
    changed.put(record(99));
    changed.indexes();
    expect(changed.built).toBe('records');
  });
});

describe('snapshots over the IndexedDB store (fake-indexeddb)', () => {
  let counter = 0;

  /** `parse`: the largest snapshot read ahead, as an open that warms its largest partition reads it. */
  async function open(name: string, parse = false) {
    const store = await createIndexedDbStore(name);
    const stored = await readSnapshots(store, { parse });
    const items = await store.loadAll();
    const state = new MemoryState(items);
    const keeper = keepSnapshots(state, store.snapshots!, stored, { delayMs: 60_000 });
    return { store, state, keeper, stored };
  }

  const partitionOf = (state: MemoryState) => state.partitions.get(partitionKey(record(0)))!;

  it('reads ahead only the largest partition\'s snapshot; the others are parsed by their first search', async () => {
    const name = `snap-${++counter}`;
    const records = [...Array.from({ length: 30 }, (_, i) => record(i)), ...Array.from({ length: 5 }, (_, i) => record(100 + i, 'u2'))];
    const a = await open(name);
    await a.store.commit({ put: records, delete: [] });
    a.state.apply({ put: records, delete: [] });
    for (const partition of a.state.partitions.values()) partition.indexes();
    await a.keeper.close();
    await a.store.close();

    const b = await open(name, true);
    const small = partitionKey(record(100, 'u2'));
    expect(b.stored.size).toBe(2);
    expect(b.stored.get(partitionKey(record(0)))?.parsed).toBeDefined();
    expect(b.stored.get(small)?.parsed).toBeUndefined();
    expect(b.keeper.offered).toBe(2);
    expect(b.state.partitions.get(small)!.indexes().keyword.search('note', null).length).toBe(5);
    expect(b.state.partitions.get(small)!.built).toBe('snapshot');
    await b.keeper.close();
    await b.store.close();
  });

  it('a snapshot is used after a reopen, refused after a commit made without it, and rebuilt when damaged', async () => {
    const name = `snap-${++counter}`;
    const records = Array.from({ length: 30 }, (_, i) => record(i));
    const a = await open(name);
    expect(a.keeper.offered).toBe(0);
    await a.store.commit({ put: records, delete: [] });
    a.state.apply({ put: records, delete: [] });
    const expected = QUERIES.map((q) => partitionOf(a.state).indexes().keyword.search(q, null));
    expect(partitionOf(a.state).built).toBe('records');
    await a.keeper.close();
    const stamped = a.store.snapshots!.generation();
    await a.store.close();

    const b = await open(name, true);
    expect(b.stored.get(partitionKey(record(0)))?.parsed).toBeDefined();
    expect(b.store.snapshots!.generation()).toBe(stamped);
    expect(b.keeper.offered).toBe(1);
    expect(QUERIES.map((q) => partitionOf(b.state).indexes().keyword.search(q, null))).toEqual(expected);
    expect(partitionOf(b.state).built).toBe('snapshot');
    // A commit that this state never sees (another writer, a crash before saving) moves the generation on.
    await b.keeper.close();
    await b.store.commit({ put: [record(100)], delete: [] });
    expect(b.store.snapshots!.generation()).toBe(stamped + 1);
    await b.store.close();

    const c = await open(name);
    expect(c.keeper.offered).toBe(0);
    partitionOf(c.state).indexes();
    expect(partitionOf(c.state).built).toBe('records');
    await c.keeper.close();
    await c.store.close();

    // Damage the stored snapshot's bytes where they lie.
    const raw = await rawDb(name);
    const tx = raw.transaction('snapshots', 'readwrite');
    const key = partitionKey(record(0));
    const value = await request<{ generation: number; bytes: Uint8Array }>(tx.objectStore('snapshots').get(key));
    value.bytes[value.bytes.length - 2] = value.bytes[value.bytes.length - 2]! ^ 0xff;
    await request(tx.objectStore('snapshots').put(value, key));
    raw.close();

    const d = await open(name, true);
    expect(d.stored.get(partitionKey(record(0)))?.parsed).toBeUndefined(); // refused when read ahead, refused again when offered
    expect(d.keeper.offered).toBe(1);
    const answers = QUERIES.map((q) => partitionOf(d.state).indexes().keyword.search(q, null));
    expect(partitionOf(d.state).built).toBe('records');
    const e = new Partition();
    for (const item of await d.store.loadAll()) if (item.kind === 'atomic_fact') e.put(item);
    expect(answers).toEqual(QUERIES.map((q) => e.indexes().keyword.search(q, null)));
    await d.keeper.close();
    await d.store.close();
    await deleteIndexedDbMemory(name);
  });

  it('the shelf refuses snapshots stamped with a generation a commit has passed', async () => {
    const name = `shelf-${++counter}`;
    const store = await createIndexedDbStore(name);
    const shelf = store.snapshots!;
    expect(shelf.generation()).toBe(0);
    await store.commit({ put: [record(1)], delete: [] });
    await store.commit({ put: [], delete: [] });
    expect(shelf.generation()).toBe(1);
    expect(await shelf.write(0, new Map([['k', new Uint8Array([1])]]))).toBe(false);
    expect(await shelf.read()).toEqual(new Map());
    expect(await shelf.write(1, new Map([['k', new Uint8Array([1, 2])]]))).toBe(true);
    expect(await shelf.read()).toEqual(new Map([['k', { generation: 1, bytes: new Uint8Array([1, 2]) }]]));
    await store.close();
    await deleteIndexedDbMemory(name);
  });

  it('packs items, replaces and deletes inside packs, and reads a database of one value per item', async () => {
    const name = `packs-${++counter}`;
    const store = await createIndexedDbStore(name);
    const many = Array.from({ length: PACK_ITEMS * 2 + 10 }, (_, i) => record(i));
    await store.commit({ put: many, delete: [] });
    await store.commit({ put: [record(3, 'u2')], delete: ['f4', 'f300'] });
    await store.close();
    const raw = await rawDb(name);
    expect(await request<number>(raw.transaction('packs').objectStore('packs').count())).toBe(3);
    raw.close();
    const again = await createIndexedDbStore(name);
    const ids = (await again.loadAll()).map((i) => i.id).sort();
    expect(ids.length).toBe(many.length - 2);
    expect(ids).not.toContain('f4');
    expect((await again.loadAll()).find((i) => i.id === 'f3')).toMatchObject({ owner_id: 'u2' });
    await again.close();
    await deleteIndexedDbMemory(name);

    // Version 1 kept one value per item in `items`: opening it packs them in the upgrade.
    const legacy = `legacy-${++counter}`;
    const old = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(indexedDbName(legacy), 1);
      req.onupgradeneeded = () => {
        req.result.createObjectStore('items', { keyPath: 'id' });
        req.result.createObjectStore('meta');
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const tx = old.transaction('items', 'readwrite');
    const legacyItems: StoredItem[] = [record(1), record(2)];
    for (const item of legacyItems) tx.objectStore('items').put(item);
    await new Promise((resolve) => (tx.oncomplete = resolve));
    old.close();
    const upgraded = await createIndexedDbStore(legacy);
    const loaded = (await upgraded.loadAll()).sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(loaded).toEqual(legacyItems);
    await upgraded.commit({ put: [], delete: ['f1'] });
    expect((await upgraded.loadAll()).map((i) => i.id)).toEqual(['f2']);
    await upgraded.close();
    await deleteIndexedDbMemory(legacy);
  });
});

describe('an engine opened while its model still loads (warm-up before the embedder)', () => {
  const later = <T>(value: T, ms = 30) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
  const QUESTIONS = ['airport shuttle', 'dinner with my sister', 'garden budget weekend'];
  const ask = (memory: Memory) => Promise.all(QUESTIONS.map(async (query) => (await memory.search({ user_id: 'u1', query, method: 'hybrid', top_k: 5 })).data.episodes.map((e) => e.id)));

  it('builds the indexes before the model is ready, keeps their snapshot, restores it next time, and answers the same', async () => {
    const name = `warm-${Date.now()}`;
    const writer = await createMemory({ store: await createIndexedDbStore(name), embedder: hashEmbedderDouble() });
    for (let i = 0; i < 12; i++) await writer.upsertKnowledge({ user_id: 'u1', title: `Note ${i}`, content: `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]} note ${i}` });
    const expected = await ask(writer);
    await writer.close();
    // The writer's search left a snapshot: drop it, so that the next open builds from the records.
    const raw = await rawDb(name);
    await request(raw.transaction('snapshots', 'readwrite').objectStore('snapshots').clear());
    raw.close();

    // The model arrives 30 ms after the records: the partition is built from its records meanwhile.
    const first = await createMemory({ store: await createIndexedDbStore(name), embedder: later(hashEmbedderDouble()), warmIndexes: true });
    expect(first.stats().indexed_partitions).toBe(1);
    expect(await ask(first)).toEqual(expected);
    await first.close(); // the snapshot of an index built before the keeper started is kept too

    const store = await createIndexedDbStore(name);
    const stored = await readSnapshots(store);
    await store.loadAll(); // the store knows its generation after a full read
    expect([...stored.values()].map((s) => s.generation)).toEqual([store.snapshots!.generation()]);
    const second = await createMemory({ store, embedder: later(hashEmbedderDouble()), warmIndexes: true });
    expect(second.stats().indexed_partitions).toBe(1);
    expect(await ask(second)).toEqual(expected);
    await second.close();
    await deleteIndexedDbMemory(name);
  });

  it('re-embeds with a changed model once it is known, and searches the new vectors', async () => {
    const name = `warm-model-${Date.now()}`;
    const writer = await createMemory({ store: await createIndexedDbStore(name), embedder: hashEmbedderDouble(64) });
    for (let i = 0; i < 6; i++) await writer.upsertKnowledge({ user_id: 'u1', title: `Note ${i}`, content: `${WORDS[i]} ${WORDS[i + 3]} note ${i}` });
    await writer.close();
    const embedder = hashEmbedderDouble(128);
    const reopened = await createMemory({ store: await createIndexedDbStore(name), embedder: later(embedder), warmIndexes: true });
    const fresh = await createMemory({ embedder });
    for (let i = 0; i < 6; i++) await fresh.upsertKnowledge({ user_id: 'u1', title: `Note ${i}`, content: `${WORDS[i]} ${WORDS[i + 3]} note ${i}` });
    const scores = async (memory: Memory) => (await memory.search({ user_id: 'u1', query: 'airport note', method: 'vector', top_k: 6 })).data.episodes.map((e) => e.score);
    expect(await scores(reopened)).toEqual(await scores(fresh));
    expect((await reopened.export()).items.filter((i) => i.kind === 'knowledge').every((i) => (i as { vector_model?: string }).vector_model === embedder.id)).toBe(true);
    await reopened.close();
    await fresh.close();
    await deleteIndexedDbMemory(name);
  });
});

function rawDb(name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(indexedDbName(name));
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function request<T>(req: IDBRequest): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result as T);
    req.onerror = () => reject(req.error);
  });
}
