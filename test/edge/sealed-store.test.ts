/**
 * Encryption at rest on the edge: the shared storage contract on the sealed store over real
 * Durable Object SQLite storage, and the memory object with ENGRAM_ENCRYPTION_KEY set — its
 * SQLite rows hold none of the words a memory was given, the same secret opens them again, and
 * no secret (or a malformed one) is refused with ENCRYPTION_KEY_INVALID.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { StoredItem } from '../../src/records.js';
import type { DurableSqlStorage } from '../../src/store/durable-object-store.js';
import { cipherPath } from '../../src/store/seal-cipher.js';
import { createSealedStore } from '../../src/store/sealed-store.js';
import { bytesToBase64 } from '../../src/store/serialize.js';
import { TENANCY_HEADER } from '../../worker/auth.js';
import type { EdgeEnv, MemoryObjectState } from '../../worker/edge-env.js';
import { MemoryObject } from '../../worker/memory-object.js';
import { defineStorageContract } from '../support/storage-contract.js';
import { conversation, openStoreInside } from './helpers.js';

const namespace = env['MEMORY'] as { idFromName(name: string): object; get(id: object): unknown };
const KEY = Uint8Array.from({ length: 32 }, (_, i) => (i * 13 + 5) & 255);
const SECRET = bytesToBase64(KEY);
let objects = 0;

// The sealed store writes JSON before sealing: a BigInt is what it cannot store.
defineStorageContract('sealed over Durable Object SQLite', {
  persistent: true,
  poison: (item: StoredItem) => ({ ...item, big: 10n }) as unknown as StoredItem,
  async fresh() {
    const stub = namespace.get(namespace.idFromName(`sealed-contract/${++objects}`));
    return { open: async () => createSealedStore(await openStoreInside(stub), { key: KEY }), dispose: async () => {} };
  },
});

const WORDS = ['xylocarp', 'quinceberry', 'marzipanoid', 'kumquatorium', 'zephyrine'];

/** Calls a memory object made here (not the pool's own instance) with the env given, inside the object named `name`. */
function withObject<R>(name: string, extra: Partial<EdgeEnv>, fn: (call: (route: string, body: object) => Promise<Response>, storage: DurableSqlStorage) => Promise<R>): Promise<R> {
  return runInDurableObject(namespace.get(namespace.idFromName(name)), async (_instance: unknown, state) => {
    const object = new MemoryObject(state as unknown as MemoryObjectState, { ...(env as unknown as EdgeEnv), ...extra });
    const call = (route: string, body: object) => object.fetch(new Request(`https://engram.test/api/v1/memory/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [TENANCY_HEADER]: name },
      body: JSON.stringify({ app_id: name.split('/')[0], project_id: name.split('/')[1], ...body }),
    }));
    return fn(call, state.storage as DurableSqlStorage);
  });
}

async function fill(call: (route: string, body: object) => Promise<Response>): Promise<void> {
  const steps: [string, object][] = [
    ['add', conversation('chat', 'zephyrine', 'aide', ['I keep the xylocarp recipe in the quinceberry tin.', 'Noted.'])],
    ['flush', { session_id: 'chat' }],
    ['profile', { user_id: 'zephyrine', profile_data: { likes: ['marzipanoid sculptures'] } }],
    ['knowledge', { user_id: 'zephyrine', title: 'Door', content: 'The door code is kumquatorium.' }],
  ];
  for (const [route, body] of steps) {
    const response = await call(route, body);
    expect(response.status, `${route}: ${await response.clone().text()}`).toBe(200);
  }
}

/** Every row of the object's tables as text (BLOBs as latin1), for grepping raw storage. */
function rawRows(storage: DurableSqlStorage): string {
  const out: string[] = [];
  for (const table of ['engram_items', 'engram_meta']) {
    for (const row of storage.sql.exec(`SELECT * FROM ${table}`)) {
      for (const value of Object.values(row)) out.push(value instanceof ArrayBuffer ? String.fromCharCode(...new Uint8Array(value)) : String(value));
    }
  }
  return out.join('\n');
}

describe('sealed Durable Object memory', () => {
  it('seals through WebCrypto here (node:crypto is the Node path only)', () => {
    expect(cipherPath()).toBe('webcrypto');
  });

  it('with ENGRAM_ENCRYPTION_KEY the rows hold none of the words; the secret opens them, no secret is refused', async () => {
    const name = 'vault/one';
    await withObject('vault/control', {}, async (call, storage) => {
      await fill(call);
      // The control: without the secret the words are in the rows, so the check below can fail.
      for (const word of WORDS) expect(rawRows(storage)).toContain(word);
    });
    await withObject(name, { ENGRAM_ENCRYPTION_KEY: SECRET }, async (call, storage) => {
      await fill(call);
      const raw = rawRows(storage);
      expect(raw.length).toBeGreaterThan(1000);
      for (const word of WORDS) expect(raw).not.toContain(word);
    });
    // A new instance (as after an eviction) with the same secret finds everything again.
    await withObject(name, { ENGRAM_ENCRYPTION_KEY: ` ${SECRET}\n` }, async (call) => {
      const response = await call('search', { user_id: 'zephyrine', query: 'xylocarp recipe', method: 'hybrid', include_profile: true });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).toContain('quinceberry');
      expect(text).toContain('marzipanoid');
    });
    for (const secret of [undefined, bytesToBase64(KEY.map((b) => b ^ 1)), 'not-a-key']) {
      await withObject(name, secret === undefined ? {} : { ENGRAM_ENCRYPTION_KEY: secret }, async (call) => {
        const response = await call('search', { user_id: 'zephyrine', query: 'xylocarp' });
        expect(response.status, String(secret)).toBe(403);
        expect(await response.text()).not.toContain('quinceberry');
      });
    }
  });
});
