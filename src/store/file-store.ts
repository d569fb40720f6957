/**
 * The Node store: one directory holding an append-only log of batches (`log.jsonl`, one batch a
 * line, fsynced before the commit resolves) and a metadata file. A torn last line from a crash is
 * dropped on open, so a batch is either wholly there or not at all. The log is compacted into a
 * fresh file (written, fsynced, renamed) when it holds much more than the live data.
 */
import type { StoredItem } from '../records.js';
import { createError, wrapError } from '../errors.js';
import type { StorageAdapter, StoreBatch } from './port.js';
import { itemFromJson, itemToJson } from './serialize.js';

const LOG = 'log.jsonl';
const META = 'meta.json';
const LOCK = 'LOCK';

export interface FileStoreOptions {
  /** Compact when the log has this many more lines than live items (default 2000). */
  compactSlack?: number;
}

/** Opens (creating if needed) a file store in `dir`. One process may hold a directory at a time. */
export async function createFileStore(dir: string, options: FileStoreOptions = {}): Promise<StorageAdapter> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const compactSlack = options.compactSlack ?? 2000;
  await fs.mkdir(dir, { recursive: true });
  const logPath = path.join(dir, LOG);
  const metaPath = path.join(dir, META);
  const lockPath = path.join(dir, LOCK);

  await takeLock(fs, lockPath);

  const items = new Map<string, StoredItem>();
  let lines = 0;
  let goodBytes = 0;
  try {
    const text = await fs.readFile(logPath, 'utf8');
    const totalBytes = Buffer.byteLength(text, 'utf8');
    let offset = 0;
    for (const line of text.split('\n')) {
      const end = offset + Buffer.byteLength(line, 'utf8') + 1;
      if (line.trim() === '') {
        offset = end;
        continue;
      }
      let batch: { put: string[]; delete: string[] };
      try {
        batch = JSON.parse(line) as { put: string[]; delete: string[] };
      } catch {
        break; // a torn final write: everything after the last whole batch is dropped
      }
      for (const id of batch.delete) items.delete(id);
      for (const encoded of batch.put) {
        const item = itemFromJson(encoded);
        items.set(item.id, item);
      }
      lines++;
      offset = end;
      goodBytes = Math.min(end, totalBytes);
    }
    if (goodBytes < totalBytes) await fs.truncate(logPath, goodBytes);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw wrapError(error, 'STORAGE_FAILED', 'cannot read the memory log');
  }

  let meta: Record<string, unknown> = {};
  try {
    meta = JSON.parse(await fs.readFile(metaPath, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw wrapError(error, 'STORAGE_FAILED', 'cannot read the memory metadata');
  }

  let handle = await fs.open(logPath, 'a');
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  async function writeAtomically(target: string, content: string): Promise<void> {
    const temp = `${target}.tmp`;
    const file = await fs.open(temp, 'w');
    try {
      await file.writeFile(content, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await fs.rename(temp, target);
  }

  async function compact(): Promise<void> {
    const all = [...items.values()].map(itemToJson);
    const body = all.length ? `${JSON.stringify({ put: all, delete: [] })}\n` : '';
    await handle.close();
    await writeAtomically(logPath, body);
    handle = await fs.open(logPath, 'a');
    lines = all.length ? 1 : 0;
  }

  function ensureOpen(): void {
    if (closed) throw createError('CLOSED');
  }

  return {
    kind: 'file',
    async loadAll() {
      ensureOpen();
      return [...items.values()].map((item) => structuredClone(item));
    },
    commit(batch: StoreBatch) {
      return serial(async () => {
        ensureOpen();
        if (batch.put.length === 0 && batch.delete.length === 0) return;
        let line: string;
        try {
          line = `${JSON.stringify({ put: batch.put.map(itemToJson), delete: batch.delete })}\n`;
        } catch (error) {
          throw wrapError(error, 'STORAGE_FAILED', 'cannot encode the batch; nothing was written');
        }
        try {
          await handle.write(line);
          await handle.sync();
        } catch (error) {
          const code = (error as { code?: string }).code;
          throw wrapError(error, code === 'ENOSPC' || code === 'EDQUOT' ? 'QUOTA_EXCEEDED' : 'STORAGE_FAILED', 'cannot append to the memory log');
        }
        for (const id of batch.delete) items.delete(id);
        for (const item of batch.put) items.set(item.id, structuredClone(item));
        lines++;
        // A purge leaves no old line holding what was deleted: the log is rewritten now.
        if (lines > items.size + compactSlack || (batch.purge && batch.delete.length > 0)) await compact();
      });
    },
    async getMeta(key) {
      ensureOpen();
      return structuredClone(meta[key]);
    },
    setMeta(key, value) {
      return serial(async () => {
        ensureOpen();
        meta = { ...meta, [key]: structuredClone(value) };
        await writeAtomically(metaPath, JSON.stringify(meta));
      });
    },
    async estimate() {
      const stat = await fs.stat(logPath).catch(() => undefined);
      return stat ? { usage: stat.size } : {};
    },
    close() {
      return serial(async () => {
        if (closed) return;
        closed = true;
        await handle.close();
        await fs.rm(lockPath, { force: true });
      });
    },
  };
}

async function takeLock(fs: typeof import('node:fs/promises'), lockPath: string): Promise<void> {
  try {
    await fs.writeFile(lockPath, String(process.pid), { flag: 'wx' });
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw wrapError(error, 'STORAGE_FAILED', 'cannot lock the memory directory');
  }
  const holder = Number(await fs.readFile(lockPath, 'utf8').catch(() => 'NaN'));
  if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
    throw createError('STORAGE_FAILED', { message: `memory directory is in use by process ${holder}`, details: { lock: lockPath } });
  }
  // The holder is gone (a crash): the lock is stale and ours to take.
  await fs.writeFile(lockPath, String(process.pid));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
