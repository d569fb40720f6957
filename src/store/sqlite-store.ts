/**
 * The Node store: one SQLite database (`engram.db`) in a directory, through better-sqlite3.
 * Records and buffered messages are rows (JSON without the vector, the vector as a float32 BLOB,
 * a CRC32 of both); a batch is one transaction; WAL with `synchronous = FULL`, so a commit that
 * resolved survives SIGKILL and power loss. Why these choices:
 *
 * - Damage is never silent. `PRAGMA integrity_check` runs on open and every row's checksum is checked
 *   by `loadAll`: a flipped byte is a STORAGE_CORRUPT naming the path and the damaged ids, and
 *   nothing is dropped or overwritten. `repairSqliteStore` (sqlite-repair.ts) is the way out.
 * - Forgetting is physical. `secure_delete` zeroes deleted content, and a purge batch is followed
 *   by a TRUNCATE checkpoint, so no copy stays in the database or its WAL.
 * - A full disk is QUOTA_EXCEEDED and the transaction rolls back: nothing acknowledged is lost,
 *   and writes work again once space returns.
 * - One process per directory: the database is held in SQLite's EXCLUSIVE locking mode, an OS
 *   lock the kernel releases when the holder dies, so a crash leaves no stale lock behind.
 * - A directory written by the old JSONL log store is imported once (see `importLegacyLog`).
 *
 * better-sqlite3 is loaded inside the factory, so bundles for browsers and Workers never reach it.
 */
import { crc32 } from 'node:zlib';
import type BetterSqlite3 from 'better-sqlite3';
import { createError } from '../errors.js';
import type { StoredItem } from '../records.js';
import { LEGACY_LOG, LEGACY_META, readLegacyLog } from './file-store.js';
import type { StorageAdapter, StoreBatch } from './port.js';
import { ITEMS_TABLE, META_TABLE, type ItemRow, itemFromRow, itemToRow, sqlStorageError } from './sql-rows.js';
import { walDamage } from './wal-check.js';

/** The database's file name inside the data directory. */
export const SQLITE_FILE = 'engram.db';

/** Set in the same transaction as an imported log's rows, so a crash before the rename never imports twice. */
const IMPORTED_KEY = '__engram_imported_log';

export interface SqliteStoreOptions {
  /** How long to wait for another process's lock before refusing (ms, default 500). */
  lockTimeoutMs?: number;
}

type Database = BetterSqlite3.Database;

/** The checksum kept with each row: CRC32 over its id, kind, JSON and vector bytes. */
export function rowChecksum(id: string, kind: string, json: string, vector: Uint8Array | null): number {
  let sum = crc32(id);
  sum = crc32('\u0000', sum);
  sum = crc32(kind, sum);
  sum = crc32('\u0000', sum);
  sum = crc32(json, sum);
  return vector ? crc32(vector, sum) : sum;
}

/** The checksum kept with a metadata row. */
export function metaChecksum(key: string, value: string): number {
  return crc32(value, crc32('\u0000', crc32(key)));
}

/** The statements that create the schema (idempotent); `auto_vacuum` only takes on a new file. */
export const SQLITE_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${ITEMS_TABLE} (id TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, vector BLOB, checksum INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS ${META_TABLE} (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, checksum INTEGER NOT NULL)`,
];

/**
 * Opens (creating if needed) the SQLite store in `dir`. One process may hold a directory at a
 * time; a second opener gets STORAGE_FAILED. A damaged database gets STORAGE_CORRUPT.
 *
 * @example
 * const memory = await createMemory({ store: await createSqliteStore('./.engram'), embedder });
 */
export async function createSqliteStore(dir: string, options: SqliteStoreOptions = {}): Promise<StorageAdapter> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const { default: Sqlite } = await import('better-sqlite3');
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (error) {
    throw sqlStorageError(error, 'cannot create the memory directory', { path: dir });
  }
  const file = path.join(dir, SQLITE_FILE);
  await refuseDamagedWal(`${file}-wal`);
  const db = openDatabase(Sqlite, file, options.lockTimeoutMs ?? 500, await readHeader(file));
  try {
    await importLegacyLog(db, dir, file);
  } catch (error) {
    db.close();
    throw error;
  }
  return sqliteAdapter(db, file);
}

/** Opens, locks, configures and checks the database; closes it again on any failure. */
function openDatabase(Sqlite: typeof BetterSqlite3, file: string, lockTimeoutMs: number, header: Uint8Array): Database {
  const damage = headerDamage(header);
  if (damage) throw createError('STORAGE_CORRUPT', { message: `the memory database's header is damaged (${damage})`, details: { path: file, repair: REPAIR_HINT } });
  let db: Database;
  try {
    db = new Sqlite(file, { timeout: lockTimeoutMs });
  } catch (error) {
    throw sqlStorageError(error, 'cannot open the memory database', { path: file });
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // Takes the write lock now and keeps it (EXCLUSIVE mode) until close: a second process fails here.
    try {
      db.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (error) {
      if (/SQLITE_BUSY|SQLITE_LOCKED/.test(String((error as { code?: unknown }).code))) {
        throw createError('STORAGE_FAILED', { message: 'the memory directory is in use by another process', details: { path: file }, cause: error });
      }
      throw error;
    }
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('secure_delete = ON');
    // A WAL grown by one big batch shrinks back after the next checkpoint.
    db.pragma('journal_size_limit = 67108864');
    // integrity_check rather than quick_check: it also compares each primary-key index with its
    // table, and a damaged index entry would make a lookup by id miss (a delete that deletes
    // nothing, metadata that reads as unset) without any other sign.
    const problems = (db.pragma('integrity_check(20)') as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (problems.length !== 1 || problems[0] !== 'ok') {
      throw createError('STORAGE_CORRUPT', { message: `the memory database is damaged (${problems[0] ?? 'no answer'})`, details: { path: file, problems, repair: REPAIR_HINT } });
    }
    ensureSchema(Sqlite, db, file);
    // Metadata is read by key: a hit key would read as "not set" rather than fail its checksum.
    for (const row of db.prepare(`SELECT key, value, checksum FROM ${META_TABLE}`).iterate() as Iterable<{ key: unknown; value: unknown; checksum: unknown }>) {
      if (typeof row.key !== 'string' || typeof row.value !== 'string' || metaChecksum(row.key, row.value) !== row.checksum) {
        throw createError('STORAGE_CORRUPT', { message: 'the memory metadata is damaged', details: { path: file, meta_key: String(row.key), repair: REPAIR_HINT } });
      }
    }
    return db;
  } catch (error) {
    db.close();
    throw sqlStorageError(error, 'cannot open the memory database', { path: file, repair: REPAIR_HINT });
  }
}

/** STORAGE_CORRUPT when a WAL left by a crash holds committed transactions SQLite's replay would skip. */
async function refuseDamagedWal(walPath: string): Promise<void> {
  const fs = await import('node:fs/promises');
  let wal: Uint8Array;
  try {
    wal = await fs.readFile(walPath);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return;
    throw sqlStorageError(error, 'cannot read the memory database log', { path: walPath });
  }
  const damage = walDamage(wal);
  if (damage) {
    throw createError('STORAGE_CORRUPT', {
      message: 'the database log is damaged before transactions that were committed; it was not opened, so they are not lost',
      details: { path: walPath, frames_replayable: damage.replayed, frames_committed: damage.committed, repair: REPAIR_HINT },
    });
  }
}

/** The first 100 bytes of the database file (fewer, or none, for a new file). */
export async function readHeader(file: string): Promise<Uint8Array> {
  const fs = await import('node:fs/promises');
  let handle: Awaited<ReturnType<typeof fs.open>> | undefined;
  try {
    handle = await fs.open(file, 'r');
    const bytes = new Uint8Array(100);
    const { bytesRead } = await handle.read(bytes, 0, 100, 0);
    return bytes.subarray(0, bytesRead);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return new Uint8Array(0);
    throw sqlStorageError(error, 'cannot read the memory database', { path: file });
  } finally {
    await handle?.close();
  }
}

/**
 * What is wrong with a database header, or null. SQLite itself answers some damaged headers with
 * "read-only" or "unsupported format", which would read as a setup problem rather than damage.
 */
export function headerDamage(header: Uint8Array): string | null {
  if (header.length === 0) return null;
  if (header.length < 100) return 'shorter than a header';
  if (new TextDecoder().decode(header.subarray(0, 16)) !== 'SQLite format 3\u0000') return 'no SQLite magic';
  const pageSize = (header[16]! << 8) | header[17]!;
  if (pageSize !== 1 && (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)) return 'page size';
  if (![1, 2].includes(header[18]!) || ![1, 2].includes(header[19]!)) return 'file format version';
  if (header[21] !== 64 || header[22] !== 32 || header[23] !== 32) return 'payload fractions';
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const schemaFormat = view.getUint32(44);
  if (schemaFormat > 4) return 'schema format';
  if (![0, 1, 2, 3].includes(view.getUint32(56))) return 'text encoding';
  for (let i = 72; i < 92; i++) if (header[i] !== 0) return 'reserved bytes';
  return null;
}

/**
 * Creates the schema in a new file, or checks that an existing file's schema is exactly ours: a
 * flipped byte in the schema text could rename a table (and an empty one would be made in its
 * place) or a column, and either would lose records without a word.
 */
function ensureSchema(Sqlite: typeof BetterSqlite3, db: Database, file: string): void {
  const read = (target: Database) =>
    JSON.stringify(target.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name').all());
  if ((db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number }).n === 0) {
    db.transaction(() => {
      for (const statement of SQLITE_SCHEMA) db.exec(statement);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
    return;
  }
  const reference = new Sqlite(':memory:');
  let expected: string;
  try {
    for (const statement of SQLITE_SCHEMA) reference.exec(statement);
    expected = read(reference);
  } finally {
    reference.close();
  }
  const version = db.pragma('user_version', { simple: true });
  if (read(db) !== expected || version !== SCHEMA_VERSION) {
    throw createError('STORAGE_CORRUPT', { message: 'the memory database does not have the schema this store writes', details: { path: file, user_version: version, repair: REPAIR_HINT } });
  }
}

const SCHEMA_VERSION = 1;

const REPAIR_HINT = 'stop the server, then run `npm run repair -- --data DIR`: it rebuilds the database from the intact rows, lists the damaged ones and keeps the damaged file';

/**
 * Imports a directory written by the old JSONL log store, once. The rows and a marker go in one
 * transaction; only after it is durable is the log renamed to `log.jsonl.imported`. A crash before
 * the commit leaves the old log as it was (the next open imports it again, from scratch); a crash
 * between commit and rename finds the marker and only renames.
 */
async function importLegacyLog(db: Database, dir: string, file: string): Promise<void> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const logPath = path.join(dir, LEGACY_LOG);
  const metaPath = path.join(dir, LEGACY_META);
  const exists = async (p: string) => fs.access(p).then(() => true, () => false);
  if (!(await exists(logPath)) && !(await exists(metaPath))) return;

  const done = db.prepare(`SELECT 1 FROM ${META_TABLE} WHERE key = ?`).get(IMPORTED_KEY) !== undefined;
  if (!done) {
    const legacy = await readLegacyLog(dir);
    const rows = legacy.items.map(itemToRow);
    const upsert = prepareUpsert(db);
    const setMeta = prepareSetMeta(db);
    try {
      db.transaction(() => {
        for (const row of rows) upsert(row);
        for (const [key, value] of Object.entries(legacy.meta)) setMeta(key, JSON.stringify(value));
        setMeta(IMPORTED_KEY, JSON.stringify({ from: LEGACY_LOG, items: rows.length, at: Date.now() }));
      })();
    } catch (error) {
      throw sqlStorageError(error, 'cannot import the old memory log; it was left as it was', { path: logPath });
    }
  }
  try {
    for (const p of [logPath, metaPath]) if (await exists(p)) await fs.rename(p, `${p}.imported`);
    await fs.rm(path.join(dir, 'LOCK'), { force: true });
    const handle = await fs.open(dir, 'r');
    await handle.sync().finally(() => handle.close());
  } catch (error) {
    throw sqlStorageError(error, 'imported the old memory log but cannot rename it', { path: logPath, database: file });
  }
}

function prepareUpsert(db: Database): (row: ItemRow) => void {
  const statement = db.prepare(`INSERT OR REPLACE INTO ${ITEMS_TABLE} (id, kind, body, vector, checksum) VALUES (?, ?, ?, ?, ?)`);
  return (row) => {
    statement.run(row.id, row.kind, row.json, row.vector, rowChecksum(row.id, row.kind, row.json, row.vector));
  };
}

function prepareSetMeta(db: Database): (key: string, json: string) => void {
  const statement = db.prepare(`INSERT OR REPLACE INTO ${META_TABLE} (key, value, checksum) VALUES (?, ?, ?)`);
  return (key, json) => {
    statement.run(key, json, metaChecksum(key, json));
  };
}

interface ItemRowOnDisk {
  id: unknown;
  kind: unknown;
  body: unknown;
  vector: unknown;
  checksum: unknown;
}

/** A row read back, or why it cannot be trusted. */
export function checkRow(row: ItemRowOnDisk): { item: StoredItem } | { damaged: string } {
  const { id, kind, body, vector, checksum } = row;
  if (typeof id !== 'string' || typeof kind !== 'string' || typeof body !== 'string' || (vector !== null && !(vector instanceof Uint8Array))) {
    return { damaged: 'a column has the wrong type' };
  }
  if (rowChecksum(id, kind, body, vector) !== checksum) return { damaged: 'checksum mismatch' };
  let item: StoredItem;
  try {
    item = itemFromRow(body, vector);
  } catch {
    return { damaged: 'unreadable JSON' };
  }
  if (item.id !== id || item.kind !== kind) return { damaged: 'the row and its JSON disagree' };
  return { item };
}

function sqliteAdapter(db: Database, file: string): StorageAdapter {
  const upsert = prepareUpsert(db);
  const setMetaRow = prepareSetMeta(db);
  const remove = db.prepare(`DELETE FROM ${ITEMS_TABLE} WHERE id = ?`);
  const readMeta = db.prepare(`SELECT value, checksum FROM ${META_TABLE} WHERE key = ?`);
  const removeMeta = db.prepare(`DELETE FROM ${META_TABLE} WHERE key = ?`);
  const readAll = db.prepare(`SELECT id, kind, body, vector, checksum FROM ${ITEMS_TABLE}`);
  let closed = false;
  // A purge whose checkpoint could not run yet (a full disk): retried after every later commit.
  let checkpointOwed = false;

  const ensureOpen = () => {
    if (closed) throw createError('CLOSED');
  };

  /** Moves every WAL frame into the database and empties the WAL, so deleted bytes live nowhere. */
  const checkpoint = () => {
    try {
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      checkpointOwed = result?.busy !== 0;
    } catch {
      // The purge itself is committed and durable; only the erasure of old frames waits for space.
      checkpointOwed = true;
    }
  };
  checkpoint();

  /** Frees pages left by replaced big rows once they are a large share of the file. */
  const reclaim = () => {
    const free = db.pragma('freelist_count', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    if (free > 1024 && free * 4 > pages) db.pragma('incremental_vacuum');
  };

  return {
    kind: 'sqlite',

    async loadAll() {
      ensureOpen();
      const out: StoredItem[] = [];
      const damaged: { id: string; problem: string }[] = [];
      try {
        for (const row of readAll.iterate() as Iterable<ItemRowOnDisk>) {
          const checked = checkRow(row);
          if ('item' in checked) out.push(checked.item);
          else damaged.push({ id: typeof row.id === 'string' ? row.id : String(row.id), problem: checked.damaged });
        }
      } catch (error) {
        throw sqlStorageError(error, 'cannot read the memory database', { path: file, repair: REPAIR_HINT });
      }
      if (damaged.length > 0) {
        throw createError('STORAGE_CORRUPT', {
          message: `${damaged.length} stored item(s) are damaged; nothing was loaded or changed`,
          details: { path: file, damaged: damaged.slice(0, 100), damaged_count: damaged.length, repair: REPAIR_HINT },
        });
      }
      return out;
    },

    async commit(batch: StoreBatch) {
      ensureOpen();
      if (batch.put.length === 0 && batch.delete.length === 0) return;
      let rows: ItemRow[];
      try {
        rows = batch.put.map(itemToRow);
      } catch (error) {
        throw sqlStorageError(error, 'cannot encode an item; nothing was written');
      }
      try {
        db.transaction(() => {
          for (const id of batch.delete) remove.run(id);
          for (const row of rows) upsert(row);
        })();
      } catch (error) {
        throw sqlStorageError(error, 'the database rejected the write; nothing was written', { path: file });
      }
      // Past this point the batch is durable: housekeeping failures must not report it as unwritten.
      if ((batch.purge && batch.delete.length > 0) || checkpointOwed) checkpoint();
      try {
        reclaim();
      } catch {
        // Space is reclaimed on a later commit; the batch is already safe.
      }
    },

    async getMeta(key) {
      ensureOpen();
      let row: { value: unknown; checksum: unknown } | undefined;
      try {
        row = readMeta.get(key) as typeof row;
      } catch (error) {
        throw sqlStorageError(error, 'cannot read the memory metadata', { path: file });
      }
      if (!row) return undefined;
      if (typeof row.value !== 'string' || metaChecksum(key, row.value) !== row.checksum) {
        throw createError('STORAGE_CORRUPT', { message: `the metadata "${key}" is damaged`, details: { path: file, meta_key: key, repair: REPAIR_HINT } });
      }
      return JSON.parse(row.value) as unknown;
    },

    async setMeta(key, value) {
      ensureOpen();
      let json: string | undefined;
      try {
        json = JSON.stringify(value);
      } catch (error) {
        throw sqlStorageError(error, 'cannot encode the metadata; nothing was written');
      }
      try {
        // `undefined` has no JSON: storing it means the key is unset.
        if (json === undefined) removeMeta.run(key);
        else setMetaRow(key, json);
      } catch (error) {
        throw sqlStorageError(error, 'cannot write the memory metadata', { path: file });
      }
    },

    async estimate() {
      ensureOpen();
      const pages = db.pragma('page_count', { simple: true }) as number;
      const size = db.pragma('page_size', { simple: true }) as number;
      return { usage: pages * size };
    },

    async close() {
      if (closed) return;
      closed = true;
      try {
        db.close();
      } catch (error) {
        throw sqlStorageError(error, 'cannot close the memory database', { path: file });
      }
    },
  };
}
