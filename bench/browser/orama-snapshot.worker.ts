/// <reference lib="webworker" />
/** Restores the Orama snapshot and answers one hybrid query, loading the same embedding model the engine uses. */
import { cachedModelFetch } from '../../src/models/model-cache.js';
import { loadStaticModelFromUrl } from '../../src/models/load-static-model.js';
import { createStaticEmbedder } from '../../src/models/static-embedder.js';
import { restoreSnapshot, searchSnapshot } from './orama-snapshot.js';

self.onmessage = async (event: MessageEvent<{ key: string; modelUrl: string; query: string; dim: number }>) => {
  const marks: Record<string, number> = {};
  const mark = (step: string) => void (marks[step] = Math.round(performance.now() * 10) / 10);
  try {
    const { key, modelUrl, query, dim } = event.data;
    mark('start');
    const embedder = loadStaticModelFromUrl(modelUrl, { fetch: cachedModelFetch('engram-models') }).then((model) => {
      const e = createStaticEmbedder(model);
      mark('embedderReady');
      return e;
    });
    const db = await restoreSnapshot(key, dim, mark);
    const [vector] = await (await embedder).embed([query]);
    const hits = await searchSnapshot(db, query, vector!);
    mark('firstAnswer');
    self.postMessage({ ok: true, marks, hits: hits.length, timeOrigin: performance.timeOrigin });
  } catch (error) {
    self.postMessage({ ok: false, error: String((error as Error)?.stack ?? error), marks });
  }
};
