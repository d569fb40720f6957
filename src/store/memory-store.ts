/** A store that lives in memory only: for tests, ephemeral sessions and as the reference behaviour. */
import { createError, wrapError } from '../errors.js';
import type { StoredItem } from '../records.js';
import type { StorageAdapter, StoreBatch } from './port.js';
import { cloneItem } from './serialize.js';

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
      return [...items.values()].map(cloneItem);
    },
    async commit(batch: StoreBatch) {
      ensureOpen();
      // Copy the whole batch before touching the map: an item that cannot be cloned fails it all.
      let copies: StoredItem[];
      try {
        copies = batch.put.map(cloneItem);
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
