/**
 * Orama's index component with a bounded full-text search, handed to Orama through its
 * `components` interface: Orama stays the keyword leg's index (radix tree, term frequencies, field
 * lengths, the statistics BM25 reads) and only the scoring path is replaced. Measured at 10k
 * records, Orama's own search spends most of a query in places that a memory's search does not need:
 *   - its radix lookup collects every word that starts with a query term, de-duplicating document
 *     ids with `Array.includes` (quadratic in a term's document count); Engram's terms end with a
 *     marker no word continues, so only the word itself can match;
 *   - it allocates a per-document Map for the all-terms threshold, which Engram never asks for,
 *     and reads each term frequency out of a per-document object;
 *   - it sorts every match, then sorts again and wraps each hit in a fresh object, to keep a few.
 * Here each matching document's BM25 is the same formula over the same statistics, summed in the
 * same order, so scores are bit-for-bit Orama's; only the best few hundred of each group (the
 * caller's record kinds) leave, ordered as Orama orders them (score, then internal id). One
 * statistic may differ, when the caller asks: a term's idf counted among the documents of the
 * hit's own family of kinds rather than the whole index (`BoundedSearch.families`,
 * keyword-index.ts `FAMILY`).
 *
 * Postings are kept by this component as typed arrays from the moment a document goes in (one
 * `Int32Array` of internal ids and one `Float64Array` of term frequencies per term, plus one field
 * length per document), next to Orama's own structures, which stay as they are. A search reads
 * them and nothing else of Orama's index but its document-frequency and average-length statistics.
 * After `load` (a restored Orama index) they are rebuilt from Orama's tree at the next search.
 * Any other kind of search through Orama (exact, typo tolerance, an all-terms threshold) goes to
 * Orama's own code.
 */
import { index as oramaIndex } from '@orama/orama/components';
import { topKPerGroup } from './top-k.js';
import { grown } from './typed-arrays.js';

interface RadixNode {
  /** The word ending here, if `e`. */
  w: string;
  e: boolean;
  d: Set<number>;
  c: Map<string, RadixNode>;
}

export interface IndexData {
  indexes: Record<string, { type: string; node: RadixNode }>;
  frequencies: Record<string, Record<number, Record<string, number> | undefined>>;
  tokenOccurrences: Record<string, Record<string, number>>;
  fieldLengths: Record<string, Record<number, number | undefined>>;
  avgFieldLength: Record<string, number>;
}

export interface Relevance {
  k: number;
  b: number;
  d: number;
}

/** Orama's defaults (methods/search-fulltext.js), which Orama's own search applies when none are given. */
export const DEFAULT_RELEVANCE: Relevance = { k: 1.2, b: 0.75, d: 0.5 };

type Component = ReturnType<typeof oramaIndex.createIndex>;
type Search = (
  index: IndexData, term: string, tokenizer: { tokenize(raw: string, language?: string): string[] }, language: string | undefined,
  properties: string[], exact: boolean, tolerance: number, boost: Record<string, number>, relevance: Relevance,
  docsCount: number, whereFiltersIDs: Set<number> | undefined, threshold: number,
) => [number, number][];
type Remove = (implementation: unknown, index: IndexData, prop: string, id: unknown, internalId: number, value: unknown, schemaType: string, ...rest: unknown[]) => unknown;
type ScoreParameters = (index: IndexData, prop: string, internalId: number, tokens: string[], docsCount: number) => void;
type TokenScoreParameters = (index: IndexData, prop: string, internalId: number, tokens: string[], token: string) => void;
type Load = (store: unknown, raw: unknown) => IndexData;

/** One term's documents: internal ids and Orama's term frequency for each, `n` of them in use. */
class TermPostings {
  // Given (a snapshot's postings, see `adoptPostings`) or empty; the defaults are only made when not given.
  constructor(
    public ids: Int32Array = new Int32Array(4),
    public tf: Float64Array = new Float64Array(4),
    public n = 0,
  ) {}

  /**
   * How many of its documents each family holds (`BoundedSearch.families`), counted at the first
   * search that needs it and kept until the postings change; for the `of` map it was counted with.
   */
  familyCounts: Float64Array | null = null;
  countedWith: Uint8Array | null = null;

  add(id: number, tf: number): void {
    this.familyCounts = null;
    if (this.n === this.ids.length) {
      const capacity = Math.max(4, this.n * 2);
      this.ids = grown(this.ids, capacity);
      this.tf = grown(this.tf, capacity);
    }
    this.ids[this.n] = id;
    this.tf[this.n++] = tf;
  }

  /** Removes a document; the last posting moves into its place (a document's score does not depend on the order). */
  delete(id: number): void {
    this.familyCounts = null;
    const { ids } = this;
    for (let i = 0; i < this.n; i++) {
      if (ids[i] !== id) continue;
      const last = --this.n;
      ids[i] = ids[last]!;
      this.tf[i] = this.tf[last]!;
      return;
    }
  }
}

/** One property's postings and field lengths (by internal id). */
interface PropertyPostings {
  terms: Map<string, TermPostings>;
  lengths: Float64Array;
}

/** A bounded search's answer: internal ids and their scores, best first (score, then internal id). */
export interface BoundedHits {
  ids: Int32Array;
  scores: Float64Array;
}

/** Every group passes (group numbers are below 32). */
export const ALL_GROUPS = 0xffffffff;

export interface BoundedSearch {
  tokens: readonly string[];
  properties: readonly string[];
  boost?: Record<string, number>;
  relevance: Relevance;
  docsCount: number;
  /** How many hits of each group to keep. */
  limit: number;
  /** Per internal id, its group (a record kind's number, below 32). */
  groups: Uint8Array;
  /** Bit `g` set: group `g` is searched. */
  groupMask: number;
  whereFiltersIDs?: Set<number> | undefined;
  /**
   * Where a term's rarity is counted. Absent: over the whole index, as Orama counts it. Given: a
   * document of a group whose family is not 0 gets the idf of the term among its family's documents
   * alone (`docs[family]` of them); family 0 keeps the whole index's.
   */
  families?: SearchFamilies;
}

/** Families of groups for the idf (`BoundedSearch.families`). */
export interface SearchFamilies {
  /** Group number → family (0: the whole index). */
  of: Uint8Array;
  /** Family → how many documents it holds. */
  docs: Float64Array;
}

/**
 * The BM25 side of the keyword leg: `component` goes to Orama's `create({ components: { index } })`,
 * and `search` answers a bounded query over that Orama's index data without Orama's result path.
 */
export class BoundedBm25 {
  readonly component: Component;
  private readonly byProperty = new Map<string, PropertyPostings>();
  /** Set by `load`: the postings are rebuilt from Orama's restored index before the next search. */
  private stale = false;
  // Per-query scratch, reused: a score and an epoch stamp per internal id, and the touched ids.
  private scores = new Float64Array(0);
  private seen = new Uint32Array(0);
  private touched = new Int32Array(0);
  private epoch = 0;
  /** The largest internal id with postings, so the scratch arrays cover every id. */
  private maxId = 0;

  /**
   * `limit()` and `groups()` serve searches that come through Orama's own `search` (the component
   * interface cannot carry them): how many hits of each group to keep, and each internal id's group.
   */
  constructor(limit: () => number, groups: () => Uint8Array) {
    const base = oramaIndex.createIndex();
    const fallback = base.search as unknown as Search;
    const insertDocument = base.insertDocumentScoreParameters as unknown as ScoreParameters;
    const insertToken = base.insertTokenScoreParameters as unknown as TokenScoreParameters;
    const remove = base.remove as unknown as Remove;
    const load = base.load as unknown as Load;
    const search: Search = (index, term, tokenizer, language, properties, exact, tolerance, boost, relevance, docsCount, whereFiltersIDs, threshold) => {
      if (exact || tolerance || threshold !== 1) {
        return fallback(index, term, tokenizer, language, properties, exact, tolerance, boost, relevance, docsCount, whereFiltersIDs, threshold);
      }
      const hits = this.search(index, {
        tokens: tokenizer.tokenize(term, language), properties, boost, relevance, docsCount, limit: limit(), groups: groups(), groupMask: ALL_GROUPS, whereFiltersIDs,
      });
      return Array.from(hits.ids, (id, i) => [id, hits.scores[i]!] as [number, number]);
    };
    this.component = {
      ...base,
      // Orama calls these two on the component it was given, once per document and once per term
      // of it, right after computing what they record: the postings are appended from there.
      insertDocumentScoreParameters: ((index, prop, internalId, tokens, docsCount) => {
        insertDocument(index, prop, internalId, tokens, docsCount);
        if (!this.stale) this.setLength(prop, internalId, index.fieldLengths[prop]![internalId] ?? 0);
      }) as ScoreParameters as unknown as Component['insertDocumentScoreParameters'],
      insertTokenScoreParameters: ((index, prop, internalId, tokens, token) => {
        insertToken(index, prop, internalId, tokens, token);
        if (!this.stale) this.addPosting(prop, token, internalId, index.frequencies[prop]![internalId]![token]!);
      }) as TokenScoreParameters as unknown as Component['insertTokenScoreParameters'],
      remove: ((implementation, index, prop, id, internalId, value, schemaType, ...rest) => {
        // Orama forgets the document's frequencies as it removes it: read its terms first.
        if (index.indexes[prop]?.type === 'Radix' && !this.stale) this.removeDocument(index, prop, internalId);
        return remove(implementation, index, prop, id, internalId, value, schemaType, ...rest);
      }) as Remove as unknown as Component['remove'],
      load: ((store, raw) => {
        this.byProperty.clear();
        this.stale = true;
        return load(store, raw);
      }) as Load as unknown as Component['load'],
      search: search as unknown as Component['search'],
    };
  }

  /**
   * Every document matching any of `tokens` scored with Orama's BM25, and the best `limit` of each
   * searched group kept, best first (score, then internal id, as Orama sorts).
   */
  search(index: IndexData, q: BoundedSearch): BoundedHits {
    if (this.stale) this.rebuild(index);
    if (++this.epoch === 0xffffffff) {
      this.seen.fill(0);
      this.epoch = 1;
    }
    const { epoch, seen, scores, touched } = this.reserve(this.maxId + 1);
    const { groups, groupMask, whereFiltersIDs, docsCount, families } = q;
    const { k: k1, b, d } = q.relevance;
    let count = 0;
    for (const prop of q.properties) {
      const own = this.byProperty.get(prop);
      if (!own || !index.indexes[prop]) continue;
      const weight = q.boost?.[prop] ?? 1;
      const occurrences = index.tokenOccurrences[prop]!;
      const avgLength = index.avgFieldLength[prop]!;
      const lengths = own.lengths;
      for (const token of q.tokens) {
        const p = own.terms.get(token);
        if (!p || p.n === 0) continue;
        const matching = typeof occurrences[token] === 'number' ? occurrences[token] : 0;
        // Orama's BM25 (components/algorithms.js) term by term, in its order of operations, so
        // scores do not move; the idf depends on the term alone, so it is computed once (once per
        // family when families are given).
        const idf = Math.log(1 + (docsCount - matching + 0.5) / (matching + 0.5));
        const { ids, tf } = p;
        const idfOf = families ? this.groupIdf(p, groups, families, idf) : null;
        for (let i = 0; i < p.n; i++) {
          const id = ids[i]!;
          if (groupMask !== ALL_GROUPS && !((groupMask >>> (groups[id] ?? 0)) & 1)) continue;
          if (whereFiltersIDs && !whereFiltersIDs.has(id)) continue;
          const f = tf[i]!;
          const termIdf = idfOf ? idfOf[groups[id] ?? 0]! : idf;
          const s = ((termIdf * (d + f * (k1 + 1))) / (f + k1 * (1 - b + (b * lengths[id]!) / avgLength))) * weight;
          if (seen[id] !== epoch) {
            seen[id] = epoch;
            scores[id] = s;
            touched[count++] = id;
          } else scores[id] = scores[id]! + s;
        }
      }
    }
    const ids = topKPerGroup(touched, count, scores, groups, q.limit);
    const kept = new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i++) kept[i] = scores[ids[i]!]!;
    return { ids, scores: kept };
  }

  /** A term's idf per family and per group, reused by every term of every search. */
  private idfByFamily = new Float64Array(4);
  private readonly idfByGroup = new Float64Array(32);

  /**
   * A term's idf for a document of each group: its family's (`families`), family 0 the whole
   * index's `idf`. The term's documents per family are counted in one pass over its postings the
   * first time a search needs them, and kept on the postings until they change, so a search reads
   * them without a pass.
   */
  private groupIdf(p: TermPostings, groups: Uint8Array, families: SearchFamilies, idf: number): Float64Array {
    const n = families.docs.length;
    let counts = p.familyCounts;
    if (!counts || p.countedWith !== families.of || counts.length !== n) {
      counts = new Float64Array(n);
      const { ids } = p;
      for (let i = 0; i < p.n; i++) counts[families.of[groups[ids[i]!] ?? 0] ?? 0]! += 1;
      p.familyCounts = counts;
      p.countedWith = families.of;
    }
    const byFamily = this.idfByFamily.length >= n ? this.idfByFamily : (this.idfByFamily = new Float64Array(n));
    byFamily[0] = idf;
    for (let f = 1; f < n; f++) byFamily[f] = Math.log(1 + (families.docs[f]! - counts[f]! + 0.5) / (counts[f]! + 0.5));
    const out = this.idfByGroup;
    for (let g = 0; g < out.length; g++) out[g] = byFamily[families.of[g] ?? 0]!;
    return out;
  }

  /**
   * One property's postings as they are held, for a partition snapshot (`snapshot.ts`): each
   * term's internal ids and term frequencies (views, valid until the next write), and field lengths.
   */
  exportPostings(prop: string): { terms: Map<string, { ids: Int32Array; tf: Float64Array }>; lengths: Float64Array } | null {
    if (this.stale) return null;
    const own = this.byProperty.get(prop);
    if (!own) return null;
    const terms = new Map<string, { ids: Int32Array; tf: Float64Array }>();
    for (const [token, p] of own.terms) if (p.n > 0) terms.set(token, { ids: p.ids.subarray(0, p.n), tf: p.tf.subarray(0, p.n) });
    return { terms, lengths: own.lengths };
  }

  /**
   * Takes a snapshot's postings as this property's own, after Orama's `load` of the rest of the
   * index (statistics, documents) without its tree: the postings are not rebuilt from Orama's tree.
   */
  adoptPostings(prop: string, terms: ReadonlyMap<string, { ids: Int32Array<ArrayBuffer>; tf: Float64Array<ArrayBuffer> }>, lengths: Float64Array<ArrayBuffer>): void {
    const own: PropertyPostings = { terms: new Map(), lengths };
    for (const [token, given] of terms) own.terms.set(token, new TermPostings(given.ids, given.tf, given.ids.length));
    this.byProperty.set(prop, own);
    this.maxId = Math.max(this.maxId, lengths.length - 1);
    this.stale = false;
  }

  /** Each of `ids`' term frequencies, read back from the postings (what Orama's per-document record holds). */
  frequenciesOf(prop: string, ids: ReadonlySet<number>): Map<number, Record<string, number>> {
    const out = new Map<number, Record<string, number>>();
    const own = this.byProperty.get(prop);
    if (!own || ids.size === 0) return out;
    for (const [token, p] of own.terms) {
      for (let i = 0; i < p.n; i++) {
        const id = p.ids[i]!;
        if (!ids.has(id)) continue;
        let record = out.get(id);
        if (!record) out.set(id, (record = {}));
        record[token] = p.tf[i]!;
      }
    }
    return out;
  }

  /** How many postings are held (for the benchmark's memory figures and the tests). */
  get postingsCount(): number {
    let n = 0;
    for (const own of this.byProperty.values()) for (const p of own.terms.values()) n += p.n;
    return n;
  }

  private property(prop: string): PropertyPostings {
    let own = this.byProperty.get(prop);
    if (!own) this.byProperty.set(prop, (own = { terms: new Map(), lengths: new Float64Array(1024) }));
    return own;
  }

  private setLength(prop: string, internalId: number, length: number): void {
    const own = this.property(prop);
    if (internalId >= own.lengths.length) {
      own.lengths = grown(own.lengths, Math.max(internalId + 1, own.lengths.length * 2));
    }
    own.lengths[internalId] = length;
    if (internalId > this.maxId) this.maxId = internalId;
  }

  private addPosting(prop: string, token: string, internalId: number, tf: number): void {
    const terms = this.property(prop).terms;
    let p = terms.get(token);
    if (!p) terms.set(token, (p = new TermPostings()));
    p.add(internalId, tf);
  }

  private removeDocument(index: IndexData, prop: string, internalId: number): void {
    const own = this.byProperty.get(prop);
    const frequencies = index.frequencies[prop]?.[internalId];
    if (!own || !frequencies) return;
    for (const token in frequencies) own.terms.get(token)?.delete(internalId);
  }

  /** The postings read back out of Orama's tree (after `load`): every word's documents, with their frequencies. */
  private rebuild(index: IndexData): void {
    this.byProperty.clear();
    for (const [prop, tree] of Object.entries(index.indexes)) {
      if (tree.type !== 'Radix') continue;
      const own = this.property(prop);
      const frequencies = index.frequencies[prop] ?? {};
      const fieldLengths = index.fieldLengths[prop] ?? {};
      let maxId = 0;
      const walk = (node: RadixNode) => {
        if (node.e && node.d.size) {
          const p = new TermPostings();
          for (const id of node.d) {
            p.add(id, frequencies[id]?.[node.w] ?? 0);
            if (id > maxId) maxId = id;
          }
          own.terms.set(node.w, p);
        }
        for (const child of node.c.values()) walk(child);
      };
      walk(tree.node);
      own.lengths = new Float64Array(Math.max(1024, maxId + 1));
      for (let id = 0; id <= maxId; id++) own.lengths[id] = fieldLengths[id] ?? 0;
      if (maxId > this.maxId) this.maxId = maxId;
    }
    this.stale = false;
  }

  private reserve(size: number): { epoch: number; seen: Uint32Array; scores: Float64Array; touched: Int32Array } {
    if (this.scores.length < size) {
      // Stamps are kept with the scores they guard: a grown array starts at epoch 0, never current.
      const capacity = Math.max(1024, size * 2);
      this.scores = grown(this.scores, capacity);
      this.seen = grown(this.seen, capacity);
      this.touched = new Int32Array(capacity);
    }
    return { epoch: this.epoch, seen: this.seen, scores: this.scores, touched: this.touched };
  }
}
