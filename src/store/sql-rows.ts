/**
 * Items as SQL rows, shared by the stores that keep them in SQLite (the Node store through
 * better-sqlite3, the Durable Object store through `ctx.storage.sql`): the item's JSON without its
 * vector, and the vector as a BLOB of little-endian float32, so neither store pays base64 for
 * vectors and both read the other's rows the same way. Also the one mapping of SQLite failures
 * onto the error catalog. No platform imports: this file runs in Node and in workerd.
 */
import { MemoryError, wrapError } from '../errors.js';
import type { StoredItem } from '../records.js';

export const ITEMS_TABLE = 'engram_items';
export const META_TABLE = 'engram_meta';

/** An item split into what a row holds. */
export interface ItemRow {
  id: string;
  kind: string;
  /** The item as JSON, its vector (if any) written as `null`. */
  json: string;
  /** The vector's bytes (little-endian float32, as every supported platform is), in a buffer of their own. */
  vector: Uint8Array<ArrayBuffer> | null;
}

/**
 * Splits an item into a row. Generic over the item's shape: anything with `id` and `kind` stores,
 * and only a `Float32Array` under `vector` (never on a buffered message) goes to the BLOB.
 * Throws what `JSON.stringify` throws (a BigInt, a cycle): callers encode before writing.
 */
export function itemToRow(item: StoredItem): ItemRow {
  const vector = item.kind === 'message' ? null : (item as { vector?: unknown }).vector;
  const hasVector = vector instanceof Float32Array;
  const json = JSON.stringify(hasVector ? { ...item, vector: null } : item);
  if (typeof json !== 'string') throw new TypeError('the item has no JSON form');
  const bytes = hasVector ? new Uint8Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength) as ArrayBuffer) : null;
  return { id: item.id, kind: item.kind, json, vector: bytes };
}

/** The item a row holds. `vector` is the BLOB as the driver returns it (ArrayBuffer or a Uint8Array view). */
export function itemFromRow(json: string, vector: unknown): StoredItem {
  const item = JSON.parse(json) as StoredItem;
  if (item.kind === 'message') return item;
  if (vector instanceof ArrayBuffer) item.vector = new Float32Array(vector.slice(0));
  else if (vector instanceof Uint8Array) {
    // A driver's view may sit at any offset of a shared buffer: copy into an aligned one of its own.
    const copy = new Uint8Array(vector.byteLength);
    copy.set(vector);
    item.vector = new Float32Array(copy.buffer);
  }
  return item;
}

/**
 * Maps a SQLite failure onto the catalog: a full disk or database is QUOTA_EXCEEDED, a damaged
 * file STORAGE_CORRUPT, anything else STORAGE_FAILED. Reads the driver's code where it has one
 * (better-sqlite3: `SQLITE_FULL`, `SQLITE_CORRUPT_INDEX`, …) and the message otherwise (workerd).
 */
export function sqlStorageError(error: unknown, what: string, details?: Record<string, unknown>): MemoryError {
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : '';
  const text = `${code} ${error instanceof Error ? error.message : String(error)}`;
  let wrapped: MemoryError;
  if (/SQLITE_FULL|ENOSPC|EDQUOT|database or disk is full|exceeded .*(size|storage)|storage .*limit/i.test(text)) {
    wrapped = wrapError(error, 'QUOTA_EXCEEDED', `${what}: the disk or database is full`);
  } else if (/SQLITE_CORRUPT|SQLITE_NOTADB|malformed|file is not a database/i.test(text)) {
    wrapped = wrapError(error, 'STORAGE_CORRUPT', `${what}: the database is damaged`);
  } else {
    wrapped = wrapError(error, 'STORAGE_FAILED', what);
  }
  if (details && wrapped.details === undefined) return new MemoryError(wrapped.code, { message: wrapped.message, details, cause: error });
  return wrapped;
}
