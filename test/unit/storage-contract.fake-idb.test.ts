import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isMemoryError } from '../../src/errors.js';
import type { StoredItem } from '../../src/records.js';
import { createIndexedDbStore, deleteIndexedDbMemory, indexedDbName } from '../../src/store/indexeddb-store.js';
import { defineStorageContract } from '../support/storage-contract.js';
import { fact } from '../support/storage-contract-cases.js';

let counter = 0;

// IndexedDB stores by structured clone: a function is what it cannot store (DataCloneError).
defineStorageContract('IndexedDB (fake-indexeddb)', {
  persistent: true,
  poison: (item: StoredItem) => ({ ...item, callback: () => undefined }) as unknown as StoredItem,
  async fresh() {
    const name = `contract-${++counter}`;
    return {
      open: () => createIndexedDbStore(name),
      dispose: () => deleteIndexedDbMemory(name),
    };
  },
});

describe('IndexedDB store specifics', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('names one database per memory, and memories side by side do not mix', async () => {
    const a = await createIndexedDbStore('side-a');
    const b = await createIndexedDbStore('side-b');
    await a.commit({ put: [fact('only-in-a')], delete: [] });
    await b.commit({ put: [fact('only-in-b')], delete: [] });
    expect((await a.loadAll()).map((i) => i.id)).toEqual(['only-in-a']);
    expect((await b.loadAll()).map((i) => i.id)).toEqual(['only-in-b']);
    const names = (await indexedDB.databases()).map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining([indexedDbName('side-a'), indexedDbName('side-b')]));
    await a.close();
    await b.close();
  });

  it('turns QuotaExceededError into QUOTA_EXCEEDED and aborts the whole batch', async () => {
    const store = await createIndexedDbStore(`quota-${++counter}`);
    await store.commit({ put: [fact('kept')], delete: [] });
    const put = IDBObjectStore.prototype.put;
    // Items are stored packed: the pack that would take 'too-big' is refused.
    const holds = (value: unknown, id: string) => (value as { body?: unknown }).body instanceof Uint8Array && new TextDecoder().decode((value as { body: Uint8Array }).body).includes(JSON.stringify(id));
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
      if (holds(value, 'too-big')) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return put.call(this, value, key);
    });
    const error = await store.commit({ put: [fact('first'), fact('too-big')], delete: ['kept'] }).catch((e: unknown) => e);
    expect(isMemoryError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'QUOTA_EXCEEDED', status: 507, details: { name: 'QuotaExceededError' } });
    vi.restoreAllMocks();
    expect((await store.loadAll()).map((i) => i.id)).toEqual(['kept']);
    await store.close();
  });

  it('a prefetched read never hides a commit made before loadAll', async () => {
    const name = `prefetch-${++counter}`;
    const first = await createIndexedDbStore(name);
    await first.commit({ put: [fact('a')], delete: [] });
    await first.close();
    const store = await createIndexedDbStore(name);
    await store.commit({ put: [fact('b')], delete: [] });
    expect((await store.loadAll()).map((i) => i.id).sort()).toEqual(['a', 'b']);
    await store.close();
  });

  it('gives way to a deletion from elsewhere and then reports STORAGE_FAILED', async () => {
    const name = `deleted-${++counter}`;
    const store = await createIndexedDbStore(name, { prefetch: false });
    await deleteIndexedDbMemory(name);
    await expect(store.loadAll()).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
  });

  it('refuses an empty memory name with VALIDATION_FAILED', async () => {
    await expect(createIndexedDbStore('')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
