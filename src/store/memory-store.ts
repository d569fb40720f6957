/** A store that lives in memory only: for tests, ephemeral sessions and as the reference behaviour. */
import type { StoredItem } from '../records.js';
import type { StorageAdapter, StoreBatch } from './port.js';
import { cloneItem } from './serialize.js';

/** Creates an in-memory store. Items are copied on the way in and out, as a real store would. */
export function createMemoryStore(): StorageAdapter {
  const items = new Map<string, StoredItem>();
  const meta = new Map<string, unknown>();
  return {
    kind: 'memory',
    async loadAll() {
      return [...items.values()].map(cloneItem);
    },
    async commit(batch: StoreBatch) {
      for (const id of batch.delete) items.delete(id);
      for (const item of batch.put) items.set(item.id, cloneItem(item));
    },
    async getMeta(key) {
      return structuredClone(meta.get(key));
    },
    async setMeta(key, value) {
      meta.set(key, structuredClone(value));
    },
    async close() {},
  };
}
