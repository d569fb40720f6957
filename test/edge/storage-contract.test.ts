/**
 * The shared storage contract (test/support/storage-contract-cases.ts) against the Durable Object
 * store on real Durable Object SQLite storage. Each location is a fresh object; every call runs
 * inside that object, as the engine's calls do.
 */
import { env } from 'cloudflare:test';
import type { StoredItem } from '../../src/records.js';
import { defineStorageContract } from '../support/storage-contract.js';
import { openStoreInside } from './helpers.js';

const namespace = env['MEMORY'] as { idFromName(name: string): object; get(id: object): unknown };
let objects = 0;

// Rows hold JSON: a BigInt is what JSON.stringify refuses.
defineStorageContract('Durable Object SQLite', {
  persistent: true,
  poison: (item: StoredItem) => ({ ...item, big: 10n }) as unknown as StoredItem,
  async fresh() {
    const stub = namespace.get(namespace.idFromName(`contract/${++objects}`));
    return {
      open: () => openStoreInside(stub),
      // Each object is used by one case only, and the pool drops all storage after the file.
      dispose: async () => {},
    };
  },
});
