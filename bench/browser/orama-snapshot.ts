/**
 * The comparison path of the cold-open benchmark: the same records as one Orama database whose
 * `save()` snapshot is kept in IndexedDB as JSON, and restored with `load()` on open. Shared by the
 * page (which writes the snapshot) and the worker (which restores it).
 */
import { create, insertMultiple, load, save, search, type AnyOrama } from '@orama/orama';
import { openDB } from 'idb';

export const SNAPSHOT_DB = 'engram-bench-orama-snapshots';
const STORE = 'snapshots';

export interface SnapshotDoc {
  id: string;
  text: string;
  embedding: number[];
}

export function createOramaDb(dim: number): AnyOrama {
  return create({ schema: { text: 'string', embedding: `vector[${dim}]` } as const }) as AnyOrama;
}

/**
 * Chromium aborts an IndexedDB write of one value past its size limit (a 10k-record snapshot with
 * vectors is well over 100 MB as UTF-16; the write failed with a bare AbortError), so the JSON is
 * kept in pieces of this many characters and joined on read.
 */
const PIECE_CHARS = 8 * 2 ** 20;

/** Builds the database, saves its snapshot as JSON into IndexedDB; returns the JSON's size in bytes (UTF-16 code units). */
export async function writeSnapshot(key: string, dim: number, docs: SnapshotDoc[]): Promise<number> {
  const db = createOramaDb(dim);
  await insertMultiple(db, docs as never, 1000);
  const json = JSON.stringify(save(db));
  const idb = await openDB(SNAPSHOT_DB, 1, { upgrade: (d) => void d.createObjectStore(STORE) });
  const pieces = Math.ceil(json.length / PIECE_CHARS);
  for (let i = 0; i < pieces; i++) await idb.put(STORE, json.slice(i * PIECE_CHARS, (i + 1) * PIECE_CHARS), `${key}:${i}`);
  await idb.put(STORE, pieces, key);
  idb.close();
  return json.length;
}

/** Reads the JSON back from IndexedDB and restores it; marks each step. */
export async function restoreSnapshot(key: string, dim: number, mark: (step: string) => void): Promise<AnyOrama> {
  const idb = await openDB(SNAPSHOT_DB, 1, { upgrade: (d) => void d.createObjectStore(STORE) });
  const pieces = (await idb.get(STORE, key)) as number | undefined;
  if (pieces === undefined) throw new Error(`no Orama snapshot ${key}`);
  const tx = idb.transaction(STORE);
  const json = (await Promise.all(Array.from({ length: pieces }, (_, i) => tx.store.get(`${key}:${i}`) as Promise<string>))).join('');
  idb.close();
  mark('snapshotRead');
  const raw = JSON.parse(json) as Parameters<typeof load>[1];
  mark('snapshotParsed');
  const db = createOramaDb(dim);
  load(db, raw);
  mark('snapshotLoaded');
  return db;
}

/** A hybrid query of the restored database (similarity floor as low as Engram's, see the design notes). */
export async function searchSnapshot(db: AnyOrama, term: string, vector: Float32Array): Promise<{ id: string; score: number }[]> {
  const result = (await search(db, {
    mode: 'hybrid',
    term,
    vector: { value: Array.from(vector), property: 'embedding' },
    similarity: 0.1,
    limit: 10,
  } as never)) as { hits: { id: string; score: number }[] };
  return result.hits.map((h) => ({ id: h.id, score: h.score }));
}
