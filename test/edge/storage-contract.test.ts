/**
 * The shared storage contract (test/support/storage-contract-cases.ts) against the Durable Object
 * store on real Durable Object SQLite storage. Each location is a fresh object; every call runs
 * inside that object, as the engine's calls do.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import type { StoredItem } from '../../src/records.js';
import { createDurableObjectStore, type DurableSqlStorage } from '../../src/store/durable-object-store.js';
import type { StorageAdapter } from '../../src/store/port.js';
import { defineStorageContract } from '../support/storage-contract.js';

const namespace = env['MEMORY'] as { idFromName(name: string): object; get(id: object): unknown };
let objects = 0;

async function openInside(stub: unknown): Promise<StorageAdapter> {
  const store = await runInDurableObject(stub, (_instance: unknown, state) => createDurableObjectStore(state.storage as DurableSqlStorage));
  const inside = <R>(fn: () => Promise<R>): Promise<R> => runInDurableObject(stub, () => fn());
  return {
    kind: store.kind,
    loadAll: () => inside(() => store.loadAll()),
    commit: (batch) => inside(() => store.commit(batch)),
    getMeta: (key) => inside(() => store.getMeta(key)),
    setMeta: (key, value) => inside(() => store.setMeta(key, value)),
    close: () => inside(() => store.close()),
  };
}

// Rows hold JSON: a BigInt is what JSON.stringify refuses.
defineStorageContract('Durable Object SQLite', {
  persistent: true,
  poison: (item: StoredItem) => ({ ...item, big: 10n }) as unknown as StoredItem,
  async fresh() {
    const stub = namespace.get(namespace.idFromName(`contract/${++objects}`));
    return {
      open: () => openInside(stub),
      // Each object is used by one case only, and the pool drops all storage after the file.
      dispose: async () => {},
    };
  },
});
