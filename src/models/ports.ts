/**
 * The model ports: everything the engine asks of a model goes through one of these small
 * interfaces, so a browser (onnxruntime-web, WebLLM), Node or an edge runtime can each plug in
 * its own implementation without the engine knowing which.
 */

export interface ModelCallOptions {
  signal?: AbortSignal;
  /**
   * Whose data the call is about (the engine passes the partition it searches or writes): a model
   * that caches what it computes keeps each scope's entries apart. Shared, how fast a text comes
   * back would tell one tenant or owner whether another's memory holds it.
   */
  cacheScope?: string;
}

/** Just the ModelCallOptions of a larger options object (a model is handed nothing else). */
export function modelCallOptions(from: ModelCallOptions): ModelCallOptions {
  return { ...(from.signal ? { signal: from.signal } : {}), ...(from.cacheScope === undefined ? {} : { cacheScope: from.cacheScope }) };
}

/** Turns texts into L2-normalised vectors of a fixed dimension. */
export interface Embedder {
  /** Stable identifier of the model and its version; stored with every vector so a changed model is detected. */
  readonly id: string;
  readonly dim: number;
  embed(texts: readonly string[], options?: ModelCallOptions): Promise<Float32Array[]>;
  /**
   * Optional constants of the logistic that turns this model's cosine and the keyword BM25 into a
   * 0..1 relevance (`sigmoid(cos·c + bm25·b + bias)`); fit them with `bench/calibrate.ts`.
   * Without them a fitted set for a known model id, else EverOS's constants, are used.
   */
  readonly calibration?: { cos: number; bm25: number; bias: number };
  /**
   * Embeds search queries, for models that embed a question differently from a stored text
   * (e5's "query: " / "passage: ", bge's query instruction). Optional: without it, queries go
   * through `embed`; call it through `embedQueries(embedder, …)`.
   */
  embedQueries?(texts: readonly string[], options?: ModelCallOptions): Promise<Float32Array[]>;
}

/** Embeds search queries with the embedder's query path when it has one, else with `embed`. */
export function embedQueries(embedder: Embedder, texts: readonly string[], options?: ModelCallOptions): Promise<Float32Array[]> {
  return embedder.embedQueries ? embedder.embedQueries(texts, options) : embedder.embed(texts, options);
}

export interface RerankCandidate {
  id: string;
  text: string;
}

/** Rescores candidates against a query; higher is better, scores in 0..1. */
export interface Reranker {
  readonly id: string;
  /**
   * Optional: prepares for texts that will be reranked later (e.g. embeds and caches them). The
   * engine calls it in the background for every record it writes, so a slow model pays its cost
   * at ingestion instead of at query time.
   */
  prime?(texts: readonly string[], options?: ModelCallOptions): Promise<void>;
  rerank(
    query: string,
    candidates: readonly RerankCandidate[],
    options?: ModelCallOptions,
  ): Promise<{ id: string; score: number }[]>;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** Images shown with the message, for an LLM whose `vision` is true (inline bytes, base64). */
  images?: { mime_type: string; base64: string }[];
}

export interface LlmRequest extends ModelCallOptions {
  messages: ChatMessage[];
  /** JSON schema the answer must follow; providers that support constrained decoding use it. */
  jsonSchema?: Record<string, unknown>;
  temperature?: number;
  maxTokens?: number;
}

/** A chat model. `complete` returns the raw text of the answer. */
export interface Llm {
  readonly id: string;
  /** True when the model accepts `images` in messages: `add` then captions images sent without one. */
  readonly vision?: boolean;
  complete(request: LlmRequest): Promise<string>;
}
