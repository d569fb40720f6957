/**
 * The baseline every retrieval bench puts next to Engram: BM25 as a competent user sets it up with
 * Orama, the English stemmer and stop words, one document per stored conversation. Built once per
 * memory and asked each of its questions.
 */
import { create, insertMultiple, search } from '@orama/orama';
import { stemmer } from '@orama/stemmers/english';
import { stopwords } from '@orama/stopwords/english';

/** An index of `docs`; the function it returns gives the ids of the best `limit` documents for a query. */
export async function stemmedBm25(docs: readonly { id: string; text: string }[]): Promise<(query: string, limit?: number) => Promise<string[]>> {
  const db = create({ schema: { text: 'string' } as const, components: { tokenizer: { stemming: true, stemmer, stopWords: stopwords } } });
  await insertMultiple(db, docs.map((d) => ({ id: d.id, text: d.text })));
  return async (query, limit = 10) => (await search(db, { term: query, limit })).hits.map((h) => h.document.id as string);
}
