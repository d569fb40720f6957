/**
 * The storage contract as vitest tests: `defineStorageContract` defines one test per case of
 * `storage-contract-cases.ts` for a StorageAdapter target. Every adapter runs the same suite: the
 * memory store, the Node file store, IndexedDB through fake-indexeddb and IndexedDB in Chromium
 * (where each case runs inside the page and only its outcome comes back).
 */
import { describe, it } from 'vitest';
import { STORAGE_CONTRACT_CASES, type StorageTarget } from './storage-contract-cases.js';

export { STORAGE_CONTRACT_CASES, type StorageLocation, type StorageTarget } from './storage-contract-cases.js';

/** A target whose cases run elsewhere (a browser page): `runCase` runs one by name and rejects on failure. */
export interface RemoteStorageTarget {
  persistent: boolean;
  runCase(name: string): Promise<void>;
}

/**
 * Defines the contract's tests for one adapter.
 *
 * @example
 * defineStorageContract('memory', { persistent: false, poison, fresh: async () => … });
 */
export function defineStorageContract(label: string, target: StorageTarget | RemoteStorageTarget | (() => StorageTarget | RemoteStorageTarget)): void {
  describe(`storage contract: ${label}`, () => {
    for (const c of STORAGE_CONTRACT_CASES) {
      it(c.name, async (context) => {
        const t = typeof target === 'function' ? target() : target;
        if (c.persistentOnly && !t.persistent) {
          context.skip(`${label} keeps nothing once closed`);
          return;
        }
        if ('runCase' in t) await t.runCase(c.name);
        else await c.run(t);
      });
    }
  });
}
