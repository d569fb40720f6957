import { createMemoryStore } from '../../src/store/memory-store.js';
import type { StoredItem } from '../../src/records.js';
import { defineStorageContract } from '../support/storage-contract.js';

// The memory store copies items with structured clone: a function is what it cannot copy.
defineStorageContract('memory store', {
  persistent: false,
  poison: (item: StoredItem) => ({ ...item, callback: () => undefined }) as unknown as StoredItem,
  async fresh() {
    let store: ReturnType<typeof createMemoryStore> | null = null;
    return {
      // The data lives in the store object: "reopening" before close returns the same one.
      async open() {
        return (store ??= createMemoryStore());
      },
      async dispose() {},
    };
  },
});
