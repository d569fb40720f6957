/**
 * Builds partitions' indexes ahead of their first search: restored from a snapshot where one was
 * offered, else made from the records. An engine that opens for a person (the browser worker)
 * starts this as soon as its records are loaded, while the embedding model may still be loading,
 * so that the first query only searches. One partition per task, largest first, so that the
 * worker still answers messages (and the model's own reads go on) between partitions.
 */
import type { Partition } from './partition.js';

export interface WarmUp {
  /** Stops before the next partition (the one being built finishes); idempotent. */
  stop(): void;
}

/** Starts building every partition of `partitions` not built yet, one per task, largest first. */
export function warmUp(partitions: Iterable<Partition>): WarmUp {
  const pending = [...partitions].sort((a, b) => b.size - a.size);
  let stopped = false;
  const next = () => {
    const partition = pending.shift();
    if (stopped || !partition) return;
    // A search may have built it meanwhile: indexes() then only returns them.
    partition.indexes();
    setTimeout(next, 0);
  };
  setTimeout(next, 0);
  return {
    stop() {
      stopped = true;
    },
  };
}
