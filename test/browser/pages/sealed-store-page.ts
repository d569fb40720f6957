/**
 * Encryption at rest inside Chromium: a memory written through `createMemory({ encryption })` over
 * the IndexedDB store, and a plain one beside it as the control. The test reads what IndexedDB
 * holds (here, through the raw IndexedDB API, and on disk, from the profile's files).
 */
import { createMemory } from '../../../src/engine.js';
import { isMemoryError } from '../../../src/errors.js';
import { createIndexedDbStore, indexedDbName } from '../../../src/store/indexeddb-store.js';
import { hashEmbedderDouble } from '../../support/hash-embedder.js';

export interface SealedStorePage {
  /** Writes `words` (one knowledge record and one profile per word) into the memory `name`, sealed with `key` when given. */
  write(name: string, words: string[], key: number[] | null): Promise<void>;
  /** Everything the memory's IndexedDB database holds, read with the raw API, as one string. */
  raw(name: string): Promise<string>;
  /** The knowledge of `word`'s owner as `createMemory` returns it, or the error code opening the memory gives. */
  read(name: string, key: number[] | null, word: string): Promise<{ text: string } | { code: string }>;
}

const embedder = hashEmbedderDouble(32);
const options = (key: number[] | null) => (key ? { encryption: { key: Uint8Array.from(key) } } : {});

async function rawDump(name: string): Promise<string> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(indexedDbName(name));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const out: unknown[] = [];
  for (const store of [...db.objectStoreNames]) {
    const tx = db.transaction(store);
    const [keys, values] = await Promise.all(['getAllKeys', 'getAll'].map((m) => new Promise<unknown[]>((resolve, reject) => {
      const request = (tx.objectStore(store) as unknown as Record<string, () => IDBRequest<unknown[]>>)[m]!();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    })));
    out.push(keys, values);
  }
  db.close();
  // Items are stored packed: a pack's body is UTF-8 JSON bytes, shown here as the text it holds.
  return JSON.stringify(out, (_k, v: unknown) => (v instanceof Float32Array ? [...v] : v instanceof Uint8Array ? new TextDecoder().decode(v) : v));
}

const page: SealedStorePage = {
  async write(name, words, key) {
    const memory = await createMemory({ store: await createIndexedDbStore(name), embedder, ...options(key) });
    for (const word of words) {
      await memory.upsertKnowledge({ user_id: `owner-${word}`, id: `id-${word}`, title: word, content: `The note about ${word}.` });
      await memory.upsertProfile({ user_id: `owner-${word}`, profile_data: { likes: [word] } });
    }
    await memory.close();
  },
  raw: rawDump,
  async read(name, key, word) {
    try {
      const memory = await createMemory({ store: await createIndexedDbStore(name), embedder, ...options(key) });
      const found = await memory.get({ user_id: `owner-${word}`, memory_type: 'knowledge' });
      await memory.close();
      return { text: JSON.stringify(found.data) };
    } catch (error) {
      return { code: isMemoryError(error) ? error.code : String(error) };
    }
  },
};

(globalThis as unknown as { sealedStore: SealedStorePage }).sealedStore = page;
