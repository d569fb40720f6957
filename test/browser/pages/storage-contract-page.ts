/**
 * The storage contract inside Chromium: the same cases as in Node, run against the IndexedDB store
 * in the page; each case's outcome goes back to the test as plain data.
 */
import type { StoredItem } from '../../../src/records.js';
import { createIndexedDbStore, deleteIndexedDbMemory } from '../../../src/store/indexeddb-store.js';
import { runStorageCase, STORAGE_CONTRACT_CASES, type StorageTarget } from '../../support/storage-contract-cases.js';

export interface StorageContractPage {
  names(): string[];
  run(name: string): Promise<{ ok: true } | { ok: false; name: string; message: string }>;
}

let counter = 0;
// IndexedDB stores by structured clone: a function is what it cannot store (DataCloneError).
const target: StorageTarget = {
  persistent: true,
  poison: (item: StoredItem) => ({ ...item, callback: () => undefined }) as unknown as StoredItem,
  async fresh() {
    const name = `contract-${Date.now()}-${++counter}`;
    return { open: () => createIndexedDbStore(name), dispose: () => deleteIndexedDbMemory(name) };
  },
};

const page: StorageContractPage = {
  names: () => STORAGE_CONTRACT_CASES.map((c) => c.name),
  async run(name) {
    try {
      await runStorageCase(name, target);
      return { ok: true };
    } catch (error) {
      return { ok: false, name: String((error as Error)?.name), message: String((error as Error)?.message) };
    }
  },
};

(globalThis as unknown as { storageContract: StorageContractPage }).storageContract = page;
