/**
 * The cases of the storage contract, as plain async functions with their own assertions, so the
 * same code runs under vitest in Node and inside a Chromium page (bundled with the page; vitest's
 * `expect` does not run there). `storage-contract.ts` turns them into vitest tests.
 */
import { isMemoryError } from '../../src/errors.js';
import type { AtomicFactRecord, BufferedMessage, GraphEntityItem, GraphRelationItem, KnowledgeRecord, StoredItem } from '../../src/records.js';
import type { StorageAdapter } from '../../src/store/port.js';

/** One place data can live; `open` may be called again after `close` to reopen the same data. */
export interface StorageLocation {
  open(): Promise<StorageAdapter>;
  /** Removes whatever the location left behind. */
  dispose(): Promise<void>;
}

/** How the contract reaches one adapter. */
export interface StorageTarget {
  /** A new, empty location. */
  fresh(): Promise<StorageLocation>;
  /** The item made unstorable for this adapter (e.g. a function for structured clone, a BigInt for JSON). */
  poison(item: StoredItem): StoredItem;
  /** False for stores whose data lives only as long as the store object (the memory store). */
  persistent: boolean;
}

export interface StorageCase {
  name: string;
  /** Runs only against persistent targets. */
  persistentOnly?: boolean;
  run(target: StorageTarget): Promise<void>;
}

/** Thrown by the contract's assertions. */
export class ContractFailure extends Error {
  override readonly name = 'ContractFailure';
}

function fail(message: string): never {
  throw new ContractFailure(message);
}

/** A path of the first difference between two values, or null when they are equal (typed arrays by bit pattern). */
export function difference(actual: unknown, expected: unknown, path = '$'): string | null {
  if (Object.is(actual, expected)) return null;
  if (expected instanceof Float32Array) {
    if (!(actual instanceof Float32Array)) return `${path}: expected a Float32Array, got ${describe(actual)}`;
    if (actual.length !== expected.length) return `${path}: length ${actual.length} ≠ ${expected.length}`;
    const a = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
    const e = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
    for (let i = 0; i < e.length; i++) if (a[i] !== e[i]) return `${path}[${i}]: ${actual[i]} ≠ ${expected[i]}`;
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${describe(actual)}`;
    if (actual.length !== expected.length) return `${path}: length ${actual.length} ≠ ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = difference(actual[i], expected[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return `${path}: expected an object, got ${describe(actual)}`;
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of keys) {
      const d = difference((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${path}.${key}`);
      if (d) return d;
    }
    return null;
  }
  return `${path}: ${describe(actual)} ≠ ${describe(expected)}`;
}

function describe(value: unknown): string {
  if (value instanceof Float32Array) return `Float32Array(${value.length})`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function assertEqual(actual: unknown, expected: unknown, what: string): void {
  const d = difference(actual, expected);
  if (d) fail(`${what}: ${d}`);
}

async function assertRejects(promise: Promise<unknown>, codes: readonly string[], what: string): Promise<void> {
  let outcome: unknown;
  try {
    await promise;
  } catch (error) {
    outcome = error;
  }
  if (outcome === undefined) fail(`${what}: expected a rejection with ${codes.join(' or ')}, it resolved`);
  if (!isMemoryError(outcome)) fail(`${what}: expected a MemoryError, got ${String((outcome as { name?: unknown })?.name)}: ${String((outcome as { message?: unknown })?.message)}`);
  if (!codes.includes(outcome.code)) fail(`${what}: expected ${codes.join(' or ')}, got ${outcome.code} (${outcome.message})`);
}

const byId = (items: StoredItem[]) => [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

const SCOPE = { app_id: 'default', project_id: 'default', owner_type: 'user' as const, owner_id: 'u1' };

/** A vector with values that a lossy encoding would change: tiny, negative zero, non-round fractions. */
function awkwardVector(seed: number): Float32Array {
  const v = new Float32Array(16);
  for (let i = 0; i < v.length; i++) v[i] = Math.sin(seed * 7.13 + i) / 3;
  v[0] = -0;
  v[1] = 1.1754943508222875e-38; // smallest normal float32
  v[2] = 3.4028234663852886e38; // largest float32
  return v;
}

export function fact(id: string, content = `fact ${id}`): AtomicFactRecord {
  return {
    ...SCOPE, id, kind: 'atomic_fact', session_id: 's1', timestamp: 1_700_000_000_000, created_at: 1_700_000_000_001, updated_at: 1_700_000_000_002,
    sender_ids: ['u1'], source_message_ids: ['m1'], parent_type: null, parent_id: null,
    vector: awkwardVector(id.length + id.charCodeAt(id.length - 1)), vector_model: 'contract@1', content, evidence: `I said ${content}`,
  };
}

function knowledge(id: string): KnowledgeRecord {
  return {
    ...SCOPE, id, kind: 'knowledge', session_id: null, timestamp: 1, created_at: 2, updated_at: 3, sender_ids: [], source_message_ids: [],
    parent_type: null, parent_id: null, vector: null, vector_model: null, title: 'Ünïcödé 東京 🚀', content: 'line\nbreak "quotes" \\ backslash', source: null,
  };
}

function message(id: string, seq: number): BufferedMessage {
  return {
    kind: 'message', id, app_id: 'default', project_id: 'default', session_id: 's1', seq, sender_id: 'u1', sender_name: null, role: 'user',
    timestamp: 1_700_000_000_000 + seq, content: [{ type: 'text', text: `hello ${seq}` }], tool_calls: [{ name: 'x', args: { deep: [1, null, true] } }],
    tool_call_id: null, message_id: `client-${seq}`,
  } as BufferedMessage;
}

function entity(entity_id: string, aliases: string[] = []): GraphEntityItem {
  return {
    ...SCOPE, kind: 'graph_entity', id: `ge:default/default/user/u1/${entity_id}`, entity_id, name: 'Pixel 東京', type: 'animal', aliases,
    session_ids: ['s1'], timestamp: 1_700_000_000_000, updated_at: 1_700_000_000_001, vector: null,
  };
}

function relation(id: string, superseded_at: number | null = null): GraphRelationItem {
  return {
    ...SCOPE, kind: 'graph_relation', id, subject: 'user:u1', predicate: 'has_pet', object: 'e:pixel', fact_id: 'f1', session_id: 's1',
    source_message_ids: ['m1'], valid_from: 1_700_000_000_000, superseded_at, timestamp: 1_700_000_000_000, updated_at: 1_700_000_000_002, vector: null,
  };
}

/** Opens a fresh location, runs `body`, and always closes and disposes. */
async function withStore(target: StorageTarget, body: (store: StorageAdapter, location: StorageLocation) => Promise<StorageAdapter | void>): Promise<void> {
  const location = await target.fresh();
  let store: StorageAdapter | undefined;
  try {
    store = await location.open();
    store = (await body(store, location)) ?? store;
  } finally {
    await store?.close().catch(() => undefined);
    await location.dispose();
  }
}

export const STORAGE_CONTRACT_CASES: StorageCase[] = [
  {
    name: 'an empty store loads nothing and has no metadata',
    async run(target) {
      await withStore(target, async (store) => {
        assertEqual(await store.loadAll(), [], 'loadAll');
        assertEqual(await store.getMeta('embedder'), undefined, 'getMeta');
        if (typeof store.kind !== 'string' || store.kind === '') fail('kind must name the adapter');
      });
    },
  },
  {
    name: 'commit puts and deletes, and vectors come back bit for bit',
    async run(target) {
      await withStore(target, async (store) => {
        const items: StoredItem[] = [fact('f1'), fact('f2'), knowledge('k1'), message('m1', 0), message('m2', 1)];
        await store.commit({ put: items, delete: [] });
        const loaded = byId(await store.loadAll());
        assertEqual(loaded, byId(items), 'after put');
        const vector = (loaded.find((i) => i.id === 'f1') as AtomicFactRecord).vector;
        if (!(vector instanceof Float32Array)) fail('a vector must load as a Float32Array');

        const changed = { ...fact('f1', 'changed'), updated_at: 9 };
        await store.commit({ put: [changed], delete: ['m1', 'f2', 'never-stored'] });
        assertEqual(byId(await store.loadAll()), byId([changed, knowledge('k1'), message('m2', 1)]), 'after update and delete');

        await store.commit({ put: [], delete: [] });
        assertEqual((await store.loadAll()).length, 3, 'an empty batch changes nothing');
      });
    },
  },
  {
    name: 'stored items are copies: changing the caller’s objects changes nothing stored',
    async run(target) {
      await withStore(target, async (store) => {
        const item = fact('f1');
        await store.commit({ put: [item], delete: [] });
        item.content = 'mutated after commit';
        item.vector![3] = 42;
        const first = (await store.loadAll())[0] as AtomicFactRecord;
        assertEqual(first, fact('f1'), 'after mutating the committed object');
        first.content = 'mutated after load';
        assertEqual((await store.loadAll())[0], fact('f1'), 'after mutating a loaded object');
      });
    },
  },
  {
    name: 'keys a client wrote are kept as keys, "__proto__" and "constructor" among them',
    async run(target) {
      await withStore(target, async (store) => {
        // Parsed, as a request body is: "__proto__" is then an own key, not the object's prototype.
        const item = { ...fact('f1'), metadata: JSON.parse('{"__proto__":"p","constructor":{"toString":"t"},"plain":1}') } as AtomicFactRecord;
        await store.commit({ put: [item], delete: [] });
        const loaded = (await store.loadAll())[0] as AtomicFactRecord;
        assertEqual(Object.keys(loaded.metadata ?? {}), ['__proto__', 'constructor', 'plain'], 'the keys after loading');
        assertEqual(loaded, item, 'the item after loading');
        if (Object.getPrototypeOf(loaded.metadata) !== Object.prototype) fail('a stored "__proto__" key must not become the prototype');
      });
    },
  },
  {
    name: 'a batch with one unstorable item fails as a whole and the store stays usable',
    async run(target) {
      await withStore(target, async (store) => {
        await store.commit({ put: [fact('a'), fact('b')], delete: [] });
        const batch = { put: [fact('c'), target.poison(fact('d')), fact('e')], delete: ['a'] };
        await assertRejects(store.commit(batch), ['STORAGE_FAILED', 'QUOTA_EXCEEDED'], 'commit of a poisoned batch');
        assertEqual(byId(await store.loadAll()), [fact('a'), fact('b')], 'after the failed batch');
        await store.commit({ put: [fact('c')], delete: ['a'] });
        assertEqual(byId(await store.loadAll()), [fact('b'), fact('c')], 'a later batch');
      });
    },
  },
  {
    name: 'a failed batch leaves nothing behind after reopening',
    persistentOnly: true,
    async run(target) {
      await withStore(target, async (store, location) => {
        await store.commit({ put: [fact('a')], delete: [] });
        await assertRejects(store.commit({ put: [fact('b'), target.poison(fact('c'))], delete: ['a'] }), ['STORAGE_FAILED', 'QUOTA_EXCEEDED'], 'poisoned commit');
        await store.close();
        const again = await location.open();
        assertEqual(await again.loadAll(), [fact('a')], 'after reopening');
        return again;
      });
    },
  },
  {
    name: 'metadata is set, read back as a copy and overwritten',
    async run(target) {
      await withStore(target, async (store) => {
        const value = { id: 'model@1', dim: 128, nested: { list: [1, 2, 3] } };
        await store.setMeta('embedder', value);
        value.nested.list.push(4);
        assertEqual(await store.getMeta('embedder'), { id: 'model@1', dim: 128, nested: { list: [1, 2, 3] } }, 'getMeta');
        await store.setMeta('embedder', { id: 'model@2', dim: 64 });
        await store.setMeta('other', 'text');
        assertEqual(await store.getMeta('embedder'), { id: 'model@2', dim: 64 }, 'overwritten');
        assertEqual(await store.getMeta('other'), 'text', 'second key');
        assertEqual(await store.loadAll(), [], 'metadata is not an item');
      });
    },
  },
  {
    name: 'a closed store refuses every call with CLOSED, and closing twice is harmless',
    async run(target) {
      await withStore(target, async (store) => {
        await store.commit({ put: [fact('a')], delete: [] });
        await store.close();
        await store.close();
        await assertRejects(store.loadAll(), ['CLOSED'], 'loadAll after close');
        await assertRejects(store.commit({ put: [fact('b')], delete: [] }), ['CLOSED'], 'commit after close');
        await assertRejects(store.getMeta('x'), ['CLOSED'], 'getMeta after close');
        await assertRejects(store.setMeta('x', 1), ['CLOSED'], 'setMeta after close');
      });
    },
  },
  {
    name: 'entity graph items (entities, relations) are stored, updated and deleted like records, and survive reopening',
    async run(target) {
      await withStore(target, async (store, location) => {
        const items: StoredItem[] = [fact('f1'), entity('e:pixel', ["u1's cat"]), entity('user:u1'), relation('r1'), relation('r2')];
        await store.commit({ put: items, delete: [] });
        assertEqual(byId(await store.loadAll()), byId(items), 'after put');
        const merged = entity('e:pixel', ["u1's cat", 'the grey tabby']);
        const superseded = relation('r1', 1_700_000_100_000);
        await store.commit({ put: [merged, superseded], delete: ['r2', entity('user:u1').id] });
        const expected = byId([fact('f1'), merged, superseded]);
        assertEqual(byId(await store.loadAll()), expected, 'after merging, superseding and deleting');
        if (!target.persistent) return;
        await store.close();
        const again = await location.open();
        assertEqual(byId(await again.loadAll()), expected, 'after reopening');
        return again;
      });
    },
  },
  {
    name: 'a reopened store sees every committed batch and its metadata',
    persistentOnly: true,
    async run(target) {
      await withStore(target, async (store, location) => {
        const many = Array.from({ length: 1500 }, (_, i) => fact(`bulk-${String(i).padStart(4, '0')}`));
        await store.commit({ put: many, delete: [] });
        await store.commit({ put: [knowledge('k1'), message('m1', 0)], delete: ['bulk-0000'] });
        await store.setMeta('embedder', { id: 'model@1', dim: 16 });
        await store.close();
        const again = await location.open();
        const loaded = byId(await again.loadAll());
        assertEqual(loaded, byId([...many.slice(1), knowledge('k1'), message('m1', 0)]), 'after reopening');
        assertEqual(await again.getMeta('embedder'), { id: 'model@1', dim: 16 }, 'metadata after reopening');
        await again.commit({ put: [fact('late')], delete: [] });
        assertEqual((await again.loadAll()).length, loaded.length + 1, 'the reopened store takes writes');
        return again;
      });
    },
  },
];

/** Runs one case by name (the browser page uses this). */
export async function runStorageCase(name: string, target: StorageTarget): Promise<void> {
  const found = STORAGE_CONTRACT_CASES.find((c) => c.name === name);
  if (!found) fail(`no storage contract case named "${name}"`);
  await found.run(target);
}
