import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../../src/store/sqlite-store.js';
import type { StoredItem } from '../../src/records.js';
import { defineStorageContract } from '../support/storage-contract.js';

// The SQLite store keeps each item's JSON: a BigInt is what JSON.stringify refuses.
defineStorageContract('Node SQLite store', {
  persistent: true,
  poison: (item: StoredItem) => ({ ...item, big: 10n }) as unknown as StoredItem,
  async fresh() {
    const dir = await mkdtemp(join(tmpdir(), 'engram-contract-'));
    return {
      open: () => createSqliteStore(dir),
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  },
});
