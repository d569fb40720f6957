/**
 * The keyword leg: an Orama full-text index with Engram's tokenizer (stemming, stop words,
 * CJK segmentation) and BM25 scoring. One instance serves one memory partition, so term
 * statistics are the owner's own and no query can reach another owner's documents.
 */
import { create, insertMultiple, removeMultiple, search, type AnyOrama } from '@orama/orama';
import { internalDocumentIDStore } from '@orama/orama/components';
import type { RecordKind } from '../records.js';
import { boundedIndex } from './bounded-bm25.js';
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

const KIND_GROUPS: readonly RecordKind[] = ['episode', 'atomic_fact', 'foresight', 'profile', 'agent_case', 'agent_skill', 'knowledge'];

export interface KeywordDoc {
  id: string;
  kind: RecordKind;
  text: string;
}

/** A BM25 index over one partition's searchable records. */
export class KeywordIndex {
  private readonly db: AnyOrama;
  private count = 0;
  /** How many hits of each kind the running search keeps (read by the bounded index component). */
  private limit = KEYWORD_POOL;
  /** Orama's internal document id → kind number, for the per-kind bound. */
  private kinds = new Uint8Array(1024);

  constructor() {
    this.db = create({
      schema: { kind: 'enum', text: 'string' } as const,
      components: {
        tokenizer: ramaTokenizer() as never,
        index: boundedIndex(() => this.limit, (internal) => this.kinds[internal] ?? 0) as never,
      },
    }) as AnyOrama;
  }

  get size(): number {
    return this.count;
  }

  add(docs: readonly KeywordDoc[]): void {
    if (docs.length === 0) return;
    insertMultiple(this.db, docs.map((d) => ({ id: d.id, kind: d.kind, text: d.text })) as never, 1000);
    this.count += docs.length;
    const store = (this.db as unknown as { internalDocumentIDStore: internalDocumentIDStore.InternalDocumentIDStore }).internalDocumentIDStore;
    for (const d of docs) {
      const internal = internalDocumentIDStore.getInternalDocumentId(store, d.id);
      if (internal >= this.kinds.length) {
        const grown = new Uint8Array(Math.max(internal + 1, this.kinds.length * 2));
        grown.set(this.kinds);
        this.kinds = grown;
      }
      this.kinds[internal] = KIND_GROUPS.indexOf(d.kind) + 1;
    }
  }

  remove(ids: readonly string[]): void {
    if (ids.length === 0) return;
    const removed = removeMultiple(this.db, [...ids], 1000) as number;
    this.count -= removed;
  }

  /**
   * The best `limit` BM25 hits of each kind, best first. With `kinds`, Orama filters by kind before
   * scoring (cheap for a rare kind); without, every kind is scored in one pass and the caller splits
   * the list.
   */
  search(query: string, kinds: readonly RecordKind[] | null, limit = KEYWORD_POOL): KeywordHit[] {
    if (this.count === 0 || tokenize(query).length === 0) return [];
    this.limit = limit;
    const result = search(this.db, {
      term: query,
      properties: ['text'],
      ...(kinds ? { where: { kind: { in: [...kinds] } } } : {}),
      limit: limit * KIND_GROUPS.length,
      threshold: 1,
    } as never) as { hits: { id: string; score: number; document: { kind: RecordKind } }[] };
    return result.hits.map((h) => ({ id: h.id, kind: h.document.kind, score: h.score }));
  }
}
