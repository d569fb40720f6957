import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore } from '../../src/store/file-store.js';
import type { StoredItem } from '../../src/records.js';
import { defineStorageContract } from '../support/storage-contract.js';

// The file store writes JSON: a BigInt is what JSON.stringify refuses.
defineStorageContract('Node file store', {
  persistent: true,
  poison: (item: StoredItem) => ({ ...item, big: 10n }) as unknown as StoredItem,
  async fresh() {
    const dir = await mkdtemp(join(tmpdir(), 'engram-contract-'));
    return {
      open: () => createFileStore(dir),
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  },
});
