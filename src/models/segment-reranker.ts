/**
 * A Reranker over a sentence encoder: each candidate is cut into sentences (or lines, one per
 * conversation turn) and scores its best one against the query (a memory is relevant when one
 * thing it says answers the query, however much else it says). Segment vectors are kept in an
 * LRU cache, so agentic round 2 and repeated searches over the same memories embed only the query
 * and what they have not seen. Platform-free: the teacher's loaders (teacher-reranker.ts in Node,
 * teacher-browser.ts in a browser) hand it their encoder.
 */

import { MemoryError, throwIfAborted, wrapError } from '../errors.js';
import { runPlanned } from './batches.js';
import type { ModelCallOptions, Reranker, RerankCandidate } from './ports.js';

/** The one call the reranker needs from a sentence encoder. */
export interface SentenceEncoder {
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
  /** Frees what the encoder holds (a worker thread); optional. */
  close?(): Promise<void>;
}

/** How a candidate text is cut before it is embedded. */
export type SegmentSplit = 'sentence' | 'line';

/** Options of createSegmentReranker. */
export interface SegmentRerankerOptions {
  /** 'sentence' (default): lines, then sentences; 'line': one segment per line (a conversation turn). */
  split?: SegmentSplit;
  /** Segments embedded per candidate, the first ones. Default 64. */
  maxSegments?: number;
  /** Segments whose vectors are kept, least recently used dropped first. Default 8192 (about 16 MB). */
  cacheSize?: number;
  /** Texts per encoder call, texts of like length together (see `encode`). Default 8. */
  batchSize?: number;
  /** Reranker id. Default `segment-rerank:<split>`. */
  id?: string;
}

/** The reranker, with cache counters and a way to embed candidates ahead of the query. */
export interface SegmentReranker extends Reranker {
  /** Embeds candidate texts into the cache now (e.g. at ingestion), so a later rerank only embeds the query. */
  prime(texts: readonly string[], options?: ModelCallOptions): Promise<void>;
  readonly cacheStats: { hits: number; misses: number; size: number };
  /** Frees what the encoder holds (the teacher's worker thread in Node; a later call starts it again). */
  close(): Promise<void>;
}

// Segments shorter than this many characters carry no meaning of their own ("Ok.", "Hi!").
const MIN_SEGMENT_CHARS = 3;
/**
 * A segment is read to this many characters. The encoder's cost grows faster than a text's length
 * (one line of 95,000 characters, within what a message may carry, took 12.6 s on two cores), so an
 * unbounded line would let one stored message stall every agentic search that reads it; a
 * sentence or a conversation turn fits well inside (80 lines of 1,000 characters: 5.6 s cold).
 * Only what the reranker reads is cut, never what is stored or returned; a query is read the same way.
 */
export const MAX_SEGMENT_CHARS = 1000;

/** Cuts a text into the segments that are embedded: non-empty lines, then sentences within them. */
export function splitSegments(text: string, split: SegmentSplit = 'sentence', maxSegments = 64): string[] {
  const lines = text.split(/\r?\n+/);
  const pieces = split === 'line' ? lines : lines.flatMap((line) => line.split(/(?<=[.!?…]["')\]]*)\s+/));
  const out: string[] = [];
  for (const piece of pieces) {
    const segment = piece.trim().slice(0, MAX_SEGMENT_CHARS);
    if (segment.length >= MIN_SEGMENT_CHARS && /[\p{L}\p{N}]/u.test(segment)) out.push(segment);
    if (out.length >= maxSegments) break;
  }
  return out;
}

/**
 * The reranker over `encoder`. Scores are the best segment's cosine with the query, clamped to
 * 0..1; results are every candidate once, best first (input order breaks ties). A candidate
 * without text scores 0.
 */
export function createSegmentReranker(encoder: SentenceEncoder, options: SegmentRerankerOptions = {}): SegmentReranker {
  const split = options.split ?? 'sentence';
  const maxSegments = Math.max(1, options.maxSegments ?? 64);
  const cacheSize = Math.max(0, options.cacheSize ?? 8192);
  const batchSize = Math.max(1, options.batchSize ?? 8);

  // Vectors by segment, not by candidate text: agentic search hands the reranker what each
  // candidate says about the query (its best facts), so the same fact recurs in texts that differ.
  const cache = new Map<string, Float32Array>();
  const stats = { hits: 0, misses: 0 };

  /**
   * Vectors of `texts`, in their order. An encoder call pads its texts to the longest of them, so
   * they go in small batches of like length (batches.ts). With the Universal Sentence Encoder lite
   * a cold agentic search (`npx tsx bench/teacher-thread.ts --limit 10`, worker thread) took
   * 2.98–3.10 s that way against 4.88–4.94 s in batches of 32 as they came; the vectors agree
   * to about 1e-7.
   */
  const encode = (texts: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> =>
    runPlanned(texts.map((t) => t.length), { maxBatch: batchSize, maxTokens: Infinity }, signal, async (batch) => {
      let rows: ArrayLike<number>[];
      try {
        rows = await encoder.embed(batch.map((at) => texts[at]!));
      } catch (error) {
        throw wrapError(error, 'MODEL_FAILED', 'The sentence encoder failed');
      }
      if (rows.length !== batch.length) throw new MemoryError('MODEL_FAILED', { message: 'The sentence encoder returned the wrong number of vectors.' });
      return rows.map(unit);
    });

  const remember = (segment: string, vector: Float32Array) => {
    if (cacheSize === 0) return;
    cache.delete(segment);
    cache.set(segment, vector);
    while (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
  };

  /**
   * Segment vectors of each text, from the cache where possible; the rest embedded in shared
   * batches. Entries are kept per `cacheScope` (the partition searched): a segment another scope
   * embedded is embedded again, so no caller can time whether someone else's memory holds a text.
   */
  const segmentVectors = async (texts: readonly string[], callOptions: ModelCallOptions): Promise<Float32Array[][]> => {
    const segments = texts.map((text) => splitSegments(text, split, maxSegments));
    const scoped = (segment: string) => (callOptions.cacheScope === undefined ? segment : `${callOptions.cacheScope}\u0001${segment}`);
    const known = new Map<string, Float32Array>();
    const missing = new Set<string>();
    for (const segment of segments.flat()) {
      if (known.has(segment) || missing.has(segment)) continue;
      const hit = cache.get(scoped(segment));
      if (hit) {
        stats.hits++;
        remember(scoped(segment), hit); // refresh its place in the LRU order
        known.set(segment, hit);
      } else missing.add(segment);
    }
    stats.misses += missing.size;
    const fresh = [...missing];
    const vectors = await encode(fresh, callOptions.signal);
    for (const [i, segment] of fresh.entries()) {
      known.set(segment, vectors[i] as Float32Array);
      remember(scoped(segment), vectors[i] as Float32Array);
    }
    return segments.map((list) => list.map((segment) => known.get(segment) as Float32Array));
  };

  return {
    id: options.id ?? `segment-rerank:${split}`,
    get cacheStats() {
      return { ...stats, size: cache.size };
    },
    async close() {
      await encoder.close?.();
    },
    async prime(texts, callOptions = {}) {
      throwIfAborted(callOptions.signal);
      await segmentVectors(texts, callOptions);
    },
    async rerank(query: string, candidates: readonly RerankCandidate[], callOptions: ModelCallOptions = {}) {
      throwIfAborted(callOptions.signal);
      if (!candidates || candidates.length === 0) return [];
      // The query is read as a segment is, to its first MAX_SEGMENT_CHARS (a request may carry 16,000).
      const [queryVector] = await encode([query.slice(0, MAX_SEGMENT_CHARS)], callOptions.signal);
      const perCandidate = await segmentVectors(candidates.map((c) => c.text ?? ''), callOptions);
      return candidates
        .map((candidate, index) => ({ id: candidate.id, score: best(queryVector as Float32Array, perCandidate[index] ?? []), index }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .map(({ id, score }) => ({ id, score }));
    },
  };
}

function best(query: Float32Array, segments: readonly Float32Array[]): number {
  let top = 0;
  for (const s of segments) {
    let dot = 0;
    for (let d = 0; d < query.length; d++) dot += (query[d] as number) * (s[d] as number);
    if (dot > top) top = dot;
  }
  return Math.min(1, top);
}

function unit(values: ArrayLike<number>): Float32Array {
  const v = Float32Array.from(values);
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

