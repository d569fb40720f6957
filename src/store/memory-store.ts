/** A store that lives in memory only: for tests, ephemeral sessions and as the reference behaviour. */
import { createError, wrapError } from '../errors.js';
import type { StoredItem } from '../records.js';
import type { StorageAdapter, StoreBatch } from './port.js';
import { setOwn } from '../own-keys.js';

/**
 * A deep copy with structured clone's meaning. Stored items are plain objects, arrays, primitives
 * and Float32Array vectors; those are copied directly, which is several times faster than
 * `structuredClone` and its serialisation round trip (the copy was a sizeable share of every
 * write). Anything else (a Date, a Map, another typed array) goes through `structuredClone`
 * itself, and what it cannot copy (a function, a symbol) fails the same way.
 */
function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') return structuredClone(value); // throws DataCloneError
    return value;
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i]);
    return out;
  }
  if (value instanceof Float32Array) return value.slice();
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  // A stored "__proto__" key (metadata is the client's) stays a key of the copy.
  for (const key of Object.keys(value)) setOwn(out, key, copy((value as Record<string, unknown>)[key]));
  return out;
}

const copyItem = <T extends StoredItem>(item: T): T => copy(item) as T;

/** Creates an in-memory store. Items are copied on the way in and out, as a real store would. */
export function createMemoryStore(): StorageAdapter {
  const items = new Map<string, StoredItem>();
  const meta = new Map<string, unknown>();
  let closed = false;
  const ensureOpen = () => {
    if (closed) throw createError('CLOSED');
  };
  return {
    kind: 'memory',
    async loadAll() {
      ensureOpen();
      return [...items.values()].map(copyItem);
    },
    async commit(batch: StoreBatch) {
      ensureOpen();
      // Copy the whole batch before touching the map: an item that cannot be cloned fails it all.
      let copies: StoredItem[];
      try {
        copies = batch.put.map(copyItem);
      } catch (error) {
        throw wrapError(error, 'STORAGE_FAILED', 'cannot store the batch; nothing was written');
      }
      for (const id of batch.delete) items.delete(id);
      for (const item of copies) items.set(item.id, item);
    },
    async getMeta(key) {
      ensureOpen();
      return structuredClone(meta.get(key));
    },
    async setMeta(key, value) {
      ensureOpen();
      meta.set(key, structuredClone(value));
    },
    async close() {
      closed = true;
    },
  };
}
