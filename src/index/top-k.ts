/**
 * Bounded best-k selection over scores held in a typed array. A search wants its best few hundred
 * candidates out of tens of thousands: a size-k heap keeps that O(n log k) with no per-candidate
 * object, where sorting every score would allocate and sort all n.
 */

/**
 * Indices of the best `k` entries of `scores[0..count)` that are ≥ `floor` (NaN never is), best
 * first. Ties are broken by `key` ascending (record ids), the order a full sort by
 * `(score desc, key asc)` gives; `key` is only called on equal scores.
 */
export function topK(scores: ArrayLike<number>, count: number, k: number, floor: number, key: (i: number) => string | number): number[] {
  if (k <= 0) return [];
  // A min-heap on (score, then key descending): its root is the worst of the best k so far.
  const heap: number[] = [];
  const worse = (a: number, b: number): boolean => {
    const sa = scores[a]!;
    const sb = scores[b]!;
    return sa < sb || (sa === sb && key(a) > key(b));
  };
  const siftDown = (at: number): void => {
    const n = heap.length;
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let m = at;
      if (l < n && worse(heap[l]!, heap[m]!)) m = l;
      if (r < n && worse(heap[r]!, heap[m]!)) m = r;
      if (m === at) return;
      [heap[at], heap[m]] = [heap[m]!, heap[at]!];
      at = m;
    }
  };
  const siftUp = (at: number): void => {
    while (at > 0) {
      const p = (at - 1) >> 1;
      if (!worse(heap[at]!, heap[p]!)) return;
      [heap[at], heap[p]] = [heap[p]!, heap[at]!];
      at = p;
    }
  };
  let rootScore = -Infinity;
  for (let i = 0; i < count; i++) {
    const s = scores[i]!;
    if (!(s >= floor)) continue;
    if (heap.length < k) {
      heap.push(i);
      siftUp(heap.length - 1);
      rootScore = scores[heap[0]!]!;
    } else if (s > rootScore || (s === rootScore && key(i) < key(heap[0]!))) {
      heap[0] = i;
      siftDown(0);
      rootScore = scores[heap[0]!]!;
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}
