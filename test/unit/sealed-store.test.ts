/**
 * Encryption at rest: the shared storage contract on the sealed store (over the memory store and
 * over the Node SQLite store on a real database file), the typed errors for a wrong or missing
 * key, the raw database bytes holding none of a memory's words, and export/import/forget working
 * through an encrypted memory.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError } from '../../src/errors.js';
import type { StoredItem } from '../../src/records.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { StorageAdapter, StoreBatch } from '../../src/store/port.js';
import { checkEncryption, createSealedStore, SEAL_META, type EncryptionOptions } from '../../src/store/sealed-store.js';
import { createSqliteStore } from '../../src/store/sqlite-store.js';
import { serveEncryption } from '../../src/store/encryption-source.js';
import { cipherPath, useWebCryptoOnly } from '../../src/store/seal-cipher.js';
import { fact } from '../support/storage-contract-cases.js';
import { defineStorageContract } from '../support/storage-contract.js';
import { MINUTE, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
const OTHER_KEY = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
const LOW = { iterations: 100_000 }; // the floor: keeps passphrase tests quick
const embedder = hashEmbedderDouble(64);
// The sealed store writes JSON before sealing: a BigInt is what it cannot store.
const poison = (item: StoredItem) => ({ ...item, big: 10n }) as unknown as StoredItem;

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; reason: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (!isMemoryError(error)) throw error;
    return { code: error.code, reason: (error.details as { reason?: unknown } | undefined)?.reason };
  }
  throw new Error('expected a rejection');
}

defineStorageContract('sealed over the memory store', {
  persistent: false,
  poison,
  async fresh() {
    let store: StorageAdapter | null = null;
    return {
      async open() {
        return (store ??= await createSealedStore(createMemoryStore(), { key: KEY }));
      },
      async dispose() {},
    };
  },
});

defineStorageContract('sealed over the Node SQLite store', {
  persistent: true,
  poison,
  async fresh() {
    const dir = await mkdtemp(join(tmpdir(), 'engram-sealed-contract-'));
    return {
      open: async () => createSealedStore(await createSqliteStore(dir), { key: KEY }),
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  },
});

/** Every file of the data directory (database, WAL, journal) as one latin1 string, for grepping raw bytes. */
async function rawBytes(dir: string): Promise<string> {
  const names = await readdir(dir);
  const parts = await Promise.all(names.map((n) => readFile(join(dir, n)).catch(() => Buffer.alloc(0))));
  return Buffer.concat(parts).toString('latin1');
}

/** A memory with distinctive words in every place user content lives: messages, records, a profile, knowledge, a buffer. */
async function fill(memory: Memory): Promise<void> {
  await remember(memory, 'chat-1', [
    said('zephyrine', 'I keep my grandmother’s xylocarp recipe in the quinceberry tin.', MONDAY_9AM),
    replied('aide', 'Noted, the xylocarp recipe lives in the quinceberry tin.', MONDAY_9AM + MINUTE),
  ]);
  await memory.upsertProfile({ user_id: 'zephyrine', profile_data: { likes: ['marzipanoid sculptures'] } });
  await memory.upsertKnowledge({ user_id: 'zephyrine', id: 'vaultcode-id', title: 'Bramblewick door', content: 'The Bramblewick door code is kumquatorium.' });
  await memory.add({ session_id: 'chat-2', messages: [said('zephyrine', 'Remind me about the plumbusqueen invoice.', MONDAY_9AM + 2 * MINUTE)] });
}
const WORDS = ['xylocarp', 'quinceberry', 'marzipanoid', 'Bramblewick', 'kumquatorium', 'plumbusqueen', 'zephyrine', 'vaultcode'];

describe('sealed store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engram-sealed-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the SQLite files hold none of the words or ids; the key opens them again', async () => {
    const plainDir = join(dir, 'plain');
    const sealedDir = join(dir, 'sealed');
    for (const [where, encryption] of [[plainDir, undefined], [sealedDir, { key: KEY }]] as const) {
      const memory = await createMemory({ store: await createSqliteStore(where), embedder, ...(encryption ? { encryption } : {}) });
      await fill(memory);
      await memory.close();
    }
    // The control: the same writes without a key do leave the words in the files.
    const plain = await rawBytes(plainDir);
    for (const word of WORDS) expect(plain, word).toContain(word);
    const sealed = await rawBytes(sealedDir);
    for (const word of WORDS) expect(sealed, word).not.toContain(word);
    expect(sealed).not.toContain('pf:'); // a profile's storage id names its owner

    const again = await createMemory({ store: await createSqliteStore(sealedDir), embedder, encryption: { key: KEY } });
    const { data } = await again.search({ user_id: 'zephyrine', query: 'xylocarp recipe', method: 'hybrid', include_profile: true });
    expect(JSON.stringify(data.episodes)).toContain('quinceberry tin');
    expect(JSON.stringify(data.profiles)).toContain('marzipanoid');
    const buffered = await again.search({ user_id: 'zephyrine', query: 'invoice', filters: { session_id: 'chat-2' } });
    expect(JSON.stringify(buffered.data.unprocessed_messages)).toContain('plumbusqueen');
    const knowledge = await again.get({ user_id: 'zephyrine', memory_type: 'knowledge' });
    expect(JSON.stringify(knowledge.data)).toContain('kumquatorium');
    await again.close();
  });

  it('a wrong key, a key for a passphrase store, or no key at all is ENCRYPTION_KEY_INVALID', async () => {
    const memory = await createMemory({ store: await createSqliteStore(dir), embedder, encryption: { key: KEY } });
    await fill(memory);
    await memory.close();
    const open = async (encryption?: EncryptionOptions) => {
      const store = await createSqliteStore(dir);
      try {
        return await codeOf(createMemory({ store, embedder, ...(encryption ? { encryption } : {}) }));
      } finally {
        await store.close();
      }
    };
    expect(await open({ key: OTHER_KEY })).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'wrong_key' });
    expect(await open({ passphrase: 'guess', ...LOW })).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'key_required' });
    expect(await open()).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'key_required' });
  });

  it('a passphrase store opens with its passphrase only', async () => {
    const store = createMemoryStore();
    const sealed = await createSealedStore(store, { passphrase: 'correct horse battery staple', ...LOW });
    await sealed.commit({ put: [fact('f1')], delete: [] });
    // The header keeps the store's own rounds: opening needs no iterations option.
    const reopened = await createSealedStore(store, { passphrase: 'correct horse battery staple' });
    expect((await reopened.loadAll()).map((i) => i.id)).toEqual(['f1']);
    expect(await codeOf(createSealedStore(store, { passphrase: 'correct horse battery stapler' }))).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'wrong_key' });
    expect(await codeOf(createSealedStore(store, { key: KEY }))).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'passphrase_required' });
    expect((await store.getMeta(SEAL_META)) as { iterations: number }).toMatchObject({ source: 'passphrase', iterations: 100_000 });
  });

  it('a plain store that holds anything refuses a key, and nothing is written to it', async () => {
    const memory = await createMemory({ store: await createSqliteStore(dir), embedder });
    await fill(memory);
    await memory.close();
    const before = await rawBytes(dir);
    const store = await createSqliteStore(dir);
    expect(await codeOf(createMemory({ store, embedder, encryption: { key: KEY } }))).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'not_encrypted' });
    expect(await store.getMeta(SEAL_META)).toBeUndefined();
    expect((await store.loadAll()).length).toBeGreaterThan(0);
    await store.close();
    expect((await rawBytes(dir)).includes('xylocarp')).toBe(before.includes('xylocarp'));

    // Metadata alone (an embedder id) also marks a store as plain.
    const metaOnly = createMemoryStore();
    await metaOnly.setMeta('embedder', { id: 'm', dim: 2 });
    expect(await codeOf(createSealedStore(metaOnly, { key: KEY }))).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'not_encrypted' });
  });

  it('malformed options are VALIDATION_FAILED before anything is written', async () => {
    const store = createMemoryStore();
    for (const bad of [{ key: new Uint8Array(31) }, { passphrase: '' }, { passphrase: 'x', iterations: 1000 }, {}, { key: 'not bytes' }, { key: KEY, passphrase: 'both' }]) {
      expect((await codeOf(createSealedStore(store, bad as EncryptionOptions))).code, JSON.stringify(bad)).toBe('VALIDATION_FAILED');
    }
    const aes = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    expect((await codeOf(createSealedStore(store, { key: aes }))).code).toBe('VALIDATION_FAILED');
    expect(await store.getMeta(SEAL_META)).toBeUndefined();
  });

  it('a process joining a hosted memory is checked against its header alone', async () => {
    const sealedInner = createMemoryStore();
    await (await createSealedStore(sealedInner, { key: KEY })).commit({ put: [fact('f1')], delete: [] });
    await expect(checkEncryption(sealedInner, { key: KEY })).resolves.toBeUndefined();
    expect(await codeOf(checkEncryption(sealedInner, { key: OTHER_KEY }))).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'wrong_key' });
    expect(await codeOf(checkEncryption(sealedInner, undefined))).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'key_required' });
    const plain = createMemoryStore();
    await expect(checkEncryption(plain, undefined)).resolves.toBeUndefined();
    expect(await codeOf(checkEncryption(plain, { key: KEY }))).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'not_encrypted' });
    expect(await plain.getMeta(SEAL_META)).toBeUndefined();
  });

  it('deletes reach items loaded by another instance, and a deleted id can be written again', async () => {
    const inner = createMemoryStore();
    await (await createSealedStore(inner, { key: KEY })).commit({ put: [fact('a'), fact('b'), fact('c')], delete: [] });
    const reopened = await createSealedStore(inner, { key: KEY });
    expect((await reopened.loadAll()).length).toBe(3);
    await reopened.commit({ put: [], delete: ['a', 'never-stored'] });
    const fresh = await createSealedStore(inner, { key: KEY });
    await fresh.commit({ put: [], delete: ['b'] }); // an instance that never loaded: ids are hashed on demand
    expect((await fresh.loadAll()).map((i) => i.id)).toEqual(['c']);
    await reopened.commit({ put: [fact('a', 'again')], delete: [] });
    expect((await inner.loadAll()).length).toBe(2);
    expect(((await fresh.loadAll()).find((i) => i.id === 'a') as { content: string }).content).toBe('again');
  });

  it('node:crypto and WebCrypto write the same envelopes: each opens what the other sealed', async () => {
    expect(cipherPath()).toBe('node:crypto');
    try {
      for (const [writer, reader] of [[true, false], [false, true]] as const) {
        const inner = createMemoryStore();
        useWebCryptoOnly(writer);
        const sealed = await createSealedStore(inner, { key: KEY });
        await sealed.commit({ put: [fact('f1'), fact('f2', 'x'.repeat(5000))], delete: [] });
        await sealed.setMeta('embedder', { id: 'm', dim: 3 });
        useWebCryptoOnly(reader);
        expect(cipherPath()).toBe(reader ? 'webcrypto' : 'node:crypto');
        const other = await createSealedStore(inner, { key: KEY });
        expect((await other.loadAll()).sort((a, b) => a.id.localeCompare(b.id))).toEqual([fact('f1'), fact('f2', 'x'.repeat(5000))]);
        expect(await other.getMeta('embedder')).toEqual({ id: 'm', dim: 3 });
        await other.commit({ put: [], delete: ['f1'] });
        expect((await inner.loadAll()).length).toBe(1);
        expect(await codeOf(createSealedStore(inner, { key: OTHER_KEY }))).toEqual({ code: 'ENCRYPTION_KEY_INVALID', reason: 'wrong_key' });
      }
    } finally {
      useWebCryptoOnly(false);
    }
  });

  it('an HKDF CryptoKey works like its raw bytes', async () => {
    const store = createMemoryStore();
    const hkdf = await crypto.subtle.importKey('raw', KEY, 'HKDF', false, ['deriveKey']);
    const sealed = await createSealedStore(store, { key: hkdf });
    await sealed.commit({ put: [fact('f1')], delete: [] });
    expect((await (await createSealedStore(store, { key: KEY })).loadAll()).map((i) => i.id)).toEqual(['f1']);
  });

  it('an envelope moved to another id, an altered one or a plain item is STORAGE_CORRUPT, not data', async () => {
    const store = createMemoryStore();
    const sealed = await createSealedStore(store, { key: KEY });
    await sealed.commit({ put: [fact('a'), fact('b')], delete: [] });
    const [x, y] = (await store.loadAll()) as unknown as { id: string; sealed: string }[];
    const swapped = [{ ...x!, sealed: y!.sealed }, { ...y!, sealed: x!.sealed }] as unknown as StoredItem[];
    await store.commit({ put: swapped, delete: [] });
    expect(await codeOf(sealed.loadAll())).toMatchObject({ code: 'STORAGE_CORRUPT', reason: 'unsealable_item' });

    const flipped = createMemoryStore();
    const s2 = await createSealedStore(flipped, { key: KEY });
    await s2.commit({ put: [fact('a')], delete: [] });
    const [env] = (await flipped.loadAll()) as unknown as { id: string; sealed: string }[];
    const chars = env!.sealed.split('');
    chars[30] = chars[30] === 'A' ? 'B' : 'A';
    await flipped.commit({ put: [{ ...env!, sealed: chars.join('') } as unknown as StoredItem], delete: [] });
    expect(await codeOf(s2.loadAll())).toMatchObject({ code: 'STORAGE_CORRUPT', reason: 'unsealable_item' });

    const mixed = createMemoryStore();
    const s3 = await createSealedStore(mixed, { key: KEY });
    await mixed.commit({ put: [fact('plain')], delete: [] });
    expect(await codeOf(s3.loadAll())).toMatchObject({ code: 'STORAGE_CORRUPT', reason: 'unsealed_item' });
    await mixed.setMeta('embedder', { id: 'plain' });
    expect(await codeOf(s3.getMeta('embedder'))).toMatchObject({ code: 'STORAGE_CORRUPT', reason: 'unsealed_meta' });
  });

  it('metadata values are sealed; the header is the only clear one and is not reachable through the sealed store', async () => {
    const store = createMemoryStore();
    const sealed = await createSealedStore(store, { key: KEY });
    await sealed.setMeta('embedder', { id: 'secret-model-name', dim: 8 });
    expect(JSON.stringify(await store.getMeta('embedder'))).not.toContain('secret-model-name');
    expect(await sealed.getMeta('embedder')).toEqual({ id: 'secret-model-name', dim: 8 });
    expect(await sealed.getMeta(SEAL_META)).toBeUndefined();
    expect((await codeOf(sealed.setMeta(SEAL_META, {}))).code).toBe('VALIDATION_FAILED');
  });

  it('export, import into another key, and forgetting work through an encrypted memory; a forget purges', async () => {
    const batches: StoreBatch[] = [];
    const spy = (inner: StorageAdapter): StorageAdapter => ({ ...inner, kind: inner.kind, loadAll: () => inner.loadAll(), getMeta: (k) => inner.getMeta(k), setMeta: (k, v) => inner.setMeta(k, v), close: () => inner.close(), commit: (b) => (batches.push(b), inner.commit(b)) });
    const memory = await createMemory({ store: spy(await createSqliteStore(join(dir, 'a'))), embedder, encryption: { key: KEY } });
    await fill(memory);
    const bundle = await memory.export();
    expect(JSON.stringify(bundle)).toContain('xylocarp');

    const copy = await createMemory({ store: await createSqliteStore(join(dir, 'b')), embedder, encryption: { passphrase: 'another', ...LOW } });
    const { imported } = await copy.import(bundle);
    expect(imported).toBe(bundle.items.length);
    const found = await copy.search({ user_id: 'zephyrine', query: 'xylocarp', method: 'keyword' });
    expect(JSON.stringify(found.data)).toContain('quinceberry');
    await copy.close();

    // What the user's envelopes look like on disk before the forget: afterwards none may remain.
    const before = await rawBytes(join(dir, 'a'));
    const { data } = await memory.delete({ user_id: 'zephyrine' });
    expect(data.deleted_count).toBeGreaterThan(0);
    const forget = batches.at(-1)!;
    expect(forget.purge).toBe(true);
    expect(forget.delete.every((id) => id.startsWith('s:'))).toBe(true);
    const gone = await memory.search({ user_id: 'zephyrine', query: 'xylocarp', method: 'keyword' });
    expect(gone.data.episodes ?? []).toEqual([]);
    await memory.close();

    const reopened = await createMemory({ store: await createSqliteStore(join(dir, 'a')), embedder, encryption: { key: KEY } });
    expect((await reopened.get({ user_id: 'zephyrine', memory_type: 'episode' })).data.episodes).toEqual([]);
    await reopened.close();
    const after = await rawBytes(join(dir, 'a'));
    for (const id of forget.delete) {
      expect(before, id).toContain(id);
      expect(after, id).not.toContain(id);
    }
  });
});

describe('the Node server’s passphrase', () => {
  it('comes from --passphrase-file (one trailing line break dropped) or ENGRAM_PASSPHRASE; neither means a plain memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engram-passphrase-'));
    try {
      const file = join(dir, 'pass');
      await writeFile(file, 'two words\n');
      expect(await serveEncryption(['--port', '0', '--passphrase-file', file], { ENGRAM_PASSPHRASE: 'env' })).toEqual({ encryption: { passphrase: 'two words' } });
      expect(await serveEncryption(['--data', dir], { ENGRAM_PASSPHRASE: 'from env' })).toEqual({ encryption: { passphrase: 'from env' } });
      expect(await serveEncryption(['--data', dir], {})).toEqual({});
      // A source that is named but unusable stops the server instead of opening the memory in clear.
      await writeFile(file, '\n');
      await expect(serveEncryption(['--passphrase-file', file], {})).rejects.toThrow(/empty/);
      await expect(serveEncryption(['--passphrase-file', join(dir, 'missing')], {})).rejects.toThrow(/cannot read/);
      await expect(serveEncryption([], { ENGRAM_PASSPHRASE: '' })).rejects.toThrow(/empty/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
