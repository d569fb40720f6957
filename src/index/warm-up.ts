/**
 * Builds the largest partition's indexes ahead of its first search: restored from a snapshot where
 * one was offered, else made from the records. An engine that opens for a person (the browser
 * worker) starts this as soon as its records are loaded, in a task of its own, so that by the time
 * the person types the first query only searches (restoring 10k records' keyword index takes
 * ~0.2 s, rebuilding it ~1 s). A query sent the moment the memory opens gains nothing: the work is
 * the same, on the same thread (docs/performance.md, cold open). Only the largest partition: in a
 * person's memory that is the person's own, and building every owner's indexes would hold memory
 * for partitions that may never be searched; the others are built by their first search.
 */
import type { Partition } from './partition.js';

export interface WarmUp {
  /** Stops before the next partition (the one being built finishes); idempotent. */
  stop(): void;
}

/** Starts building the largest partition of `partitions` in a task of its own, unless stopped first. */
export function warmUp(partitions: Iterable<Partition>): WarmUp {
  let largest: Partition | null = null;
  for (const partition of partitions) if (!largest || partition.size > largest.size) largest = partition;
  let stopped = false;
  setTimeout(() => {
    // A search may have built it meanwhile: indexes() then only returns them.
    if (!stopped) largest?.indexes();
  }, 0);
  return {
    stop() {
      stopped = true;
    },
  };
}
