/**
 * The vector leg: exact cosine over one partition's unit vectors. A flat scan is exact (no
 * recall lost to an approximate graph), needs no build step when a memory opens, and at the
 * sizes one owner's memory reaches (thousands to tens of thousands of records) it answers in
 * about a millisecond.
 */
import type { RecordKind } from '../records.js';

export interface VectorHit {
  id: string;
  score: number;
}

interface Entry {
  kind: RecordKind;
  vector: Float32Array;
}

/** Dot product; both sides are unit vectors, so this is their cosine. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Exact cosine search over a partition's vectors. */
export class VectorIndex {
  private readonly entries = new Map<string, Entry>();

  get size(): number {
    return this.entries.size;
  }

  add(id: string, kind: RecordKind, vector: Float32Array): void {
    this.entries.set(id, { kind, vector });
  }

  remove(id: string): void {
    this.entries.delete(id);
  }

  get(id: string): Float32Array | undefined {
    return this.entries.get(id)?.vector;
  }

  /** The cosine of every vector of the given kinds, in no particular order. */
  scores(query: Float32Array, kinds: readonly RecordKind[]): VectorHit[] {
    const wanted = new Set(kinds);
    const hits: VectorHit[] = [];
    for (const [id, entry] of this.entries) {
      if (wanted.has(entry.kind)) hits.push({ id, score: dot(query, entry.vector) });
    }
    return hits;
  }

  /** Every vector of the given kinds with cosine ≥ `floor`, best first. */
  search(query: Float32Array, kinds: readonly RecordKind[], floor = -1): VectorHit[] {
    return this.scores(query, kinds)
      .filter((h) => h.score >= floor)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  }
}
