/**
 * Opening a memory whose vectors another embedding model made: those vectors mean nothing to the
 * current model, so every record is embedded again, once, in batches committed as they go (an
 * interrupted re-embedding resumes where it stopped on the next open).
 */
import type { Progress } from '../progress.js';
import type { Embedder } from '../models/ports.js';
import { isMemoryRecord, type MemoryRecord, type StoredItem } from '../records.js';
import type { StorageAdapter } from '../store/port.js';
import { embedRecords } from './ingest.js';

const EMBEDDER_META = 'embedder';
const BATCH = 256;

/** Vectors made by another model are meaningless to this one: re-embed them once, on open. Returns how many records were re-embedded. */
export async function reembedIfModelChanged(store: StorageAdapter, items: StoredItem[], embedder: Embedder, onProgress?: (p: Progress) => void): Promise<number> {
  const stale = items.filter((i): i is MemoryRecord => isMemoryRecord(i) && i.kind !== 'profile' && i.vector_model !== embedder.id);
  const known = (await store.getMeta(EMBEDDER_META)) as { id?: string } | undefined;
  if (stale.length > 0) {
    for (let i = 0; i < stale.length; i += BATCH) {
      const chunk = stale.slice(i, i + BATCH);
      await embedRecords(chunk, { embedder });
      await store.commit({ put: chunk, delete: [] });
      onProgress?.({ phase: 'reembed', loaded: Math.min(i + BATCH, stale.length), total: stale.length });
    }
  }
  if (known?.id !== embedder.id) await store.setMeta(EMBEDDER_META, { id: embedder.id, dim: embedder.dim });
  return stale.length;
}
