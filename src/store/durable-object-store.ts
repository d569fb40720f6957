/**
 * The Durable Object store: records and buffered messages in the object's own SQLite database
 * (`ctx.storage.sql`). One row per item holds its JSON (vector left out) and its vector as a
 * BLOB of little-endian float32; an item whose JSON is longer than a row may be is split over
 * several rows (`part` 0, 1, …). A batch is one `transactionSync`: all of it or none of it, and
 * `commit` resolves only after `storage.sync()` reports the write durable.
 *
 * Typed against the few members of `DurableObjectStorage` it uses, so this file needs no
 * platform types and a test can wrap the real storage (e.g. to fail a write half-way).
 */
import { createError, wrapError } from '../errors.js';
import type { StoredItem } from '../records.js';
import type { StorageAdapter, StoreBatch } from './port.js';
import { ITEMS_TABLE as ITEMS, META_TABLE as META, itemFromRow, itemToRow, sqlStorageError as storageError } from './sql-rows.js';

/** The members of a Durable Object's `ctx.storage` this store uses. */
export interface DurableSqlStorage {
  readonly sql: {
    exec(query: string, ...bindings: (string | number | ArrayBuffer | null)[]): Iterable<Record<string, unknown>>;
    /** Bytes used by the database, where the runtime reports it. */
    readonly databaseSize?: number;
  };
  /** Runs `fn` in a transaction: rolled back entirely if it throws. */
  transactionSync<T>(fn: () => T): T;
  /** Resolves once every write so far is durable. */
  sync?(): Promise<void>;
}

/**
 * Characters of JSON per row. The platform caps a row at 2 MB; a UTF-16 code unit takes at most
 * 3 bytes of UTF-8, so 600 000 of them plus a vector stay below it.
 */
export const MAX_PART_CHARS = 600_000;

interface EncodedItem {
  id: string;
  kind: string;
  parts: string[];
  vector: ArrayBuffer | null;
}

function encode(item: StoredItem): EncodedItem {
  const { id, kind, json, vector } = itemToRow(item);
  const parts: string[] = [];
  for (let i = 0; i < json.length; i += MAX_PART_CHARS) parts.push(json.slice(i, i + MAX_PART_CHARS));
  if (parts.length === 0) parts.push(json);
  return { id, kind, parts, vector: vector ? vector.buffer : null };
}

/**
 * Opens the store over a Durable Object's storage, creating its two tables if needed.
 *
 * @example
 * // inside a Durable Object
 * const memory = await createMemory({ store: createDurableObjectStore(ctx.storage), embedder });
 */
export function createDurableObjectStore(storage: DurableSqlStorage): StorageAdapter {
  const { sql } = storage;
  try {
    sql.exec(`CREATE TABLE IF NOT EXISTS ${ITEMS} (id TEXT NOT NULL, part INTEGER NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, vector BLOB, PRIMARY KEY (id, part))`);
    sql.exec(`CREATE TABLE IF NOT EXISTS ${META} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  } catch (error) {
    throw storageError(error, 'cannot prepare the memory tables');
  }
  let closed = false;

  const ensureOpen = () => {
    if (closed) throw createError('CLOSED');
  };
  const durable = async () => {
    try {
      await storage.sync?.();
    } catch (error) {
      throw storageError(error, 'the write did not become durable');
    }
  };

  return {
    kind: 'durable-object',

    async loadAll() {
      ensureOpen();
      const out: StoredItem[] = [];
      let current: { id: string; body: string; vector: unknown } | undefined;
      try {
        // Ordered by the primary key, so an item's parts arrive together and in order.
        for (const row of sql.exec(`SELECT id, part, body, vector FROM ${ITEMS} ORDER BY id, part`)) {
          const id = row['id'] as string;
          if (current && current.id === id) {
            current.body += row['body'] as string;
            continue;
          }
          if (current) out.push(itemFromRow(current.body, current.vector));
          current = { id, body: row['body'] as string, vector: row['vector'] };
        }
        if (current) out.push(itemFromRow(current.body, current.vector));
      } catch (error) {
        throw storageError(error, 'cannot read the memory');
      }
      return out;
    },

    async commit(batch: StoreBatch) {
      ensureOpen();
      if (batch.put.length === 0 && batch.delete.length === 0) return;
      let rows: EncodedItem[];
      try {
        rows = batch.put.map(encode);
      } catch (error) {
        throw wrapError(error, 'STORAGE_FAILED', 'cannot encode an item; nothing was written');
      }
      try {
        storage.transactionSync(() => {
          for (const id of batch.delete) sql.exec(`DELETE FROM ${ITEMS} WHERE id = ?`, id);
          for (const row of rows) {
            // An overwrite may need fewer parts than before: clear the old ones first.
            sql.exec(`DELETE FROM ${ITEMS} WHERE id = ?`, row.id);
            row.parts.forEach((body, part) => {
              sql.exec(`INSERT INTO ${ITEMS} (id, part, kind, body, vector) VALUES (?, ?, ?, ?, ?)`, row.id, part, row.kind, body, part === 0 ? row.vector : null);
            });
          }
        });
      } catch (error) {
        throw storageError(error, 'the store rejected the write; nothing was written');
      }
      await durable();
    },

    async getMeta(key) {
      ensureOpen();
      try {
        for (const row of sql.exec(`SELECT value FROM ${META} WHERE key = ?`, key)) return JSON.parse(row['value'] as string) as unknown;
      } catch (error) {
        throw storageError(error, 'cannot read the memory metadata');
      }
      return undefined;
    },

    async setMeta(key, value) {
      ensureOpen();
      try {
        sql.exec(`INSERT OR REPLACE INTO ${META} (key, value) VALUES (?, ?)`, key, JSON.stringify(value));
      } catch (error) {
        throw storageError(error, 'cannot write the memory metadata');
      }
      await durable();
    },

    async estimate() {
      const usage = sql.databaseSize;
      return typeof usage === 'number' ? { usage } : {};
    },

    async close() {
      // The database belongs to the object and outlives this adapter: nothing to release.
      closed = true;
    },
  };
}
