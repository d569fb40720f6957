/**
 * The browser store: one IndexedDB database per named memory (`engram:<name>`). Items are kept
 * packed, a few hundred to a stored value (`item-pack.ts`): reading 10k items one value each took
 * a second in Chromium and stored 1.8× their raw text and vectors. Object stores:
 *   - `packs`: packs by number; new items fill the last pack until it holds `PACK_ITEMS`, and an
 *     item that is replaced or deleted is taken out of its pack in the same transaction;
 *   - `state`: the items' generation, bumped by every commit in the commit's own transaction;
 *   - `snapshots`: derived index state stamped with the generation it was made at (`SnapshotShelf`);
 *   - `meta`: small key/value metadata.
 * A batch is one readwrite transaction, so it lands whole or not at all; `commit` resolves on the
 * transaction's `complete` event, requested with `durability: 'strict'` so the data is flushed first.
 * A database written by the one-value-per-item version is packed when it is first opened.
 *
 * Only the worker host (or a test) should open a memory's database: two engines over one database
 * would each keep their own view of it. The worker takes a Web Lock per memory for that reason.
 * This store also keeps which pack holds each id in memory, which relies on the same single writer.
 */
import { deleteDB, openDB, unwrap, type IDBPDatabase } from 'idb';
import { createError, isMemoryError, MemoryError } from '../errors.js';
import type { StoredItem } from '../records.js';
import { decodePack, encodePack, isPackValue, type PackValue } from './item-pack.js';
import type { SnapshotShelf, StorageAdapter, StoreBatch } from './port.js';

/** Where version 1 kept one value per item; emptied into packs on upgrade. */
const ITEMS = 'items';
const PACKS = 'packs';
const STATE = 'state';
const SNAPSHOTS = 'snapshots';
const META = 'meta';
const GENERATION = 'generation';
const VERSION = 2;
const PREFIX = 'engram:';
/**
 * Items per pack: large enough that a 100k-item memory is a few hundred values, small enough
 * that a commit rewriting its last pack (decode, add, encode) stays around a millisecond.
 */
export const PACK_ITEMS = 256;

export interface IndexedDbStoreOptions {
  /**
   * Transaction durability for writes. Default 'strict': the browser flushes to disk before a
   * commit resolves. 'relaxed' is faster and may lose the last writes on a power cut (not on a tab crash).
   */
  durability?: IDBTransactionDurability;
  /**
   * Start reading every item (and the index snapshots) as soon as the database is open, so that
   * the first `loadAll` overlaps whatever the caller does meanwhile (loading the embedding model). Default true.
   */
  prefetch?: boolean;
  /** Items per pack written from now on (default `PACK_ITEMS`; packs already written keep their size). */
  packItems?: number;
}

/** The IndexedDB database name of a named memory. */
export function indexedDbName(name: string): string {
  return PREFIX + name;
}

/** What one full read found: the items, which pack holds each, and the generation. */
interface Contents {
  items: StoredItem[];
  where: Map<string, number>;
  sizes: Map<number, number>;
  generation: number;
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
  const packItems = Math.max(1, Math.floor(options.packItems ?? PACK_ITEMS));
  let lost: string | null = null;
  let closed = false;
  let db: IDBPDatabase;
  try {
    db = await openDB(indexedDbName(name), VERSION, {
      upgrade(database, oldVersion, _newVersion, transaction) {
        if (!database.objectStoreNames.contains(PACKS)) database.createObjectStore(PACKS);
        if (!database.objectStoreNames.contains(STATE)) database.createObjectStore(STATE);
        if (!database.objectStoreNames.contains(SNAPSHOTS)) database.createObjectStore(SNAPSHOTS);
        if (!database.objectStoreNames.contains(META)) database.createObjectStore(META);
        if (oldVersion >= 1 && database.objectStoreNames.contains(ITEMS)) packLegacyItems(unwrap(transaction));
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

  // Which pack holds each id, how full each pack is, and the generation: known after a full read.
  let where: Map<string, number> | null = null;
  let sizes = new Map<number, number>();
  let generation = 0;
  let writes = 0;
  let prefetched: { writes: number; contents: Promise<Contents> } | null = null;
  let shelved: Promise<Map<string, { generation: number; bytes: Uint8Array }>> | null = null;
  /** Commits run one after another: each plans from what the previous one left. */
  let chain: Promise<unknown> = Promise.resolve();

  // One request for every pack: reading them a few to a request, each batch decoded while the
  // next was read, opened 10k items no faster and 100k ~0.9 s slower (the decode and the values'
  // deserialisation share the worker's one thread, so nothing overlapped).
  const readAll = async (): Promise<Contents> => {
    const tx = db.transaction([PACKS, STATE], 'readonly');
    const [keys, values, stamp] = await Promise.all([tx.objectStore(PACKS).getAllKeys(), tx.objectStore(PACKS).getAll(), tx.objectStore(STATE).get(GENERATION)]);
    const items: StoredItem[] = [];
    const at = new Map<string, number>();
    const counts = new Map<number, number>();
    for (let i = 0; i < values.length; i++) {
      const value: unknown = values[i];
      const key = keys[i] as number;
      if (!isPackValue(value)) throw new MemoryError('STORAGE_CORRUPT', { message: `The memory "${name}" holds a damaged pack (${key}); it was not opened.`, details: { pack: key } });
      let decoded: StoredItem[];
      try {
        decoded = decodePack(value);
      } catch (error) {
        throw new MemoryError('STORAGE_CORRUPT', { message: `The memory "${name}" holds a damaged pack (${key}); it was not opened.`, details: { pack: key }, cause: error });
      }
      for (const item of decoded) {
        items.push(item);
        at.set(item.id, key);
      }
      counts.set(key, decoded.length);
    }
    return { items, where: at, sizes: counts, generation: typeof stamp === 'number' ? stamp : 0 };
  };
  const readShelf = async () => {
    const tx = db.transaction(SNAPSHOTS, 'readonly');
    const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
    const out = new Map<string, { generation: number; bytes: Uint8Array }>();
    keys.forEach((key, i) => {
      const v = values[i] as { generation?: unknown; bytes?: unknown } | undefined;
      // Anything else is not a snapshot this version wrote: left out, so its partition is rebuilt.
      if (typeof key === 'string' && typeof v?.generation === 'number' && v.bytes instanceof Uint8Array) out.set(key, { generation: v.generation, bytes: v.bytes });
    });
    return out;
  };
  const adopt = (contents: Contents) => {
    where = contents.where;
    sizes = contents.sizes;
    generation = contents.generation;
  };
  if (options.prefetch ?? true) {
    // The snapshots first: small, and an open can read them (see `readSnapshots`) while the packs arrive.
    shelved = readShelf();
    shelved.catch(() => undefined);
    prefetched = { writes, contents: readAll() };
    prefetched.contents.catch(() => undefined); // read again (and reported) by loadAll
  }

  function ensureOpen(): void {
    if (closed) throw createError('CLOSED');
    if (lost) throw createError('STORAGE_FAILED', { message: `The memory "${name}" is no longer available: ${lost}.`, details: { reason: lost } });
  }

  function writeTransaction(stores: string[]): IDBTransaction {
    try {
      // The unwrapped transaction: idb would make a promise per request, and an unawaited failing one
      // would surface as an unhandled rejection.
      return unwrap(db).transaction(stores, 'readwrite', { durability });
    } catch (error) {
      throw storageError(error, 'cannot start a write');
    }
  }

  /**
   * Queues `work` in one readwrite transaction and resolves once it committed. `work` gets a
   * `guard` for request callbacks: a throw inside one (a value that cannot be cloned, a quota)
   * aborts the transaction, so nothing queued before it lands, and is what the commit reports.
   */
  async function writeAll(stores: string[], work: (tx: IDBTransaction, guard: <A extends unknown[]>(f: (...args: A) => void) => (...args: A) => void) => void, queueFailure: string, commitFailure: string): Promise<void> {
    const tx = writeTransaction(stores);
    const done = settled(tx);
    let failure: unknown = null;
    const guard = <A extends unknown[]>(f: (...args: A) => void) => (...args: A) => {
      try {
        f(...args);
      } catch (error) {
        failure ??= error;
        abort(tx);
      }
    };
    try {
      work(tx, guard);
    } catch (error) {
      abort(tx);
      done.catch(() => undefined);
      throw storageError(error, queueFailure);
    }
    try {
      await done;
    } catch (error) {
      throw storageError(failure ?? error, failure ? queueFailure : commitFailure);
    }
    if (failure) throw storageError(failure, queueFailure);
  }

  async function known(): Promise<Map<string, number>> {
    if (!where) adopt(await readAll());
    return where!;
  }

  async function commitNow(batch: StoreBatch): Promise<void> {
    const at = await known();
    // The last item of an id in the batch is the one kept, as consecutive puts would leave it.
    const fresh = new Map<string, StoredItem>();
    for (const item of batch.put) {
      fresh.delete(item.id);
      fresh.set(item.id, item);
    }
    const drop = new Map<number, Set<string>>();
    for (const id of [...batch.delete, ...fresh.keys()]) {
      const pack = at.get(id);
      if (pack === undefined) continue;
      let ids = drop.get(pack);
      if (!ids) drop.set(pack, (ids = new Set()));
      ids.add(id);
    }
    // New items fill the last pack, then new packs of `packItems`.
    const incoming = [...fresh.values()];
    const last = sizes.size ? Math.max(...sizes.keys()) : -1;
    const into = new Map<number, StoredItem[]>();
    let next = last + 1;
    let room = last >= 0 ? packItems - (sizes.get(last)! - (drop.get(last)?.size ?? 0)) : 0;
    let start = 0;
    if (room > 0 && incoming.length) {
      into.set(last, incoming.slice(0, room));
      start = room;
    }
    for (; start < incoming.length; start += packItems) into.set(next++, incoming.slice(start, start + packItems));
    room = 0;

    const nextSizes = new Map(sizes);
    const moves: [string, number | null][] = [];
    await writeAll([PACKS, STATE], (tx, guard) => {
      const packs = tx.objectStore(PACKS);
      const rewrite = (key: number, kept: StoredItem[]) => {
        if (kept.length === 0) {
          packs.delete(key);
          nextSizes.delete(key);
        } else {
          packs.put(encodePack(kept), key);
          nextSizes.set(key, kept.length);
        }
      };
      for (const key of new Set([...drop.keys(), ...[...into.keys()].filter((k) => sizes.has(k))])) {
        const request = packs.get(key);
        request.onsuccess = guard(() => {
          if (!isPackValue(request.result)) throw new MemoryError('STORAGE_CORRUPT', { message: `The memory "${name}" holds a damaged pack (${key}); nothing was written.`, details: { pack: key } });
          const gone = drop.get(key);
          const kept = decodePack(request.result).filter((i) => !gone?.has(i.id));
          rewrite(key, [...kept, ...(into.get(key) ?? [])]);
        });
      }
      for (const [key, items] of into) if (!sizes.has(key)) rewrite(key, items);
      tx.objectStore(STATE).put(generation + 1, GENERATION);
      for (const id of batch.delete) moves.push([id, null]);
      for (const [key, items] of into) for (const item of items) moves.push([item.id, key]);
    }, 'cannot write the batch; nothing was written', 'the batch was not written');
    for (const [id, key] of moves) {
      if (key === null) at.delete(id);
      else at.set(id, key);
    }
    sizes = nextSizes;
    generation++;
  }

  const shelf: SnapshotShelf = {
    generation: () => generation,
    async read() {
      ensureOpen();
      const early = shelved;
      shelved = null;
      try {
        return await (early ?? readShelf()).catch(readShelf);
      } catch (error) {
        throw storageError(error, 'cannot read the index snapshots');
      }
    },
    async write(stamp, entries) {
      ensureOpen();
      let current: unknown;
      await writeAll([SNAPSHOTS, STATE], (tx, guard) => {
        const request = tx.objectStore(STATE).get(GENERATION);
        request.onsuccess = guard(() => {
          current = request.result ?? 0;
          // The items changed since the snapshots were made: they would describe other items.
          if (current !== stamp) return;
          const store = tx.objectStore(SNAPSHOTS);
          store.clear();
          for (const [key, bytes] of entries) store.put({ generation: stamp, bytes }, key);
        });
      }, 'cannot write the index snapshots', 'the index snapshots were not written');
      return current === stamp;
    },
  };

  return {
    kind: 'indexeddb',
    snapshots: shelf,

    async loadAll() {
      ensureOpen();
      const early = prefetched;
      prefetched = null;
      try {
        // The early read saw the database before any later commit: use it only if none happened.
        const contents = early && early.writes === writes ? await early.contents.catch(readAll) : await readAll();
        // Once known, the in-memory plan follows this store's own commits (the single writer).
        if (!where) adopt(contents);
        return contents.items;
      } catch (error) {
        throw storageError(error, 'cannot read the memory');
      }
    },

    async commit(batch: StoreBatch) {
      ensureOpen();
      if (batch.put.length === 0 && batch.delete.length === 0) return;
      writes++;
      const run = chain.then(() => {
        ensureOpen();
        return commitNow(batch);
      });
      chain = run.catch(() => undefined);
      try {
        await run;
      } catch (error) {
        // A failed commit may leave the in-memory plan behind the database: read it again next time.
        where = null;
        throw storageError(error, 'cannot write the batch; nothing was written');
      }
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
      await writeAll([META], (tx) => {
        tx.objectStore(META).put(value, key);
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
      shelved = null;
      db.close(); // IndexedDB lets running transactions finish before the connection goes
    },
  };
}

/**
 * Moves version 1's one-value-per-item store into packs, inside the upgrade transaction (so the
 * upgrade lands whole or not at all), then drops it.
 */
function packLegacyItems(tx: IDBTransaction): void {
  const request = tx.objectStore(ITEMS).getAll();
  request.onsuccess = () => {
    const items = request.result as StoredItem[];
    const packs = tx.objectStore(PACKS);
    for (let i = 0, key = 0; i < items.length; i += PACK_ITEMS, key++) packs.put(encodePack(items.slice(i, i + PACK_ITEMS)) satisfies PackValue, key);
    tx.db.deleteObjectStore(ITEMS);
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
