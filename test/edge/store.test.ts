/**
 * What is particular to the Durable Object store, against real Durable Object SQLite storage
 * inside workerd (the shared contract runs in storage-contract.test.ts): rows split at the
 * platform's row limit, rollback of a batch failing half-way, durability before resolving,
 * data across an eviction.
 */
import { abortAllDurableObjects, env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { isMemoryError } from '../../src/errors.js';
import type { BufferedMessage, EpisodeRecord, KnowledgeRecord, StoredItem } from '../../src/records.js';
import { createDurableObjectStore, MAX_PART_CHARS, type DurableSqlStorage } from '../../src/store/durable-object-store.js';

const namespace = env['MEMORY'] as { idFromName(name: string): object; get(id: object): unknown };
let objects = 0;
/** Runs `fn` with the storage of a fresh object (a new one for each call). */
function inObject<R>(fn: (storage: DurableSqlStorage) => R | Promise<R>, name = `store-test/${++objects}`): Promise<R> {
  return runInDurableObject(namespace.get(namespace.idFromName(name)), (_instance: unknown, state) => fn(state.storage as DurableSqlStorage));
}

const base = { app_id: 'a', project_id: 'p', timestamp: 1_700_000_000_000, created_at: 1_700_000_000_001, updated_at: 1_700_000_000_002, source_message_ids: ['m1'], parent_type: null, parent_id: null };

function episode(id: string, text = 'Met Ana at the café — 東京 🍣', vector: Float32Array | null = Float32Array.from([0.5, -0, 1e-40, -3.25, Number.MAX_VALUE / 2])): EpisodeRecord {
  return { ...base, id, kind: 'episode', owner_type: 'user', owner_id: 'u1', session_id: 's1', sender_ids: ['u1', 'bot'], subject: 'Café', summary: 'A meeting', episode: text, vector, vector_model: vector ? 'm@1' : null };
}
function knowledge(id: string): KnowledgeRecord {
  return { ...base, id, kind: 'knowledge', owner_type: 'agent', owner_id: 'bot', session_id: null, sender_ids: ['bot'], title: 'T', content: 'C', source: null, vector: null, vector_model: null };
}
function message(id: string, seq: number): BufferedMessage {
  return { kind: 'message', id, app_id: 'a', project_id: 'p', session_id: 's1', seq, sender_id: 'u1', sender_name: null, role: 'user', timestamp: 5 + seq, content: [{ type: 'text', text: `part ${seq}` }], tool_calls: null, tool_call_id: null, message_id: `ext-${seq}` };
}

const byId = (items: StoredItem[]) => new Map(items.map((i) => [i.id, i]));
const bits = (v: Float32Array | null) => (v ? [...new Uint32Array(v.buffer, v.byteOffset, v.length)] : null);

describe('durable object store', () => {
  it('splits an item longer than a row over several rows and joins it back', async () => {
    await inObject(async (storage) => {
      const store = createDurableObjectStore(storage);
      const long = 'ü漢🙂 '.repeat(Math.ceil((MAX_PART_CHARS * 2.5) / 6));
      await store.commit({ put: [episode('big', long), episode('small')], delete: [] });
      const rows = storage.sql.exec("SELECT count(*) AS n FROM engram_items WHERE id = 'big'") as unknown as { one(): { n: number } };
      expect(rows.one().n).toBe(3);
      const loaded = byId(await store.loadAll());
      expect((loaded.get('big') as EpisodeRecord).episode).toBe(long);
      expect(bits((loaded.get('big') as EpisodeRecord).vector)).toEqual(bits(episode('x').vector));
      // Rewritten shorter, the extra rows go.
      await store.commit({ put: [episode('big', 'short now')], delete: [] });
      expect((storage.sql.exec("SELECT count(*) AS n FROM engram_items WHERE id = 'big'") as unknown as { one(): { n: number } }).one().n).toBe(1);
    });
  });

  it('a batch that fails half-way leaves nothing of itself behind', async () => {
    await inObject(async (storage) => {
      const store = createDurableObjectStore(storage);
      await store.commit({ put: [episode('keep'), message('m1', 0)], delete: [] });
      const before = await store.loadAll();
      let statements = 0;
      // The real storage, except that its 4th statement fails: by then a delete and an insert ran.
      const failing: DurableSqlStorage = {
        sql: { exec: (query, ...bindings) => (++statements === 4 ? (() => { throw new Error('SQLITE_IOERR: disk I/O error'); })() : storage.sql.exec(query, ...bindings)) },
        transactionSync: (fn) => storage.transactionSync(fn),
        sync: () => storage.sync!(),
      };
      const broken = createDurableObjectStore(failing);
      statements = 0;
      const error = await broken.commit({ put: [episode('new1'), episode('new2')], delete: ['m1'] }).catch((e: unknown) => e);
      expect(isMemoryError(error) && error.code).toBe('STORAGE_FAILED');
      expect(statements).toBe(4);
      expect(byId(await store.loadAll())).toEqual(byId(before));
    });
  });

  it('a full database is QUOTA_EXCEEDED and writes nothing', async () => {
    await inObject(async (storage) => {
      const full: DurableSqlStorage = {
        sql: { exec: (query, ...bindings) => (query.startsWith('INSERT') ? (() => { throw new Error('SQLITE_FULL: database or disk is full'); })() : storage.sql.exec(query, ...bindings)) },
        transactionSync: (fn) => storage.transactionSync(fn),
      };
      const error = await createDurableObjectStore(full).commit({ put: [episode('e1')], delete: [] }).catch((e: unknown) => e);
      expect(isMemoryError(error) && error.code).toBe('QUOTA_EXCEEDED');
      expect(await createDurableObjectStore(storage).loadAll()).toEqual([]);
    });
  });

  it('resolves a commit only once the storage reports it durable', async () => {
    await inObject(async (storage) => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const slow: DurableSqlStorage = { sql: storage.sql, transactionSync: (fn) => storage.transactionSync(fn), sync: () => held.then(() => storage.sync!()) };
      let done = false;
      const commit = createDurableObjectStore(slow).commit({ put: [knowledge('k1')], delete: [] }).then(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(done).toBe(false);
      release();
      await commit;
      expect(done).toBe(true);
    });
  });

  it('reports the database size as its usage', async () => {
    await inObject(async (storage) => {
      const store = createDurableObjectStore(storage);
      await store.commit({ put: [episode('e1')], delete: [] });
      expect((await store.estimate!()).usage).toBeGreaterThan(0);
    });
  });

  it('what was committed is there after the object is evicted', async () => {
    await inObject((storage) => createDurableObjectStore(storage).commit({ put: [episode('e1'), message('m1', 0)], delete: [] }), 'store-test/evicted');
    await abortAllDurableObjects();
    const loaded = await inObject((storage) => createDurableObjectStore(storage).loadAll(), 'store-test/evicted');
    expect(loaded.map((i) => i.id).sort()).toEqual(['e1', 'm1']);
  });
});
