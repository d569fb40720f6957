/**
 * The reader of the old Node store's directory format, kept only so `createSqliteStore` can
 * import it once. That store appended one batch per line to `log.jsonl` (`{"put": [itemJson…],
 * "delete": [id…]}`, items as `itemToJson`, vectors in base64) and kept metadata in `meta.json`.
 *
 * The log is streamed line by line, so a log bigger than one string can hold still reads. A torn
 * last line is a batch that was never acknowledged and is left out; a bad line with whole batches
 * after it is damage, and the reader refuses (STORAGE_CORRUPT) rather than drop what follows.
 */
import type { StoredItem } from '../records.js';
import { createError, wrapError } from '../errors.js';
import { itemFromJson } from './serialize.js';

export const LEGACY_LOG = 'log.jsonl';
export const LEGACY_META = 'meta.json';

export interface LegacyLog {
  items: StoredItem[];
  meta: Record<string, unknown>;
}

/** What the old store in `dir` held, read as it would have read it (minus its silent truncation). */
export async function readLegacyLog(dir: string): Promise<LegacyLog> {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const readline = await import('node:readline');
  const logPath = path.join(dir, LEGACY_LOG);
  const metaPath = path.join(dir, LEGACY_META);
  const items = new Map<string, StoredItem>();

  if (fs.existsSync(logPath)) {
    const lines = readline.createInterface({ input: fs.createReadStream(logPath, { encoding: 'utf8' }), crlfDelay: Infinity });
    let lineNo = 0;
    let torn: number | null = null;
    try {
      for await (const line of lines) {
        lineNo++;
        if (line.trim() === '') continue;
        if (torn !== null) {
          throw createError('STORAGE_CORRUPT', {
            message: `the old memory log is damaged at line ${torn}, with whole batches after it; it was not imported`,
            details: { path: logPath, line: torn },
          });
        }
        let batch: { put: unknown; delete: unknown };
        try {
          batch = JSON.parse(line) as { put: unknown; delete: unknown };
          if (!Array.isArray(batch.put) || !Array.isArray(batch.delete)) throw new Error('not a batch');
        } catch {
          torn = lineNo;
          continue;
        }
        for (const id of batch.delete) items.delete(String(id));
        for (const encoded of batch.put) {
          let item: StoredItem;
          try {
            item = itemFromJson(String(encoded));
          } catch (error) {
            throw createError('STORAGE_CORRUPT', { message: `the old memory log holds an unreadable item at line ${lineNo}`, details: { path: logPath, line: lineNo }, cause: error });
          }
          items.set(item.id, item);
        }
      }
    } catch (error) {
      throw wrapError(error, 'STORAGE_FAILED', 'cannot read the old memory log');
    }
  }

  let meta: Record<string, unknown> = {};
  try {
    meta = JSON.parse(fs.readFileSync(metaPath, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw wrapError(error, 'STORAGE_CORRUPT', 'cannot read the old memory metadata');
  }
  return { items: [...items.values()], meta };
}
