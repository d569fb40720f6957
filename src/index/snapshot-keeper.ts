/**
 * Keeps a memory's keyword snapshots in step with its records, for a store that offers a
 * `SnapshotShelf` (IndexedDB). At open, the snapshots stamped with the items' generation are
 * offered to their partitions; afterwards, once the memory has been quiet for a moment after a
 * change (a commit, or a partition built from its records), every partition's snapshot is written
 * again stamped with the generation the state now reflects, and once more at close if a change is
 * still unsaved. A write the items outran (a commit in between) is refused by the shelf and retried.
 *
 * The generation read here is the store's after the last commit that resolved; the engine applies
 * a commit to its state in the same run of microtasks as the commit resolves, and saving runs in
 * a timer task, so the state and the generation it is stamped with never disagree.
 */
import type { MemoryState } from '../memory-state.js';
import type { SnapshotShelf, StorageAdapter } from '../store/port.js';
import { parseKeywordSnapshot, type ParsedKeywordSnapshot } from './snapshot.js';

/** Stored snapshots by partition key; `parsed` when read ahead (see `readSnapshots`). */
interface StoredSnapshot {
  generation: number;
  bytes: Uint8Array;
  parsed?: ParsedKeywordSnapshot;
}
type Stored = Map<string, StoredSnapshot>;

export interface SnapshotKeeper {
  /** How many stored snapshots were offered at open (each is still checked when used). */
  readonly offered: number;
  /** Writes what is unsaved now (also what `close` does first). */
  flush(): Promise<void>;
  /** Stops keeping: writes what is unsaved, then lets go of the state. */
  close(): Promise<void>;
}

export interface KeeperOptions {
  /** Quiet time after a change before snapshots are written (default 2 s). */
  delayMs?: number;
  /** A failed snapshot write costs only speed at the next open; it is reported here. */
  onError?: (error: unknown) => void;
}

/**
 * The store's stored snapshots, or none when it keeps none or they cannot be read (they are only a
 * shortcut). With `parse`, the largest is also read as far as it can be without the records (most
 * of a restore), as soon as it arrives: an open that warms its largest partition (warm-up.ts) does
 * that while the records are still being read. The others stay bytes until their partition's first
 * search, as their indexes do. One that fails to parse is left as bytes, and refused when offered.
 */
export async function readSnapshots(store: StorageAdapter, options: { parse?: boolean } = {}): Promise<Stored> {
  let stored: Stored;
  try {
    stored = (await store.snapshots?.read()) ?? new Map();
  } catch {
    return new Map();
  }
  if (!options.parse) return stored;
  let largest: StoredSnapshot | undefined;
  for (const entry of stored.values()) if (!largest || entry.bytes.length > largest.bytes.length) largest = entry;
  if (largest) {
    try {
      largest.parsed = parseKeywordSnapshot(largest.bytes, largest.generation);
    } catch {
      // refused again, with its reason, when its partition restores it
    }
  }
  return stored;
}

/** Offers `stored` to `state`'s partitions and keeps the shelf's snapshots current from then on. */
export function keepSnapshots(state: MemoryState, shelf: SnapshotShelf, stored: Stored, options: KeeperOptions = {}): SnapshotKeeper {
  const delay = options.delayMs ?? 2000;
  const offered = state.offerSnapshots(stored, shelf.generation());
  // Snapshots that were not offered (stale, or of a partition that is gone) are replaced at the next
  // write, and so are partitions already built from their records (warmed before this keeper started).
  let unsaved = offered !== stored.size || [...state.partitions.values()].some((p) => p.built === 'records');
  let timer: ReturnType<typeof setTimeout> | null = null;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  const save = async (): Promise<void> => {
    if (!unsaved) return;
    unsaved = false;
    const generation = shelf.generation();
    const entries = state.snapshots(generation);
    try {
      const written = await shelf.write(generation, entries);
      // The items moved on while writing: what was encoded describes older items; encode again.
      if (!written) schedule();
    } catch (error) {
      unsaved = true;
      options.onError?.(error);
    }
  };
  const run = () => {
    timer = null;
    writing = writing.then(save);
    return writing;
  };
  function schedule(): void {
    unsaved = true;
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, delay);
  }
  state.onChange = schedule;
  if (unsaved) schedule();

  return {
    offered,
    async flush() {
      if (timer) clearTimeout(timer);
      await run();
    },
    async close() {
      if (closed) return;
      closed = true;
      state.onChange = null;
      if (timer) clearTimeout(timer);
      await run();
    },
  };
}
