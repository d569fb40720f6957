/**
 * The keyword leg: an Orama full-text index with Engram's tokenizer (stemming, stop words,
 * CJK segmentation) and BM25 scoring. One instance serves one memory partition, so term
 * statistics are the owner's own and no query can reach another owner's documents.
 */
import { create, insertMultiple, removeMultiple, search, type AnyOrama } from '@orama/orama';
import type { RecordKind } from '../records.js';
import { tokenize } from './tokenizer.js';

/**
 * Orama matches query terms as prefixes of indexed words ("cat" finds "catalog"). Every term is
 * closed with this marker, so a term only ever matches the same whole word.
 */
const END = '\u0001';

function ramaTokenizer() {
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
  score: number;
}

export interface KeywordDoc {
  id: string;
  kind: RecordKind;
  text: string;
}

/** A BM25 index over one partition's searchable records. */
export class KeywordIndex {
  private readonly db: AnyOrama;
  private count = 0;

  constructor() {
    this.db = create({
      schema: { kind: 'enum', text: 'string' } as const,
      components: { tokenizer: ramaTokenizer() as never },
    }) as AnyOrama;
  }

  get size(): number {
    return this.count;
  }

  add(docs: readonly KeywordDoc[]): void {
    if (docs.length === 0) return;
    insertMultiple(this.db, docs.map((d) => ({ id: d.id, kind: d.kind, text: d.text })) as never, 1000);
    this.count += docs.length;
  }

  remove(ids: readonly string[]): void {
    if (ids.length === 0) return;
    const removed = removeMultiple(this.db, [...ids], 1000) as number;
    this.count -= removed;
  }

  /** BM25 hits of the given kinds, best first; `limit` defaults to every match. */
  search(query: string, kinds: readonly RecordKind[], limit?: number): KeywordHit[] {
    if (this.count === 0 || tokenize(query).length === 0) return [];
    const result = search(this.db, {
      term: query,
      properties: ['text'],
      where: { kind: { in: [...kinds] } },
      limit: limit ?? this.count,
      threshold: 1,
    } as never) as { hits: { id: string; score: number }[] };
    return result.hits.map((h) => ({ id: h.id, score: h.score }));
  }
}
