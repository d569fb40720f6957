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
  /**
   * Optional: derived index state kept beside the items (see `SnapshotShelf`). A store without it,
   * or a wrapper that does not forward it (the sealed store: snapshots would hold plaintext terms),
   * simply has every index rebuilt from the items when a memory opens.
   */
  readonly snapshots?: SnapshotShelf;
  /** Usage numbers where the platform can tell. */
  estimate?(): Promise<{ usage?: number; quota?: number }>;
  close(): Promise<void>;
}

/**
 * Snapshots of derived state (a partition's keyword index), by key. Each is stamped with the
 * generation of the items it was made from; the generation changes with every commit, in the same
 * transaction. A snapshot whose stamp is not the items' generation now is stale and must not be
 * used: the items are the source of truth, snapshots only save rebuilding from them.
 */
export interface SnapshotShelf {
  /** The items' generation now (as of the last commit that resolved). */
  generation(): number;
  /** Every stored snapshot with its stamp. */
  read(): Promise<Map<string, { generation: number; bytes: Uint8Array }>>;
  /**
   * Replaces every stored snapshot with `entries`, stamped `generation`, only if that is still the
   * items' generation (checked in the write's own transaction); resolves false, writing nothing, if not.
   */
  write(generation: number, entries: ReadonlyMap<string, Uint8Array>): Promise<boolean>;
}
