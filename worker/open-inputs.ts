/**
 * The two inputs of opening a browser memory, started side by side: the IndexedDB store (which
 * starts reading its snapshots and records as soon as it is open) and the static embedding model
 * (read, from the Cache API when kept there, then parsed). Apart from `open-engine.ts` and free of
 * the engine's code, so that a host may start both before it loads the engine. The memory worker
 * does not: loading the engine as a chunk after the reads started held the open up on a loaded
 * machine (see `memory.worker.ts`).
 */
import { isMemoryError } from '../src/errors.js';
import { cachedModelFetch, evictCachedModel } from '../src/models/model-cache.js';
import { fetchModelBytes } from '../src/models/load-static-model.js';
import { parseStaticModel } from '../src/models/static-model.js';
import { createStaticEmbedder, type StaticEmbedder } from '../src/models/static-embedder.js';
import type { Progress } from '../src/progress.js';
import type { StorageAdapter } from '../src/store/port.js';
import { createIndexedDbStore } from '../src/store/indexeddb-store.js';

/** What the two inputs need of a memory's open options (`OpenEngineOptions` extends it). */
export interface OpenInputOptions {
  name: string;
  /** Absolute URL of the static embedding model (models/static-en/model.bin served from your origin). */
  modelUrl: string;
  /** Cache API cache for the model file, or null to fetch it every time. */
  modelCache: string | null;
  durability?: IDBTransactionDurability;
  /** The fetch that downloads the model (default globalThis.fetch), e.g. one that reads a service worker's precache. */
  fetch?: typeof fetch;
}

/** The store and the embedder, on their way. Neither rejection is "unhandled": whoever takes them awaits both. */
export interface OpenInputs {
  store: Promise<StorageAdapter>;
  embedder: Promise<StaticEmbedder>;
}

/** Starts opening the store and loading the model of `options.name`; the caller must hold the memory's Web Lock. */
export function startOpenInputs(
  options: OpenInputOptions,
  hooks: { onProgress: (progress: Progress) => void; mark?: (step: string) => void },
): OpenInputs {
  const { onProgress } = hooks;
  const mark = hooks.mark ?? (() => undefined);
  const store = createIndexedDbStore(options.name, options.durability ? { durability: options.durability } : {}).then((opened) => {
    mark('storeOpen');
    return opened;
  });
  onProgress({ phase: 'embedder', loaded: 0, total: 1, text: options.modelUrl });
  const cacheName = options.modelCache;
  const baseFetch = options.fetch;
  const modelFetch = cacheName ? cachedModelFetch(cacheName, baseFetch) : baseFetch;
  const load = async () => {
    const bytes = await fetchModelBytes(options.modelUrl, modelFetch ? { fetch: modelFetch } : {});
    mark('modelRead');
    return parseStaticModel(bytes);
  };
  const embedder = load()
    .catch(async (error: unknown) => {
      // A damaged cached copy (the parser names a reason) would fail every later visit too: drop
      // it and download once more. A network failure is not retried.
      const reason = isMemoryError(error) ? (error.details as { reason?: unknown } | undefined)?.reason : undefined;
      if (!cacheName || reason === undefined) throw error;
      await evictCachedModel(cacheName, options.modelUrl);
      return load();
    })
    .then((model) => {
      mark('modelParsed');
      const created = createStaticEmbedder(model);
      mark('embedderReady');
      onProgress({ phase: 'embedder', loaded: 1, total: 1, text: created.id });
      return created;
    });
  store.catch(() => undefined);
  embedder.catch(() => undefined);
  return { store, embedder };
}

/** Closes the store of inputs that will not be used (an open that failed before the engine took them). */
export async function discardOpenInputs(inputs: OpenInputs): Promise<void> {
  await (await inputs.store.catch(() => undefined))?.close().catch(() => undefined);
}
