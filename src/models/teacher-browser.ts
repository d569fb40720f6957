/**
 * The teacher reranker in a browser: the same scoring as `createTeacherReranker` in Node
 * (segment-reranker.ts, and its id, `teacher-rerank:use-lite:<split>`), over Universal Sentence
 * Encoder lite loaded from the app's origin (use-lite-browser.ts) on a Web Worker of its own
 * (teacher-browser.worker.ts), so a model call never holds up the memory worker. The memory
 * worker creates it when `createMemoryClient` is given `reranker: { provider: 'teacher', … }`.
 */
import { wrapError } from '../errors.js';
import { startRemoteEncoder, type RemoteEncoder } from './remote-encoder.js';
import { createSegmentReranker, type SegmentReranker, type SegmentRerankerOptions } from './segment-reranker.js';
import type { TeacherWorkerLoad } from './teacher-browser.worker.js';
import type { UseLiteUrls } from './use-lite-browser.js';

export type { UseLiteUrls } from './use-lite-browser.js';

/** Options of createBrowserTeacherReranker. */
export interface BrowserTeacherOptions extends UseLiteUrls, SegmentRerankerOptions {
  /** Cache API cache that keeps the model's files for the next visit, or null to fetch them each time. */
  cache?: string | null;
}

/**
 * Starts the teacher's worker and waits until its model has loaded; MODEL_UNAVAILABLE when a file
 * cannot be fetched, TensorFlow.js cannot start, or the worker cannot run.
 */
export async function createBrowserTeacherReranker(options: BrowserTeacherOptions): Promise<SegmentReranker> {
  const load: TeacherWorkerLoad = {
    load: { modelUrl: options.modelUrl, ...(options.vocabUrl ? { vocabUrl: options.vocabUrl } : {}), wasmPaths: options.wasmPaths, cache: options.cache ?? null },
  };
  let encoder: RemoteEncoder;
  try {
    encoder = await startRemoteEncoder(() => {
      const worker = new Worker(new URL('./teacher-browser.worker.js', import.meta.url), { type: 'module', name: 'engram:teacher' });
      worker.postMessage(load);
      return {
        post: (message) => worker.postMessage(message),
        onMessage: (listener) => worker.addEventListener('message', (event: MessageEvent) => listener(event.data)),
        onGone: (listener) => {
          worker.addEventListener('error', (event: ErrorEvent) => listener(`The teacher's worker failed: ${event.message || 'its script did not run'}`));
          worker.addEventListener('messageerror', () => listener("The teacher's worker sent a message that could not be read."));
        },
        terminate: () => worker.terminate(),
      };
    }, "The teacher's worker");
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', 'Cannot load the Universal Sentence Encoder lite');
  }
  return createSegmentReranker(encoder, { ...options, id: options.id ?? `teacher-rerank:use-lite:${options.split ?? 'sentence'}` });
}
