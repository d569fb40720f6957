/**
 * Orama's index component with a bounded full-text search, handed to Orama through its
 * `components` interface: Orama stays the keyword leg's API and keeps its own index (radix tree,
 * term frequencies, field lengths), and only the scoring loop is replaced. Measured at 10k records,
 * Orama's own search spends most of a query in three places that a memory's search does not need:
 *   - its radix lookup collects every word that starts with a query term, de-duplicating document
 *     ids with `Array.includes` (quadratic in a term's document count); Engram's terms end with a
 *     marker no word continues, so the word itself is found by walking the tree;
 *   - it allocates a per-document Map for the all-terms threshold, which Engram never asks for;
 *   - it sorts every match, then Orama sorts them again, to keep ten.
 * Here each matching document's BM25 is the same formula over the same statistics, summed in the
 * same order, so scores are bit-for-bit Orama's; only the best few hundred of each record kind
 * leave, chosen as Orama orders them (score, then internal id). Any other kind of search (exact, typo tolerance, an
 * all-terms threshold) goes to Orama's own code.
 */
import { index as oramaIndex } from '@orama/orama/components';
import { topK } from './top-k.js';

interface RadixNode {
  /** Edge label into this node. */
  s: string;
  /** The word ending here, if `e`. */
  w: string;
  e: boolean;
  d: Set<number>;
  c: Map<string, RadixNode>;
}

interface IndexData {
  indexes: Record<string, { type: string; node: RadixNode }>;
  frequencies: Record<string, Record<number, Record<string, number> | undefined>>;
  tokenOccurrences: Record<string, Record<string, number>>;
  fieldLengths: Record<string, Record<number, number>>;
  avgFieldLength: Record<string, number>;
}

interface Relevance {
  k: number;
  b: number;
  d: number;
}

type Search = (
  index: IndexData, term: string, tokenizer: { tokenize(raw: string, language?: string): string[] }, language: string | undefined,
  properties: string[], exact: boolean, tolerance: number, boost: Record<string, number>, relevance: Relevance,
  docsCount: number, whereFiltersIDs: Set<number> | undefined, threshold: number,
) => [number, number][];

/** The documents holding exactly `word`, or none. */
function postings(root: RadixNode, word: string): Set<number> | undefined {
  let node = root;
  let i = 0;
  while (i < word.length) {
    const child = node.c.get(word[i]!);
    if (!child || !word.startsWith(child.s, i)) return undefined;
    node = child;
    i += child.s.length;
  }
  return node.e && node.w === word ? node.d : undefined;
}

/** Orama's BM25 (components/algorithms.js), kept identical so scores do not move. */
function bm25(tf: number, matching: number, docs: number, length: number, avgLength: number, { k, b, d }: Relevance): number {
  const idf = Math.log(1 + (docs - matching + 0.5) / (matching + 0.5));
  return (idf * (d + tf * (k + 1))) / (tf + k * (1 - b + (b * length) / avgLength));
}

/** One term's postings as typed arrays: document ids, term frequencies, field lengths. */
interface Postings {
  ids: Int32Array;
  tf: Float64Array;
  lengths: Float64Array;
}

/**
 * An Orama index component whose full-text search returns at most the `limit()` best hits of each
 * group of documents (`group(internalId)`: the caller's record kinds).
 */
export function boundedIndex(limit: () => number, group: (internalId: number) => number): ReturnType<typeof oramaIndex.createIndex> {
  const base = oramaIndex.createIndex();
  const fallback = base.search as unknown as Search;
  // Per property and term, the postings read out of Orama's index once (its per-document objects
  // are slow to walk at every query); dropped whenever a document goes in or out.
  const cache = new Map<string, Postings | null>();
  let scores = new Float64Array(0);
  let seen = new Uint32Array(0);
  let epoch = 0;

  const postingsOf = (index: IndexData, prop: string, token: string): Postings | null => {
    const cacheKey = `${prop}\u0000${token}`;
    let p = cache.get(cacheKey);
    if (p !== undefined) return p;
    const docs = postings(index.indexes[prop]!.node, token);
    if (!docs) p = null;
    else {
      const frequencies = index.frequencies[prop]!;
      const lengths = index.fieldLengths[prop]!;
      const ids = Int32Array.from(docs);
      p = { ids, tf: Float64Array.from(ids, (id) => frequencies[id]?.[token] ?? 0), lengths: Float64Array.from(ids, (id) => lengths[id]!) };
    }
    cache.set(cacheKey, p);
    return p;
  };

  const search: Search = (index, term, tokenizer, language, properties, exact, tolerance, boost, relevance, docsCount, whereFiltersIDs, threshold) => {
    if (exact || tolerance || threshold !== 1) {
      return fallback(index, term, tokenizer, language, properties, exact, tolerance, boost, relevance, docsCount, whereFiltersIDs, threshold);
    }
    const tokens = tokenizer.tokenize(term, language);
    const touched: number[] = [];
    if (++epoch === 0xffffffff) {
      seen.fill(0);
      epoch = 1;
    }
    for (const prop of properties) {
      if (!index.indexes[prop]) continue;
      const weight = boost[prop] ?? 1;
      const occurrences = index.tokenOccurrences[prop]!;
      const avgLength = index.avgFieldLength[prop]!;
      for (const token of tokens) {
        const p = postingsOf(index, prop, token);
        if (!p) continue;
        const matching = typeof occurrences[token] === 'number' ? occurrences[token] : 0;
        const { ids, tf, lengths } = p;
        for (let k = 0; k < ids.length; k++) {
          const id = ids[k]!;
          if (whereFiltersIDs && !whereFiltersIDs.has(id)) continue;
          const s = bm25(tf[k]!, matching, docsCount, lengths[k]!, avgLength, relevance) * weight;
          if (id >= seen.length) grow(id + 1);
          if (seen[id] !== epoch) {
            seen[id] = epoch;
            scores[id] = s;
            touched.push(id);
          } else scores[id] = scores[id]! + s;
        }
      }
    }
    const values = Float64Array.from(touched, (id) => scores[id]!);
    // The best `limit()` of each group (a record kind), so a kind whose documents score low (long
    // episodes next to short facts) still has its own best hits. Orama orders equal scores by
    // internal id, and so does this selection.
    const byGroup = new Map<number, number[]>();
    for (let i = 0; i < touched.length; i++) {
      const g = group(touched[i]!);
      let list = byGroup.get(g);
      if (!list) byGroup.set(g, (list = []));
      list.push(i);
    }
    const k = limit();
    const out: [number, number][] = [];
    for (const list of byGroup.values()) {
      const picked = list.length <= k ? list : topK(Float64Array.from(list, (i) => values[i]!), list.length, k, -Infinity, (j) => touched[list[j]!]!).map((j) => list[j]!);
      for (const i of picked) out.push([touched[i]!, values[i]!]);
    }
    return out;
  };

  const grow = (size: number) => {
    const capacity = Math.max(1024, size * 2);
    const nextScores = new Float64Array(capacity);
    nextScores.set(scores);
    scores = nextScores;
    const nextSeen = new Uint32Array(capacity);
    nextSeen.set(seen);
    seen = nextSeen;
  };

  const invalidating = <F extends (...args: never[]) => unknown>(f: F): F =>
    ((...args: Parameters<F>) => {
      cache.clear();
      return f(...args);
    }) as F;
  return {
    ...base,
    insert: invalidating(base.insert),
    remove: invalidating(base.remove),
    load: invalidating(base.load),
    search: search as unknown as typeof base.search,
  };
}
