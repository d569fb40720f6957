/**
 * Index snapshots inside Chromium, over the real IndexedDB store: a memory written and searched
 * through `createMemory`, then looked at with the same parts the engine opens it with (store,
 * state, snapshot keeper), to see whether each partition's keyword index came from its snapshot
 * or from the records, after a clean close, after records written while a snapshot exists,
 * after a commit the snapshot never saw, and after its bytes were damaged where they lie.
 */
import { createMemory } from '../../../src/engine.js';
import { keepSnapshots, readSnapshots } from '../../../src/index/snapshot-keeper.js';
import { MemoryState } from '../../../src/memory-state.js';
import { partitionKey, type KnowledgeRecord } from '../../../src/records.js';
import { createIndexedDbStore, deleteIndexedDbMemory, indexedDbName } from '../../../src/store/indexeddb-store.js';
import { hashEmbedderDouble } from '../../support/hash-embedder.js';

export interface Look {
  offered: number;
  built: 'snapshot' | 'records' | null;
  /** Ids of the keyword hits for each probe query. */
  hits: string[][];
}

export interface SnapshotScenario {
  clean: Look;
  afterEngineWrite: Look;
  afterForeignCommit: Look;
  afterDamage: Look;
  /** Hybrid answers (ids, in order) at each engine open, and from a memory that never had a snapshot. */
  answers: { first: string[][]; reopened: string[][]; damaged: string[][]; control: string[][] };
}

const embedder = hashEmbedderDouble(32);
const USER = 'snapshot-user';
const WORDS = ['airport', 'shuttle', 'dinner', 'sister', 'garden', 'budget', 'recipe', 'train', 'doctor', 'weekend'];
const PROBES = ['airport shuttle', 'dinner with my sister', 'garden budget', 'zebra crossing'];
const scope = { app_id: 'default', project_id: 'default', owner_type: 'user' as const, owner_id: USER };

async function look(name: string): Promise<Look> {
  const store = await createIndexedDbStore(name);
  const state = new MemoryState(await store.loadAll());
  const keeper = keepSnapshots(state, store.snapshots!, await readSnapshots(store), { delayMs: 60_000 });
  const partition = state.partitions.get(partitionKey(scope))!;
  const { keyword } = partition.indexes();
  const out = { offered: keeper.offered, built: partition.built, hits: PROBES.map((q) => keyword.search(q, null).map((h) => h.id)) };
  // Closing the keeper writes what it rebuilt, as the engine's close does.
  await keeper.close();
  await store.close();
  return out;
}

async function withMemory<T>(name: string, work: (memory: Awaited<ReturnType<typeof createMemory>>) => Promise<T>): Promise<T> {
  const memory = await createMemory({ store: await createIndexedDbStore(name), embedder });
  try {
    return await work(memory);
  } finally {
    await memory.close();
  }
}

/** The ids each probe's hybrid search answers with, in order (the answers' timestamps differ between memories). */
/** When the notes (one a second) and the late record were written. */
const NOTES_FROM = Date.UTC(2026, 0, 5, 9);
const LATE_AT = NOTES_FROM + 3_600_000;

async function hybrid(memory: Awaited<ReturnType<typeof createMemory>>): Promise<string[][]> {
  const out: string[][] = [];
  for (const query of PROBES) {
    const { data } = await memory.search({ user_id: USER, query, method: 'hybrid', top_k: 10 });
    out.push([...JSON.stringify(data).matchAll(/"id":"([^"]*)"/g)].map((m) => m[1]!));
  }
  return out;
}

async function scenario(): Promise<SnapshotScenario> {
  const name = `snapshot-${Date.now()}`;
  const control = `${name}-control`;
  // Fixed timestamps: records of equal score go newest first, so notes stamped by the clock as
  // they are written would order ties by how many fell in one millisecond, which differs between
  // this memory and the control.
  const notes = Array.from({ length: 60 }, (_, i) => ({ id: `note-${i}`, title: `${WORDS[i % 10]} ${WORDS[(i * 3) % 10]}`, content: `About the ${WORDS[(i * 7) % 10]} and the ${WORDS[(i + 4) % 10]}, note ${i}.`, timestamp: NOTES_FROM + i * 1000 }));
  const first = await withMemory(name, async (memory) => {
    for (const n of notes) await memory.upsertKnowledge({ user_id: USER, ...n });
    return hybrid(memory);
  });
  const clean = await look(name);
  const reopened = await withMemory(name, async (memory) => {
    const answers = await hybrid(memory);
    // Written while a snapshot exists: the close keeps a snapshot that holds it.
    await memory.upsertKnowledge({ user_id: USER, id: 'late', title: 'zebra crossing', content: 'The zebra crossing by the airport.', timestamp: LATE_AT });
    return answers;
  });
  const afterEngineWrite = await look(name);

  // A commit the snapshot never saw (straight through the store, as another writer would).
  const store = await createIndexedDbStore(name);
  const items = await store.loadAll();
  const late = items.find((i) => i.id.endsWith('late')) as KnowledgeRecord;
  await store.commit({ put: [{ ...late, title: 'zebra crossing again', updated_at: late.updated_at + 1 }], delete: [] });
  await store.close();
  const afterForeignCommit = await look(name);

  await damageSnapshot(name);
  const afterDamage = await look(name);
  await damageSnapshot(name);
  const damaged = await withMemory(name, hybrid);

  const controlAnswers = await withMemory(control, async (memory) => {
    for (const n of notes) await memory.upsertKnowledge({ user_id: USER, ...n });
    await memory.upsertKnowledge({ user_id: USER, id: 'late', title: 'zebra crossing again', content: 'The zebra crossing by the airport.', timestamp: LATE_AT });
    return hybrid(memory);
  });
  await deleteIndexedDbMemory(name);
  await deleteIndexedDbMemory(control);
  return { clean, afterEngineWrite, afterForeignCommit, afterDamage, answers: { first, reopened, damaged, control: controlAnswers } };
}

/** Flips bytes in the middle of every stored snapshot, through the raw IndexedDB API. */
async function damageSnapshot(name: string): Promise<void> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(indexedDbName(name));
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const tx = db.transaction('snapshots', 'readwrite');
  const store = tx.objectStore('snapshots');
  const cursor = store.openCursor();
  cursor.onsuccess = () => {
    const c = cursor.result;
    if (!c) return;
    const value = c.value as { generation: number; bytes: Uint8Array };
    const at = Math.floor(value.bytes.length / 2);
    value.bytes[at] = value.bytes[at]! ^ 0xff;
    value.bytes[at + 1] = value.bytes[at + 1]! ^ 0x0f;
    c.update(value);
    c.continue();
  };
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error);
  });
  db.close();
}

(globalThis as unknown as { indexSnapshots: { scenario: typeof scenario } }).indexSnapshots = { scenario };
