/**
 * The browser store: one IndexedDB database per named memory (`engram:<name>`) with two object
 * stores, `items` (records and buffered messages, keyed by id) and `meta`. A batch is one
 * readwrite transaction, so it lands whole or not at all; `commit` resolves on the transaction's
 * `complete` event, requested with `durability: 'strict'` so the data is flushed before that.
 *
 * Only the worker host (or a test) should open a memory's database: two engines over one database
 * would each keep their own view of it. The worker takes a Web Lock per memory for that reason.
 */
import { deleteDB, openDB, unwrap, type IDBPDatabase } from 'idb';
import { createError, isMemoryError, MemoryError } from '../errors.js';
import type { StoredItem } from '../records.js';
import type { StorageAdapter, StoreBatch } from './port.js';

const ITEMS = 'items';
const META = 'meta';
const VERSION = 1;
const PREFIX = 'engram:';

export interface IndexedDbStoreOptions {
  /**
   * Transaction durability for writes. Default 'strict': the browser flushes to disk before a
   * commit resolves. 'relaxed' is faster and may lose the last writes on a power cut (not on a tab crash).
   */
  durability?: IDBTransactionDurability;
  /**
   * Start reading every item as soon as the database is open, so that the first `loadAll` overlaps
   * whatever the caller does meanwhile (loading the embedding model). Default true.
   */
  prefetch?: boolean;
}

/** The IndexedDB database name of a named memory. */
export function indexedDbName(name: string): string {
  return PREFIX + name;
}

/**
 * Opens (creating if needed) the named memory's database.
 *
 * @example
 * const memory = await createMemory({ store: await createIndexedDbStore('notes'), embedder });
 */
export async function createIndexedDbStore(name: string, options: IndexedDbStoreOptions = {}): Promise<StorageAdapter> {
  checkName(name);
  const durability = options.durability ?? 'strict';
  let lost: string | null = null;
  let closed = false;
  let db: IDBPDatabase;
  try {
    db = await openDB(indexedDbName(name), VERSION, {
      upgrade(database) {
        if (!database.objectStoreNames.contains(ITEMS)) database.createObjectStore(ITEMS, { keyPath: 'id' });
        if (!database.objectStoreNames.contains(META)) database.createObjectStore(META);
      },
      // Someone deletes or upgrades this database: give way rather than block them forever.
      blocking() {
        lost = 'the database was deleted or upgraded by another connection';
        db.close();
      },
      terminated() {
        lost = 'the browser closed the database connection (storage cleared or a disk error)';
      },
    });
  } catch (error) {
    throw storageError(error, `cannot open the memory "${name}"`);
  }

  let writes = 0;
  let prefetched: { writes: number; items: Promise<StoredItem[]> } | null = null;
  const readAll = () => db.getAll(ITEMS) as Promise<StoredItem[]>;
  if (options.prefetch ?? true) {
    prefetched = { writes, items: readAll() };
    prefetched.items.catch(() => undefined); // read again (and reported) by loadAll
  }

  function ensureOpen(): void {
    if (closed) throw createError('CLOSED');
    if (lost) throw createError('STORAGE_FAILED', { message: `The memory "${name}" is no longer available: ${lost}.`, details: { reason: lost } });
  }

  function writeTransaction(store: string): IDBTransaction {
    try {
      // The unwrapped transaction: idb would make a promise per request, and an unawaited failing one
      // would surface as an unhandled rejection.
      return unwrap(db).transaction(store, 'readwrite', { durability });
    } catch (error) {
      throw storageError(error, 'cannot start a write');
    }
  }

  /**
   * Queues `work` in one readwrite transaction and resolves once it committed. A request that
   * throws while being queued (a value that cannot be cloned) aborts the transaction, so the
   * requests queued before it never land.
   */
  async function writeAll(name: typeof ITEMS | typeof META, work: (store: ReturnType<ReturnType<typeof writeTransaction>['objectStore']>) => void, queueFailure: string, commitFailure: string): Promise<void> {
    const tx = writeTransaction(name);
    const done = settled(tx);
    try {
      work(tx.objectStore(name));
    } catch (error) {
      abort(tx);
      done.catch(() => undefined);
      throw storageError(error, queueFailure);
    }
    try {
      await done;
    } catch (error) {
      throw storageError(error, commitFailure);
    }
  }

  return {
    kind: 'indexeddb',

    async loadAll() {
      ensureOpen();
      const early = prefetched;
      prefetched = null;
      try {
        // The early read saw the database before any later commit: use it only if none happened.
        if (early && early.writes === writes) return await early.items.catch(readAll);
        return await readAll();
      } catch (error) {
        throw storageError(error, 'cannot read the memory');
      }
    },

    async commit(batch: StoreBatch) {
      ensureOpen();
      if (batch.put.length === 0 && batch.delete.length === 0) return;
      writes++;
      await writeAll(ITEMS, (store) => {
        // Raw requests: one promise per item would cost more than the writes at 10k items.
        for (const id of batch.delete) store.delete(id);
        for (const item of batch.put) store.put(ownVector(item));
      }, 'cannot write the batch; nothing was written', 'the batch was not written');
    },

    async getMeta(key) {
      ensureOpen();
      try {
        return await db.get(META, key);
      } catch (error) {
        throw storageError(error, 'cannot read metadata');
      }
    },

    async setMeta(key, value) {
      ensureOpen();
      await writeAll(META, (store) => {
        store.put(value, key);
      }, 'cannot write metadata', 'metadata was not written');
    },

    async estimate() {
      // Per origin, not per memory: the browser reports nothing finer.
      const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
      if (!storage?.estimate) return {};
      const { usage, quota } = await storage.estimate();
      return { ...(usage === undefined ? {} : { usage }), ...(quota === undefined ? {} : { quota }) };
    },

    async close() {
      if (closed) return;
      closed = true;
      prefetched = null;
      db.close(); // IndexedDB lets running transactions finish before the connection goes
    },
  };
}

/** Deletes a named memory's database (every record and its metadata). Open connections to it are closed. */
export async function deleteIndexedDbMemory(name: string): Promise<void> {
  checkName(name);
  try {
    await deleteDB(indexedDbName(name));
  } catch (error) {
    throw storageError(error, `cannot delete the memory "${name}"`);
  }
}

/** Maps a DOMException (or anything) from IndexedDB to the catalog: quota → QUOTA_EXCEEDED, the rest → STORAGE_FAILED. */
export function storageError(error: unknown, action: string): MemoryError {
  if (isMemoryError(error)) return error;
  const name = typeof error === 'object' && error !== null && typeof (error as { name?: unknown }).name === 'string' ? (error as { name: string }).name : 'Error';
  const text = error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error) ? String((error as { message: unknown }).message) : String(error);
  const quota = name === 'QuotaExceededError' || /quota/i.test(text);
  return new MemoryError(quota ? 'QUOTA_EXCEEDED' : 'STORAGE_FAILED', { message: `${action}: ${name}: ${text}`, details: { name }, cause: error });
}

function checkName(name: string): void {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
    throw createError('VALIDATION_FAILED', { message: 'A memory name is a non-empty string of at most 200 characters.', details: [{ loc: ['name'], msg: 'invalid memory name', type: 'value_error', input: name }] });
  }
}

/** Resolves on `complete`; rejects with the transaction's own error (QuotaExceededError, …) on abort. */
function settled(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.addEventListener('complete', () => resolve());
    tx.addEventListener('abort', () => reject(tx.error ?? new DOMException('The transaction was aborted.', 'AbortError')));
  });
}

function abort(tx: IDBTransaction): void {
  try {
    tx.abort();
  } catch {
    // already finished or aborted
  }
}

/**
 * Structured clone stores a typed array's whole underlying buffer: a vector that is a view into a
 * larger buffer (a decoded file, a batch output) is copied so only its own bytes are written.
 */
function ownVector(item: StoredItem): StoredItem {
  if (item.kind === 'message' || item.vector === null) return item;
  const v = item.vector;
  if (v.byteOffset === 0 && v.buffer.byteLength === v.byteLength) return item;
  return { ...item, vector: v.slice() };
}
