/**
 * How long work reports how far it has got (opening a store, re-embedding records, loading a
 * model). Its own module so the write path and the RPC peer can use it without importing the
 * engine that drives them.
 */
export interface Progress {
  phase: 'open' | 'reembed' | 'llm' | 'embedder' | 'reranker';
  loaded: number;
  total?: number;
  text?: string;
}
