/**
 * The storage port. A store keeps records and buffered messages and applies each batch of
 * changes atomically: after a crash it holds either all of a batch or none of it. Everything
 * else (indexes, partitions, buffers in memory) is rebuilt from `loadAll()`.
 */
import type { StoredItem } from '../records.js';

export interface StoreBatch {
  put: StoredItem[];
  /** Ids of items to remove (records or buffered messages). */
  delete: string[];
  /**
   * The deletions are a request to forget: no copy of the deleted items may remain anywhere the
   * store keeps data (an append-only log is rewritten without them before the commit resolves).
   */
  purge?: boolean;
}

export interface StorageAdapter {
  /** Short name for diagnostics, e.g. `memory`, `file`, `indexeddb`. */
  readonly kind: string;
  /** Everything stored, in no particular order. */
  loadAll(): Promise<StoredItem[]>;
  /** Applies the batch atomically; resolves only once it is durable. */
  commit(batch: StoreBatch): Promise<void>;
  /** Small key/value metadata (e.g. the embedding model the vectors were made with). */
  getMeta(key: string): Promise<unknown>;
  setMeta(key: string, value: unknown): Promise<void>;
  /** Usage numbers where the platform can tell. */
  estimate?(): Promise<{ usage?: number; quota?: number }>;
  close(): Promise<void>;
}
