/**
 * Encryption at rest as a decorator over the storage port, so every platform's store (memory,
 * SQLite, IndexedDB, Durable Object) is sealed by the same code and the engine sees plain items.
 *
 * Each item is stored as an envelope `{ id, kind: 'sealed', vector: null, sealed }`. Its `id` is
 * a storage id, an HMAC of the item's id under a key of the store (seal-keys.ts): deterministic,
 * so the engine's deletes by id still reach it, yet opaque, because ids are not secret-free (a
 * profile's id names its owner, caller-chosen ids are scoped by app and project). Everything else
 * — the real id, text, profile data, metadata fields and the vector's bytes — is one AES-256-GCM
 * ciphertext under a fresh 96-bit IV, with the storage id as additional authenticated data so an
 * envelope moved to another id does not open. Envelopes carry `vector: null` and no message
 * fields, so each inner store keeps them as it keeps a record without a vector.
 *
 * Metadata: every value is sealed (with its key as additional data), the embedder's id included;
 * the one clear value is the header under SEAL_META (salt, KDF parameters, the key check), which
 * holds no user content. A store is either wholly sealed or wholly plain: opening a plain store
 * that holds anything with a key, or a sealed one without (`refuseIfSealed`), is
 * ENCRYPTION_KEY_INVALID; an item or value that does not open under a key that passed the check
 * is STORAGE_CORRUPT. Nothing is ever mixed or skipped silently.
 */
import { createError, isMemoryError, MemoryError, wrapError } from '../errors.js';
import type { StoredItem } from '../records.js';
import type { StorageAdapter, StoreBatch } from './port.js';
import { fromBase64, openBytes, sealBytes, toBase64 } from './seal-cipher.js';
import { checkEncryptionOptions, keysForHeader, newHeader, storageId, type EncryptionOptions, type SealKeys } from './seal-keys.js';

export type { EncryptionOptions } from './seal-keys.js';

/** The metadata key of the clear header that marks a store as sealed. */
export const SEAL_META = 'engram.sealed';
/** Metadata a plain store gets on its first open (written by src/write/reembed.ts): a store holding it is not new. */
const PLAIN_META_PROBES = ['embedder'];

/** What a sealed item looks like to the inner store. */
interface Envelope {
  /** The storage id (`storageId`), not the item's own. */
  id: string;
  kind: 'sealed';
  vector: null;
  /** Base64 of IV ‖ ciphertext ‖ tag. */
  sealed: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const itemAad = (id: string) => encoder.encode(`item:${id}`);
const metaAad = (key: string) => encoder.encode(`meta:${key}`);

/**
 * The plain bytes of an item: a flag byte, then either its JSON (flag 0), or (flag 1) the JSON's
 * byte length (u32 little-endian), the JSON with `vector: null`, and the vector's float32 bytes —
 * raw bytes rather than base64 inside JSON, so every bit (−0, subnormals) survives and nothing grows.
 */
function encodeItem(item: StoredItem): Uint8Array {
  const vector = item.kind !== 'message' && item.vector instanceof Float32Array ? item.vector : null;
  const json = encoder.encode(JSON.stringify(vector ? { ...item, vector: null } : item));
  if (!vector) {
    const out = new Uint8Array(1 + json.length);
    out.set(json, 1);
    return out;
  }
  const out = new Uint8Array(5 + json.length + vector.byteLength);
  out[0] = 1;
  new DataView(out.buffer).setUint32(1, json.length, true);
  out.set(json, 5);
  out.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), 5 + json.length);
  return out;
}

function decodeItem(bytes: Uint8Array): StoredItem {
  if (bytes[0] === 0) return JSON.parse(decoder.decode(bytes.subarray(1))) as StoredItem;
  if (bytes[0] !== 1 || bytes.length < 5) throw new Error('unknown item encoding');
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(1, true);
  const item = JSON.parse(decoder.decode(bytes.subarray(5, 5 + length))) as StoredItem & { vector: Float32Array | null };
  const rest = bytes.slice(5 + length); // a copy: its own, 4-aligned buffer
  if (rest.byteLength % 4 !== 0) throw new Error('vector bytes are not float32');
  item.vector = new Float32Array(rest.buffer);
  return item;
}

/**
 * `Promise.all(items.map(fn))` with at most CONCURRENCY calls pending: 10k WebCrypto calls queued
 * at once are several times slower (measured in Node: 4000 encrypts, 1.0 s all at once, 0.19 s
 * 32 at a time) than a steady few.
 */
const CONCURRENCY = 32;
async function mapLimited<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, lane));
  return out;
}

function corrupt(message: string, details: Record<string, unknown>, cause?: unknown): MemoryError {
  return createError('STORAGE_CORRUPT', { message, details, ...(cause === undefined ? {} : { cause }) });
}

function isEnvelope(value: unknown): value is Envelope {
  const e = value as Partial<Envelope> | null;
  return typeof e === 'object' && e !== null && e.kind === 'sealed' && typeof e.id === 'string' && typeof e.sealed === 'string';
}

/**
 * Wraps `inner` so that everything it keeps is sealed under `encryption`. A new (empty) store gets
 * a header; an existing one must open under the key (ENCRYPTION_KEY_INVALID otherwise).
 *
 * @example
 * const store = await createSealedStore(await createIndexedDbStore('notes'), { passphrase });
 * const memory = await createMemory({ store, embedder });
 * // or, the same: createMemory({ store: await createIndexedDbStore('notes'), encryption: { passphrase }, embedder })
 */
export async function createSealedStore(inner: StorageAdapter, encryption: EncryptionOptions): Promise<StorageAdapter> {
  const options = checkEncryptionOptions(encryption);
  const stored = await inner.getMeta(SEAL_META);
  let keys: SealKeys;
  if (stored !== undefined) {
    keys = await keysForHeader(options, stored);
  } else {
    await refuseIfNotEmpty(inner);
    const made = await newHeader(options);
    await inner.setMeta(SEAL_META, made.header);
    keys = made.keys;
  }
  const key = keys.aes;

  let closed = false;
  const ensureOpen = () => {
    if (closed) throw createError('CLOSED');
  };

  // Storage ids of the items this store has seen: a delete, an update or a re-embedding of loaded
  // items then costs no HMAC. Each pair was authenticated (the storage id is the AES-GCM AAD).
  const storageIds = new Map<string, string>();
  const idOf = async (id: string): Promise<string> => {
    let sid = storageIds.get(id);
    if (sid === undefined) storageIds.set(id, (sid = await storageId(keys, id)));
    return sid;
  };

  const seal = async (item: StoredItem): Promise<Envelope> => {
    const plain = encodeItem(item);
    const id = await idOf(item.id);
    return { id, kind: 'sealed', vector: null, sealed: toBase64(await sealBytes(key, plain, itemAad(id))) };
  };

  const open = async (raw: unknown): Promise<StoredItem> => {
    if (!isEnvelope(raw)) throw corrupt('The sealed memory holds an item that is not sealed.', { reason: 'unsealed_item', id: (raw as { id?: unknown } | null)?.id ?? null });
    let item: StoredItem;
    try {
      item = decodeItem(await openBytes(key, fromBase64(raw.sealed), itemAad(raw.id)));
    } catch (error) {
      throw corrupt(`The sealed item "${raw.id}" does not open: it was altered, damaged or moved from another id.`, { reason: 'unsealable_item', id: raw.id }, error);
    }
    storageIds.set(item.id, raw.id);
    return item;
  };

  return {
    kind: `sealed-${inner.kind}`,

    async loadAll() {
      ensureOpen();
      const raw = await inner.loadAll();
      return mapLimited(raw, open);
    },

    async commit(batch: StoreBatch) {
      ensureOpen();
      let put: Envelope[];
      let doomed: string[];
      try {
        put = await mapLimited(batch.put, seal);
        doomed = await mapLimited(batch.delete, idOf);
      } catch (error) {
        throw wrapError(error, 'STORAGE_FAILED', 'cannot seal the batch; nothing was written');
      }
      await inner.commit({ put: put as unknown as StoredItem[], delete: doomed, ...(batch.purge === undefined ? {} : { purge: batch.purge }) });
      const kept = new Set(batch.put.map((item) => item.id));
      for (const id of batch.delete) if (!kept.has(id)) storageIds.delete(id);
    },

    async getMeta(metaKey) {
      ensureOpen();
      if (metaKey === SEAL_META) return undefined; // the header belongs to this layer
      const raw = (await inner.getMeta(metaKey)) as { sealed?: unknown } | undefined;
      if (raw === undefined) return undefined;
      if (typeof raw !== 'object' || raw === null || typeof raw.sealed !== 'string') {
        throw corrupt(`The sealed memory holds a metadata value "${metaKey}" that is not sealed.`, { reason: 'unsealed_meta', key: metaKey });
      }
      try {
        return JSON.parse(decoder.decode(await openBytes(key, fromBase64(raw.sealed), metaAad(metaKey)))) as unknown;
      } catch (error) {
        throw corrupt(`The sealed metadata value "${metaKey}" does not open.`, { reason: 'unsealable_meta', key: metaKey }, error);
      }
    },

    async setMeta(metaKey, value) {
      ensureOpen();
      if (metaKey === SEAL_META) throw createError('VALIDATION_FAILED', { message: `"${SEAL_META}" is the sealed store's own metadata.`, details: [{ loc: ['key'], msg: 'reserved metadata key', type: 'value_error', input: metaKey }] });
      let sealed: string;
      try {
        const json = JSON.stringify(value);
        if (json === undefined) throw new TypeError('the value has no JSON form');
        sealed = toBase64(await sealBytes(key, encoder.encode(json), metaAad(metaKey)));
      } catch (error) {
        throw wrapError(error, 'STORAGE_FAILED', 'cannot seal the metadata value; nothing was written');
      }
      await inner.setMeta(metaKey, { sealed });
    },

    ...(inner.estimate ? { estimate: () => inner.estimate!() } : {}),

    async close() {
      closed = true;
      await inner.close();
    },
  };
}

const notSealed = () => createError('ENCRYPTION_KEY_INVALID', {
  message: 'This memory is not encrypted: it cannot be opened with a key. Export it, and import the bundle into a new encrypted memory.',
  details: { reason: 'not_encrypted' },
});

/** A store that already holds plain data must not get sealed items mixed in. */
async function refuseIfNotEmpty(inner: StorageAdapter): Promise<void> {
  for (const probe of PLAIN_META_PROBES) if ((await inner.getMeta(probe)) !== undefined) throw notSealed();
  if ((await inner.loadAll()).length > 0) throw notSealed();
}

/** Refuses a sealed store opened without a key (a plain engine would read envelopes as data). */
export async function refuseIfSealed(store: StorageAdapter): Promise<void> {
  if ((await store.getMeta(SEAL_META)) !== undefined) {
    throw createError('ENCRYPTION_KEY_INVALID', { message: 'This memory is encrypted: open it with its key or passphrase.', details: { reason: 'key_required' } });
  }
}

/**
 * Checks, without opening a memory over it, that `encryption` is what opens `store`: its key for a
 * sealed store, none for a plain one. For a process that joins a memory another one hosts (a
 * follower tab), which must not be let in with the wrong key just because it never opens the store.
 */
export async function checkEncryption(store: StorageAdapter, encryption: EncryptionOptions | undefined): Promise<void> {
  if (encryption === undefined) return refuseIfSealed(store);
  const options = checkEncryptionOptions(encryption);
  const header = await store.getMeta(SEAL_META);
  if (header === undefined) {
    throw notSealed();
  }
  await keysForHeader(options, header);
}

/** The store the engine works on: sealed when `encryption` is given, else checked not to be sealed. */
export async function openStore(store: StorageAdapter, encryption: EncryptionOptions | undefined): Promise<StorageAdapter> {
  try {
    if (encryption !== undefined) return await createSealedStore(store, encryption);
    await refuseIfSealed(store);
    return store;
  } catch (error) {
    throw isMemoryError(error) ? error : wrapError(error, 'STORAGE_FAILED', 'cannot open the memory');
  }
}
