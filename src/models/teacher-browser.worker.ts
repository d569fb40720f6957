/// <reference lib="webworker" />
/**
 * The teacher's own Web Worker, started by the memory worker (teacher-browser.ts). TensorFlow.js
 * runs each model call to its end: on the memory worker's thread, one cold agentic search (2.4 s
 * over a LongMemEval-S haystack) would hold every other call of every tab meanwhile. Its first
 * message says where the model is (`{ load: { modelUrl, vocabUrl?, wasmPaths, cache } }`); then it
 * speaks remote-encoder.ts's protocol.
 */
import { cachedModelFetch } from './model-cache.js';
import { serveEncoder } from './remote-encoder.js';
import { loadBrowserTeacherEncoder, type UseLiteUrls } from './use-lite-browser.js';

declare const self: DedicatedWorkerGlobalScope;

/** The first message the teacher's worker gets. */
export interface TeacherWorkerLoad {
  load: UseLiteUrls & { cache: string | null };
}

let answer: ((message: { id: number; texts: string[] }) => Promise<void>) | null = null;
self.onmessage = (event: MessageEvent<TeacherWorkerLoad | { id: number; texts: string[] }>) => {
  const data = event.data;
  if ('load' in data) {
    const { cache, ...urls } = data.load;
    answer ??= serveEncoder(self, loadBrowserTeacherEncoder({ ...urls, ...(cache ? { fetch: cachedModelFetch(cache) } : {}) }));
    return;
  }
  void answer?.(data);
};
