/**
 * A model that is still loading. Opening a memory must not wait for model weights (minutes for an
 * LLM, a second or two for the teacher reranker), so the engine gets a stand-in at once: until
 * the real model is ready (or when it failed to load), every call rejects with MODEL_UNAVAILABLE,
 * which the engine already turns into its observable fallbacks (rules extraction, one-round
 * agentic search, hybrid's order), each with a notice.
 */
import { createError, isMemoryError, wrapError, type MemoryError } from '../errors.js';
import type { Llm, LlmRequest, ModelCallOptions, Reranker, RerankCandidate } from './ports.js';

export type DeferredState = 'loading' | 'ready' | 'failed';

/** What every stand-in tells about its loading; `ready` settles when loading ends (it never rejects). */
export interface Deferred {
  state(): DeferredState;
  /** Why loading failed, once it has. */
  error(): MemoryError | null;
  readonly ready: Promise<DeferredState>;
}

export interface DeferredLlm extends Llm, Deferred {}
export interface DeferredReranker extends Reranker, Deferred {}

/** Starts `load` now; `use` calls the model once loaded and rejects with MODEL_UNAVAILABLE before. */
function defer<T>(what: string, load: () => Promise<T>): Deferred & { use<R>(call: (model: T) => Promise<R>): Promise<R> } {
  let model: T | null = null;
  let failure: MemoryError | null = null;
  const ready = load().then(
    (loaded) => {
      model = loaded;
      return 'ready' as const;
    },
    (error: unknown) => {
      failure = isMemoryError(error) ? error : wrapError(error, 'MODEL_UNAVAILABLE', `${what} failed to load`);
      return 'failed' as const;
    },
  );
  return {
    ready,
    state: () => (model ? 'ready' : failure ? 'failed' : 'loading'),
    error: () => failure,
    use(call) {
      if (model) return call(model);
      if (failure) return Promise.reject(createError('MODEL_UNAVAILABLE', { message: `${what} is unavailable: ${failure.message}`, details: { reason: failure.code }, cause: failure }));
      return Promise.reject(createError('MODEL_UNAVAILABLE', { message: `${what} is still loading`, details: { reason: 'loading' } }));
    },
  };
}

/** Starts `load` now and answers for the LLM it brings. */
export function createDeferredLlm(id: string, load: () => Promise<Llm>): DeferredLlm {
  const { use, ...deferred } = defer(`LLM ${id}`, load);
  return { id, ...deferred, complete: (request: LlmRequest) => use((llm) => llm.complete(request)) };
}

/**
 * Starts `load` now and answers for the reranker it brings. Agentic search keeps hybrid's order
 * while it loads (`agentic.reranker_failed`, reason `loading`). It has no `prime`: like the
 * server's teacher, it embeds what a search first reads, never every record written.
 */
export function createDeferredReranker(id: string, load: () => Promise<Reranker>): DeferredReranker {
  const { use, ...deferred } = defer(`Reranker ${id}`, load);
  return {
    id,
    ...deferred,
    rerank: (query: string, candidates: readonly RerankCandidate[], options?: ModelCallOptions) => use((reranker) => reranker.rerank(query, candidates, options)),
  };
}
