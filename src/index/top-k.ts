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

/**
 * The best `k` of each group among `ids[0..count)`, merged best first: by score (`scores[id]`)
 * descending, then id ascending (Orama's order for equal scores). Numbers only, no callback: the
 * keyword leg runs this over every matching document (thousands per query at 10k records).
 * `groups[id]` is the id's group (below 256).
 */
export function topKPerGroup(ids: Int32Array, count: number, scores: Float64Array, groups: Uint8Array, k: number): Int32Array {
  if (k <= 0) return new Int32Array(0);
  const sizes = new Int32Array(256);
  for (let i = 0; i < count; i++) sizes[groups[ids[i]!] ?? 0]!++;
  // A group with at most k ids keeps them all; a larger one keeps its best k through a min-heap
  // whose root is the worst kept (score ascending, then id descending).
  const heaps: (Int32Array | undefined)[] = [];
  const filled = new Int32Array(256);
  let kept = 0;
  for (let g = 0; g < 256; g++) {
    if (sizes[g]! > k) heaps[g] = new Int32Array(k);
    kept += Math.min(sizes[g]!, k);
  }
  // `a` ranks below `b` (lower score, or the same score and a higher id).
  const below = (a: number, b: number) => {
    const sa = scores[a]!;
    const sb = scores[b]!;
    return sa < sb || (sa === sb && a > b);
  };
  const out = new Int32Array(kept);
  let o = 0;
  for (let i = 0; i < count; i++) {
    const id = ids[i]!;
    const g = groups[id] ?? 0;
    const heap = heaps[g];
    if (!heap) {
      out[o++] = id;
      continue;
    }
    const n = filled[g]!;
    if (n < k) {
      // Sift up.
      let at = n;
      filled[g] = n + 1;
      while (at > 0) {
        const p = (at - 1) >> 1;
        const parent = heap[p]!;
        if (!below(id, parent)) break;
        heap[at] = parent;
        at = p;
      }
      heap[at] = id;
    } else if (below(heap[0]!, id)) {
      // Replace the root and sift down.
      let at = 0;
      for (;;) {
        const l = 2 * at + 1;
        if (l >= k) break;
        const r = l + 1;
        const c = r < k && below(heap[r]!, heap[l]!) ? r : l;
        if (!below(heap[c]!, id)) break;
        heap[at] = heap[c]!;
        at = c;
      }
      heap[at] = id;
    }
  }
  for (const heap of heaps) if (heap) for (let i = 0; i < heap.length; i++) out[o++] = heap[i]!;
  sortByScore(out, scores);
  return out;
}

/**
 * Sorts ids in place by `scores[id]` descending, then id ascending: a strict order (ids are
 * distinct), so the result is the one any correct sort gives. A heapsort with the comparison
 * written inline: a typed array's `sort` with a comparator calls it through the engine's generic
 * path, which cost more than the rest of the keyword leg's selection at 10k records.
 */
export function sortByScore(ids: Int32Array, scores: Float64Array): void {
  const n = ids.length;
  // `a` ranks after `b` (lower score, or the same score and a higher id): a max-heap on "ranks
  // after" puts the last in order at the root, which goes to the end.
  const after = (a: number, b: number) => {
    const sa = scores[a]!;
    const sb = scores[b]!;
    return sa < sb || (!(sa > sb) && a > b);
  };
  const siftDown = (start: number, end: number) => {
    let at = start;
    const id = ids[at]!;
    for (;;) {
      let c = 2 * at + 1;
      if (c >= end) break;
      if (c + 1 < end && after(ids[c + 1]!, ids[c]!)) c++;
      if (!after(ids[c]!, id)) break;
      ids[at] = ids[c]!;
      at = c;
    }
    ids[at] = id;
  };
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(i, n);
  for (let end = n - 1; end > 0; end--) {
    const top = ids[0]!;
    ids[0] = ids[end]!;
    ids[end] = top;
    siftDown(0, end);
  }
}

/**
 * The best `k` values of `scores[0..count)`, best first, NaN skipped: `topK`'s values when only
 * the values matter (a leg's distribution for its z-scores), with no key and no callback, so it
 * runs over ten thousand cosines per query at the cost of reading them.
 */
export function topValues(scores: ArrayLike<number>, count: number, k: number): number[] {
  if (k <= 0) return [];
  // A min-heap of the best values so far: its root is the worst kept.
  const heap = new Float64Array(k);
  let n = 0;
  for (let i = 0; i < count; i++) {
    const s = scores[i]!;
    if (Number.isNaN(s)) continue;
    if (n < k) {
      let at = n++;
      while (at > 0) {
        const p = (at - 1) >> 1;
        if (heap[p]! <= s) break;
        heap[at] = heap[p]!;
        at = p;
      }
      heap[at] = s;
    } else if (s > heap[0]!) {
      let at = 0;
      for (;;) {
        const l = 2 * at + 1;
        if (l >= k) break;
        const r = l + 1;
        const c = r < k && heap[r]! < heap[l]! ? r : l;
        if (heap[c]! >= s) break;
        heap[at] = heap[c]!;
        at = c;
      }
      heap[at] = s;
    }
  }
  return Array.from(heap.subarray(0, n)).sort((a, b) => b - a);
}
