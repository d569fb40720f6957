/**
 * An LLM that is still loading. Opening a memory must not wait minutes for model weights, so the
 * engine gets this stand-in at once: until the real model is ready (or when it failed to load),
 * every call rejects with MODEL_UNAVAILABLE, which the engine already turns into its observable
 * fallbacks (rules extraction, one-round agentic search), each with a notice.
 */
import { createError, isMemoryError, wrapError, type MemoryError } from '../errors.js';
import type { Llm, LlmRequest } from './ports.js';

export type DeferredLlmState = 'loading' | 'ready' | 'failed';

/** The stand-in; `ready` settles when loading ends (it never rejects). */
export interface DeferredLlm extends Llm {
  state(): DeferredLlmState;
  /** Why loading failed, once it has. */
  error(): MemoryError | null;
  readonly ready: Promise<DeferredLlmState>;
}

/** Starts `load` now and answers for the model it brings. */
export function createDeferredLlm(id: string, load: () => Promise<Llm>): DeferredLlm {
  let llm: Llm | null = null;
  let failure: MemoryError | null = null;
  const ready = load().then(
    (loaded) => {
      llm = loaded;
      return 'ready' as const;
    },
    (error: unknown) => {
      failure = isMemoryError(error) ? error : wrapError(error, 'MODEL_UNAVAILABLE', `LLM ${id} failed to load`);
      return 'failed' as const;
    },
  );
  return {
    id,
    ready,
    state: () => (llm ? 'ready' : failure ? 'failed' : 'loading'),
    error: () => failure,
    complete(request: LlmRequest): Promise<string> {
      if (llm) return llm.complete(request);
      if (failure) return Promise.reject(createError('MODEL_UNAVAILABLE', { message: `LLM ${id} is unavailable: ${failure.message}`, details: { reason: failure.code }, cause: failure }));
      return Promise.reject(createError('MODEL_UNAVAILABLE', { message: `LLM ${id} is still loading`, details: { reason: 'loading' } }));
    },
  };
}
