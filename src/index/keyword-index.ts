/**
 * The keyword leg: an Orama full-text index with Engram's tokenizer (stemming, stop words,
 * CJK segmentation) and BM25 scoring. One instance serves one memory partition, so term
 * statistics are the owner's own and no query can reach another owner's documents.
 */
import { count, create, insertMultiple, load, removeMultiple, type AnyOrama, type RawData } from '@orama/orama';
import { internalDocumentIDStore } from '@orama/orama/components';
import type { RecordKind } from '../records.js';
import { ALL_GROUPS, BoundedBm25, DEFAULT_RELEVANCE, type BoundedHits, type IndexData, type SearchFamilies } from './bounded-bm25.js';
import { grown } from './typed-arrays.js';
import { tokenize } from './tokenizer.js';

/**
 * Orama matches query terms as prefixes of indexed words ("cat" finds "catalog"). Every term is
 * closed with this marker, so a term only ever matches the same whole word.
 */
const END = '\u0001';

/** The Orama tokenizer component for Engram's terms (exported for the equivalence tests). */
export function ramaTokenizer() {
  return {
    language: 'english',
    normalizationCache: new Map<string, string>(),
    tokenize(raw: string): string[] {
      // Orama counts a term's document frequency once per token it is handed, so repeated terms
      // would push BM25's idf below zero: hand each term over once (Orama's own tokenizer does too).
      return [...new Set(tokenize(String(raw)).map((t) => t + END))];
    },
  };
}

export interface KeywordHit {
  id: string;
  kind: RecordKind;
  score: number;
}

/**
 * The most hits of each record kind one keyword search returns. Fusion standardises each leg over
 * its best 100 scores and needs the raw BM25 of each candidate: a few hundred per kind cover both.
 * Per kind, because episodes (long) score below their facts (short): in one list of 400, a question
 * at 10k records found a median of 5 episodes. Asking Orama for every match made it fetch and wrap
 * thousands of documents per query.
 */
export const KEYWORD_POOL = 400;

/**
 * Where BM25 counts a term's rarity, by kind. One index holds a partition's episodes, their facts
 * and passages, and its agent items, but a search ranks episodes among episodes and facts among
 * facts: a term's weight for an episode is its rarity among episodes (and knowledge entries, which
 * compete with them), and for a fact its rarity among facts and plans. Counted over the whole
 * index, a word in every episode but few facts (a speaker's name, in a conversation between two
 * people: their own facts hold it, the other's passages do not) kept a weight among episodes it
 * does not have there, so it ranked them by how often they repeat it. Agent cases and skills keep
 * the whole index's counts (family 0), which their fitted blend was written for (scores.ts).
 */
const FAMILY: Partial<Record<RecordKind, number>> = { episode: 1, knowledge: 1, atomic_fact: 2, foresight: 2 };
const FAMILIES = 3;

export interface KeywordDoc {
  id: string;
  kind: RecordKind;
  text: string;
}

/** A BM25 index over one partition's searchable records. */
export class KeywordIndex {
  private readonly db: AnyOrama;
  private readonly bm25: BoundedBm25;
  private readonly tokenizer = ramaTokenizer();
  private count = 0;
  /** Restored from a snapshot (see `restore`). */
  private restored = false;
  /** How many hits of each kind a search through Orama's own `search` keeps (read by the component). */
  private limit = KEYWORD_POOL;
  /** Orama's internal document id → its kind's group number (below 32), for the per-kind bound. */
  private groups = new Uint8Array(1024);
  /** Group number → kind, in order of first sight. */
  private readonly kinds: RecordKind[] = [];
  /** Group number → family, and how many documents each family holds (`FAMILY`). */
  private readonly families: SearchFamilies = { of: new Uint8Array(32), docs: new Float64Array(FAMILIES) };
  /** The last `hits`' scores by internal id, valid where the stamp is the current epoch. */
  private keptScores = new Float64Array(0);
  private keptStamp = new Uint32Array(0);
  private keptEpoch = 0;

  constructor() {
    this.bm25 = new BoundedBm25(() => this.limit, () => this.groups);
    this.db = create({
      schema: { kind: 'enum', text: 'string' } as const,
      components: { tokenizer: this.tokenizer as never, index: this.bm25.component as never },
    }) as AnyOrama;
  }

  get size(): number {
    return this.count;
  }

  /**
   * What a partition snapshot keeps of this index (`snapshot.ts`): Orama's internal ids, each
   * document's kind, the BM25 statistics, and the component's postings; null while the postings
   * are being rebuilt. Views into live state: encode them before the next write.
   */
  snapshotParts(): KeywordSnapshotParts | null {
    const postings = this.bm25.exportPostings('text');
    if (!postings) return null;
    const data = this.db.data.index as unknown as IndexData;
    const docs = this.docStore();
    return {
      ids: this.idStore().internalIdToId, kindOf: (internal) => docs[internal]?.kind, fieldLengths: data.fieldLengths.text ?? {},
      occurrences: data.tokenOccurrences.text ?? {}, avgFieldLength: data.avgFieldLength.text, count: this.count, ...postings,
    };
  }

  /**
   * An index restored from a snapshot through Orama's `load` (internal ids, documents, statistics,
   * the kind index) with the snapshot's postings handed to the component; Orama's own word tree
   * then holds only documents added later, which no search reads (see `bounded-bm25.ts`).
   */
  static restore(raw: RawData, postings: { terms: ReadonlyMap<string, { ids: Int32Array<ArrayBuffer>; tf: Float64Array<ArrayBuffer> }>; lengths: Float64Array<ArrayBuffer> }): KeywordIndex {
    const index = new KeywordIndex();
    load(index.db, raw);
    index.bm25.adoptPostings('text', postings.terms, postings.lengths);
    const { docs, count: loaded } = raw.docs as { docs: Record<string, { kind: RecordKind } | undefined>; count: number };
    index.groups = new Uint8Array(Math.max(1024, postings.lengths.length));
    for (const key in docs) {
      const doc = docs[key];
      if (!doc) continue;
      index.groups[Number(key)] = index.groupOf(doc.kind);
      index.countFamily(doc.kind, 1);
    }
    index.count = loaded;
    index.restored = true;
    return index;
  }

  add(docs: readonly KeywordDoc[]): void {
    if (docs.length === 0) return;
    insertMultiple(this.db, docs.map((d) => ({ id: d.id, kind: d.kind, text: d.text })) as never, 1000);
    this.count += docs.length;
    const store = this.idStore();
    for (const d of docs) {
      const internal = internalDocumentIDStore.getInternalDocumentId(store, d.id);
      if (internal >= this.groups.length) {
        const grown = new Uint8Array(Math.max(internal + 1, this.groups.length * 2));
        grown.set(this.groups);
        this.groups = grown;
      }
      this.groups[internal] = this.groupOf(d.kind);
      this.countFamily(d.kind, 1);
    }
  }

  remove(ids: readonly string[]): void {
    if (ids.length === 0) return;
    if (this.restored) this.recallFrequencies(ids);
    // Each document that is there leaves its family's count (an unknown id removes nothing).
    const store = this.idStore();
    const docs = this.docStore();
    for (const id of new Set(ids)) {
      const internal = store.idToInternalId.get(id);
      const doc = internal === undefined ? undefined : docs[internal];
      if (doc) this.countFamily(doc.kind, -1);
    }
    const removed = removeMultiple(this.db, [...ids], 1000) as number;
    this.count -= removed;
  }

  /**
   * The best `limit` BM25 hits of each kind (all kinds, or those of `kinds`), best first. Scored by
   * the bounded component straight over its postings: Orama's `search` would sort the few hundred
   * kept again and fetch, wrap and copy each one (a fifth of the leg at 10k records).
   */
  search(query: string, kinds: readonly RecordKind[] | null, limit = KEYWORD_POOL): KeywordHit[] {
    const hits = this.bounded(query, kinds, limit);
    if (!hits) return [];
    const external = this.idStore().internalIdToId;
    const out: KeywordHit[] = new Array(hits.ids.length);
    for (let i = 0; i < hits.ids.length; i++) {
      const internal = hits.ids[i]!;
      out[i] = { id: external[internal - 1]!, kind: this.kinds[this.groups[internal]!]!, score: hits.scores[i]! };
    }
    return out;
  }

  /**
   * `search(query, null, limit)` by internal id, with no object per hit: Orama's internal ids best
   * first and their scores (read them with `idOf` and `kindOf`). Each kept hit's score can also be
   * read by internal id (`keptScore`) until the next `hits`. The narrative track reads a thousand
   * hits per query, and looks up its candidates' children by number instead of by id.
   */
  hits(query: string, limit = KEYWORD_POOL): BoundedHits {
    const hits = this.bounded(query, null, limit) ?? { ids: new Int32Array(0), scores: new Float64Array(0) };
    if (++this.keptEpoch === 0xffffffff) {
      this.keptStamp.fill(0);
      this.keptEpoch = 1;
    }
    let top = 0;
    for (let i = 0; i < hits.ids.length; i++) top = Math.max(top, hits.ids[i]!);
    if (top >= this.keptStamp.length) {
      const capacity = Math.max(1024, (top + 1) * 2);
      this.keptStamp = grown(this.keptStamp, capacity);
      this.keptScores = grown(this.keptScores, capacity);
    }
    for (let i = 0; i < hits.ids.length; i++) {
      const internal = hits.ids[i]!;
      this.keptStamp[internal] = this.keptEpoch;
      this.keptScores[internal] = hits.scores[i]!;
    }
    return hits;
  }

  /**
   * The share of the index's documents (episodes, facts, passages, …) that hold a search term
   * (a term as the tokenizer makes it: lower-cased, stemmed): BM25's document frequency over the
   * count, 0 for an unknown term or an empty index.
   */
  documentShare(term: string): number {
    const occurrences = (this.db.data.index as unknown as IndexData).tokenOccurrences.text?.[term + END] ?? 0;
    return this.count > 0 ? occurrences / this.count : 0;
  }

  /** A document's score among the last `hits`, or undefined when it was not kept (internal id −1: none). */
  keptScore(internal: number): number | undefined {
    return internal >= 0 && this.keptStamp[internal] === this.keptEpoch ? this.keptScores[internal] : undefined;
  }

  /** The record id of an internal id. */
  idOf(internal: number): string {
    return this.idStore().internalIdToId[internal - 1]!;
  }

  /** The record kind of an internal id. */
  kindOf(internal: number): RecordKind {
    return this.kinds[this.groups[internal]!]!;
  }

  /** The internal id of a record id, or −1 when it was never indexed. */
  internalOf(id: string): number {
    return this.idStore().idToInternalId.get(id) ?? -1;
  }

  private bounded(query: string, kinds: readonly RecordKind[] | null, limit: number): BoundedHits | null {
    if (this.count === 0) return null;
    const tokens = this.tokenizer.tokenize(query);
    if (tokens.length === 0) return null;
    let groupMask = ALL_GROUPS;
    if (kinds) {
      groupMask = 0;
      for (const kind of kinds) {
        const g = this.kinds.indexOf(kind);
        if (g >= 0) groupMask |= 1 << g;
      }
      if (groupMask === 0) return null;
    }
    this.limit = limit;
    return this.bm25.search(this.db.data.index as never, {
      tokens, properties: ['text'], relevance: DEFAULT_RELEVANCE, docsCount: count(this.db), limit, groups: this.groups, groupMask, families: this.families,
    });
  }

  /**
   * A restored index has no per-document term record in Orama for its snapshot's documents: the
   * ones about to go are read back from the postings, so Orama and the component forget every term.
   */
  private recallFrequencies(ids: readonly string[]): void {
    const store = this.idStore();
    const frequencies = (this.db.data.index as unknown as IndexData).frequencies.text!;
    const missing = new Set<number>();
    for (const id of ids) {
      const internal = store.idToInternalId.get(id);
      if (internal !== undefined && !frequencies[internal]) missing.add(internal);
    }
    for (const [internal, record] of this.bm25.frequenciesOf('text', missing)) frequencies[internal] = record;
  }

  private idStore(): internalDocumentIDStore.InternalDocumentIDStore {
    return (this.db as unknown as { internalDocumentIDStore: internalDocumentIDStore.InternalDocumentIDStore }).internalDocumentIDStore;
  }

  /** Orama's documents by internal id (a removed one is gone). */
  private docStore(): Record<number, { id: string; kind: RecordKind } | undefined> {
    return (this.db.data.docs as { docs: Record<number, { id: string; kind: RecordKind } | undefined> }).docs;
  }

  /** A document of `kind` joins (+1) or leaves (−1) its family's count (`FAMILY`). */
  private countFamily(kind: RecordKind, delta: 1 | -1): void {
    this.families.docs[FAMILY[kind] ?? 0]! += delta;
  }

  private groupOf(kind: RecordKind): number {
    let g = this.kinds.indexOf(kind);
    if (g < 0) {
      g = this.kinds.push(kind) - 1;
      // Group numbers index a 32-bit mask; Engram has fewer than 32 record kinds.
      if (g >= 32) throw new RangeError(`more than 32 record kinds in one keyword index`);
      this.families.of[g] = FAMILY[kind] ?? 0;
    }
    return g;
  }
}

/** See `KeywordIndex.snapshotParts`. */
export interface KeywordSnapshotParts {
  /** External id of each internal id (internal id − 1). */
  ids: readonly string[];
  kindOf(internal: number): RecordKind | undefined;
  fieldLengths: Record<number, number | undefined>;
  occurrences: Record<string, number>;
  avgFieldLength: number | undefined;
  count: number;
  terms: Map<string, { ids: Int32Array; tf: Float64Array }>;
  lengths: Float64Array;
}
