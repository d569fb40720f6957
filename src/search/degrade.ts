/**
 * Model aids in a search (an LLM's judgement, a reranker's order) make answers better but are
 * never what an answer depends on: when one fails (an error, a timeout, an LLM still loading or
 * one that failed to load) the search answers without it and a notice says so. Only the caller's
 * own abort stops the search.
 */
import { isMemoryError, MemoryError } from '../errors.js';

/** Runs `work`; on a failure that is not the caller's abort, reports its code and returns undefined. */
export async function unlessFailed<T>(work: () => Promise<T>, signal: AbortSignal | undefined, onFailure: (code: string) => void): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    // The caller stopped waiting: that is the answer, whatever the model threw on the way out.
    if (signal?.aborted) throw isMemoryError(error) && error.code === 'ABORTED' ? error : new MemoryError('ABORTED', { cause: error });
    onFailure(isMemoryError(error) ? error.code : 'MODEL_FAILED');
    return undefined;
  }
}
