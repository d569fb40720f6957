/**
 * The way out of STORAGE_CORRUPT for the Node SQLite store: copy every row that still reads and
 * whose checksum holds into a fresh database, name the ones that do not, and keep the damaged file
 * beside it untouched. Nothing is dropped silently: whatever is not carried over is listed in the
 * report (by id where the id still reads, by rowid range where a whole b-tree page is gone), and
 * the damaged rows' raw text goes to a file of its own for recovery by hand.
 *
 *   npm run repair -- --data ./.engram
 */
import type BetterSqlite3 from 'better-sqlite3';
import { createError } from '../errors.js';
import type { StoredItem } from '../records.js';
import { ITEMS_TABLE, META_TABLE, sqlStorageError } from './sql-rows.js';
import { SQLITE_FILE, checkRow, createSqliteStore, headerDamage, metaChecksum, readHeader } from './sqlite-store.js';
import { walDamage } from './wal-check.js';

export interface RepairReport {
  /** Items carried over into the new database. */
  kept: number;
  /** Rows that read but failed their checksum or would not decode, by id. */
  damaged: { id: string; problem: string }[];
  /** Stretches of rows SQLite could not read at all (a damaged page: between these rowids; a damaged WAL: nulls). */
  unreadable: { after_rowid: number | null; before_rowid: number | null; error: string }[];
  /** Metadata keys carried over, and the ones that were damaged. */
  meta_kept: string[];
  meta_damaged: string[];
  /** Where the damaged database now is, the report, and the damaged rows' raw text. */
  damaged_file: string;
  report_file: string;
  damaged_rows_file: string | null;
}

interface RawRow {
  rowid: number;
  id: unknown;
  kind: unknown;
  body: unknown;
  vector: unknown;
  checksum: unknown;
}

/**
 * Rebuilds the store in `dir` from what of it is intact. Run it with the server stopped: it takes
 * the directory's lock like the store does, and refuses (STORAGE_FAILED) while another holds it.
 */
export async function repairSqliteStore(dir: string): Promise<RepairReport> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const { default: Sqlite } = await import('better-sqlite3');
  const file = path.join(dir, SQLITE_FILE);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const damagedFile = `${file}.damaged-${stamp}`;
  const work = path.join(dir, `.repair-${stamp}`);

  // A store that is open elsewhere holds the lock; a file whose header SQLite rejects cannot be.
  const header = await readHeader(file);
  if (!headerDamage(header)) {
    try {
      // Read-only, so closing it does not checkpoint the WAL into the file before it is copied.
      const probe = new Sqlite(file, { fileMustExist: true, readonly: true, timeout: 500 });
      try {
        probe.prepare('SELECT count(*) FROM sqlite_schema').get();
      } finally {
        probe.close();
      }
    } catch (error) {
      if (/SQLITE_BUSY|SQLITE_LOCKED/.test(String((error as { code?: unknown }).code))) {
        throw createError('STORAGE_FAILED', { message: 'the memory directory is in use: stop the server before repairing', details: { path: file }, cause: error });
      }
    }
  }

  // Everything is read from a copy (its header mended if needed); the original stays as it is.
  await fs.rm(work, { recursive: true, force: true });
  await fs.mkdir(work, { recursive: true });
  const source = path.join(work, 'damaged.db');
  await fs.copyFile(file, source);
  await fs.copyFile(`${file}-wal`, `${source}-wal`).catch(() => undefined);
  // Transactions past a damaged WAL frame cannot be replayed: said in the report, not skipped quietly.
  const wal = await fs.readFile(`${source}-wal`).catch(() => new Uint8Array(0));
  const walLoss = walDamage(wal);
  if (headerDamage(header)) {
    const handle = await fs.open(source, 'r+');
    try {
      await handle.write(mendHeader(header), 0, 100, 0);
    } finally {
      await handle.close();
    }
  }
  let db: BetterSqlite3.Database;
  try {
    db = new Sqlite(source, { fileMustExist: true });
    db.pragma('locking_mode = EXCLUSIVE');
  } catch (error) {
    throw sqlStorageError(error, 'SQLite cannot read this file at all; restore it from an export or a backup', { path: file });
  }

  const items: StoredItem[] = [];
  const damaged: RepairReport['damaged'] = [];
  const damagedRows: string[] = [];
  const unreadable: RepairReport['unreadable'] = [];
  if (walLoss) {
    unreadable.push({ after_rowid: null, before_rowid: null, error: `the WAL is damaged: frames ${walLoss.replayed + 1} to ${walLoss.committed} held committed transactions that cannot be replayed` });
  }
  const meta = new Map<string, unknown>();
  const metaDamaged: string[] = [];
  try {
    const take = (row: RawRow) => {
      const checked = checkRow(row);
      if ('item' in checked) {
        items.push(checked.item);
        return;
      }
      const id = typeof row.id === 'string' ? row.id : `rowid ${row.rowid}`;
      damaged.push({ id, problem: checked.damaged });
      damagedRows.push(JSON.stringify({ rowid: row.rowid, id: row.id, kind: row.kind, body: typeof row.body === 'string' ? row.body : null }));
    };
    // Forward until the first unreadable page, then backward from the end to meet it: the rows
    // of the damaged page itself are all that is lost, and the report says between which rowids.
    let last: number | null = null;
    let failure: string | null = null;
    try {
      for (const row of db.prepare(`SELECT rowid, id, kind, body, vector, checksum FROM ${ITEMS_TABLE} ORDER BY rowid`).iterate() as Iterable<RawRow>) {
        last = row.rowid;
        take(row);
      }
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure !== null) {
      let first: number | null = null;
      try {
        const from = last ?? Number.MIN_SAFE_INTEGER;
        for (const row of db.prepare(`SELECT rowid, id, kind, body, vector, checksum FROM ${ITEMS_TABLE} WHERE rowid > ? ORDER BY rowid DESC`).iterate(from) as Iterable<RawRow>) {
          first = row.rowid;
          take(row);
        }
      } catch {
        // The backward scan stops at the same page: what lies between is reported below.
      }
      unreadable.push({ after_rowid: last, before_rowid: first, error: failure });
    }
    try {
      for (const row of db.prepare(`SELECT key, value, checksum FROM ${META_TABLE}`).iterate() as Iterable<{ key: unknown; value: unknown; checksum: unknown }>) {
        if (typeof row.key !== 'string') continue;
        if (typeof row.value === 'string' && metaChecksum(row.key, row.value) === row.checksum) meta.set(row.key, JSON.parse(row.value));
        else metaDamaged.push(row.key);
      }
    } catch (error) {
      metaDamaged.push(`(unreadable: ${error instanceof Error ? error.message : String(error)})`);
    }
  } finally {
    db.close();
  }

  // The new database is built beside the old one and only then swapped in.
  const fresh = await createSqliteStore(path.join(work, 'fresh'));
  try {
    await fresh.commit({ put: items, delete: [] });
    for (const [key, value] of meta) await fresh.setMeta(key, value);
  } finally {
    await fresh.close();
  }
  await fs.rename(file, damagedFile);
  for (const suffix of ['-wal', '-shm']) await fs.rename(`${file}${suffix}`, `${damagedFile}${suffix}`).catch(() => undefined);
  await fs.rename(path.join(work, 'fresh', SQLITE_FILE), file);
  await fs.rm(work, { recursive: true, force: true });

  const damagedRowsFile = damagedRows.length ? path.join(dir, `repair-${stamp}.damaged-rows.jsonl`) : null;
  if (damagedRowsFile) await fs.writeFile(damagedRowsFile, `${damagedRows.join('\n')}\n`);
  const reportFile = path.join(dir, `repair-${stamp}.json`);
  const report: RepairReport = {
    kept: items.length, damaged, unreadable, meta_kept: [...meta.keys()], meta_damaged: metaDamaged,
    damaged_file: damagedFile, report_file: reportFile, damaged_rows_file: damagedRowsFile,
  };
  await fs.writeFile(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

/**
 * A header with the fields this store always writes set back to their values (page size 4096,
 * WAL, UTF-8, schema format 4), so SQLite reads the pages behind it; the rest is left alone.
 */
function mendHeader(header: Uint8Array): Uint8Array {
  const out = new Uint8Array(100);
  out.set(header.subarray(0, 100));
  out.set(new TextEncoder().encode('SQLite format 3\u0000'), 0);
  const view = new DataView(out.buffer);
  const pageSize = view.getUint16(16);
  if (pageSize !== 1 && (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)) view.setUint16(16, 4096);
  if (![1, 2].includes(out[18]!)) out[18] = 2;
  if (![1, 2].includes(out[19]!)) out[19] = 2;
  out[21] = 64;
  out[22] = 32;
  out[23] = 32;
  if (view.getUint32(44) > 4) view.setUint32(44, 4);
  if (![1, 2, 3].includes(view.getUint32(56))) view.setUint32(56, 1);
  out.fill(0, 72, 92);
  return out;
}
