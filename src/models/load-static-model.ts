/**
 * Platform loaders of the bundled static embedding model: from a file in Node, or by fetch in
 * browsers and edge runtimes. The only platform-dependent code of the static model lives here;
 * node:fs is imported lazily so a browser or workerd bundle that only fetches never pulls it in.
 */

import { MemoryError, throwIfAborted, wrapError } from '../errors.js';
import type { OnnxStaticEmbedder, OnnxWasmPaths } from './onnx-static-embedder.js';
import { createStaticEmbedder, type StaticEmbedder } from './static-embedder.js';
import { parseStaticModel, type ParseStaticModelOptions, type StaticModel } from './static-model.js';

/** Paths of the bundled model files, relative to the package root. */
export const STATIC_MODEL_FILES = {
  bin: 'models/static-en/model.bin',
  onnx: 'models/static-en/model.onnx',
  manifest: 'models/static-en/manifest.json',
} as const;

// Kept in a variable: bundlers copy assets named by a literal `new URL('…', import.meta.url)`, and
// this Node-only default must not drag 10 MB into every browser build.
const PACKAGE_ROOT = '../../';

/** URL of a bundled model file inside this package (Node). */
export function bundledModelUrl(file: keyof typeof STATIC_MODEL_FILES): URL {
  return new URL(PACKAGE_ROOT + STATIC_MODEL_FILES[file], import.meta.url);
}

/** Reads a file's bytes in Node; a missing or unreadable file is MODEL_UNAVAILABLE. */
export async function readModelFile(path: string | URL): Promise<Uint8Array> {
  try {
    const { readFile } = await import('node:fs/promises');
    return new Uint8Array(await readFile(path));
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', `Cannot read model file ${String(path)}`);
  }
}

/** Options of the fetch-based loaders. */
export interface FetchModelOptions {
  /** The fetch to use (default globalThis.fetch), e.g. a service worker's cache-aware one. */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** Fetches a model file's bytes; a network error or non-2xx answer is MODEL_UNAVAILABLE. */
export async function fetchModelBytes(url: string | URL, options: FetchModelOptions = {}): Promise<Uint8Array> {
  throwIfAborted(options.signal);
  const doFetch = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(url, options.signal === undefined ? {} : { signal: options.signal });
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', `Cannot fetch model file ${String(url)}`);
  }
  if (!response.ok) {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: `Cannot fetch model file ${String(url)}: HTTP ${response.status}`, details: { status: response.status } });
  }
  try {
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', `Cannot read model file ${String(url)}`);
  }
}

/** Loads and validates a model.bin from the file system (Node). */
export async function loadStaticModelFromFile(path: string | URL, options: ParseStaticModelOptions = {}): Promise<StaticModel> {
  return parseStaticModel(await readModelFile(path), options);
}

/** Loads and validates a model.bin over fetch (browsers, service workers, edge runtimes). */
export async function loadStaticModelFromUrl(url: string | URL, options: FetchModelOptions & ParseStaticModelOptions = {}): Promise<StaticModel> {
  return parseStaticModel(await fetchModelBytes(url, options), options);
}

let bundled: Promise<StaticModel> | undefined;

/** The bundled model, read once per process (Node). */
export function loadBundledStaticModel(): Promise<StaticModel> {
  bundled ??= loadStaticModelFromFile(bundledModelUrl('bin')).catch((error: unknown) => {
    bundled = undefined; // a failed read is retried next time rather than cached
    throw error;
  });
  return bundled;
}

/** The default Embedder in Node: the bundled static model, pure-TypeScript path. */
export async function createDefaultEmbedder(): Promise<StaticEmbedder> {
  return createStaticEmbedder(await loadBundledStaticModel());
}

/** The bundled static model through onnxruntime-web (Node); same vectors as createDefaultEmbedder. */
export async function createDefaultOnnxEmbedder(options: { wasmPaths?: OnnxWasmPaths; numThreads?: number } = {}): Promise<OnnxStaticEmbedder> {
  // Imported here, not at the top, so that bundles using only the TypeScript path never see it.
  const { createOnnxStaticEmbedder } = await import('./onnx-static-embedder.js');
  const [model, onnx] = await Promise.all([loadBundledStaticModel(), readModelFile(bundledModelUrl('onnx'))]);
  return createOnnxStaticEmbedder(model, { onnx, ...options });
}
