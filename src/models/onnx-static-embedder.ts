/**
 * The static embedding model run through onnxruntime-web (WebAssembly): the same tokeniser as the
 * TypeScript path, the table math done by the graph in models/static-en/model.onnx. Its vectors
 * agree with createStaticEmbedder's to float32 rounding. onnxruntime-web is imported only when an
 * embedder is created, so bundles that never call this stay free of it (it cannot run in workerd).
 */

import type * as Ort from 'onnxruntime-web';

import { MemoryError, throwIfAborted, wrapError } from '../errors.js';
import type { Embedder, ModelCallOptions } from './ports.js';
import type { StaticModel } from './static-model.js';
import { createStaticTokenizer, PAD_ID, type StaticTokenizer } from './static-tokenizer.js';

/** Where onnxruntime-web finds its .wasm/.mjs files: a URL prefix or one URL per file. */
export type OnnxWasmPaths = string | { wasm?: string | URL; mjs?: string | URL };

/** Options of createOnnxStaticEmbedder. */
export interface OnnxStaticEmbedderOptions {
  /** Bytes of model.onnx; its weights are read from `model.bytes` (model.bin) as external data. */
  onnx: Uint8Array | ArrayBuffer;
  /** Serve the runtime's .wasm from your own origin; never left to a CDN. Sets ort.env.wasm.wasmPaths. */
  wasmPaths?: OnnxWasmPaths;
  /** WebAssembly threads (ort.env.wasm.numThreads, process-wide). Default 1: the graph is a gather and a sum. */
  numThreads?: number;
  /** Reuse a tokeniser already built for the same model (building one takes ~100 ms). */
  tokenizer?: StaticTokenizer;
}

/** The ONNX-backed embedder; `dispose` releases the WebAssembly session. */
export interface OnnxStaticEmbedder extends Embedder {
  readonly tokenizer: StaticTokenizer;
  dispose(): Promise<void>;
}

// Padded tokens per run: bounds the [batch, sequence, dim] intermediates to a few MB whatever the input.
const MAX_PADDED_TOKENS = 16_384;
const MAX_BATCH = 256;

/** The external-data file name the graph refers to. */
const EXTERNAL_DATA_PATH = 'model.bin';

/** Creates an Embedder that runs model.onnx with onnxruntime-web; throws MODEL_UNAVAILABLE when the runtime or session cannot start. */
export async function createOnnxStaticEmbedder(model: StaticModel, options: OnnxStaticEmbedderOptions): Promise<OnnxStaticEmbedder> {
  let ort: typeof Ort;
  let session: Ort.InferenceSession;
  try {
    ort = await import('onnxruntime-web');
    if (options.wasmPaths !== undefined) ort.env.wasm.wasmPaths = options.wasmPaths;
    ort.env.wasm.numThreads = options.numThreads ?? 1;
    const onnx = options.onnx instanceof Uint8Array ? options.onnx : new Uint8Array(options.onnx);
    session = await ort.InferenceSession.create(onnx, {
      executionProviders: ['wasm'],
      externalData: [{ path: EXTERNAL_DATA_PATH, data: model.bytes }],
    });
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', 'Cannot start the ONNX static embedding model');
  }
  const output = session.outputNames[0];
  if (output === undefined) throw new MemoryError('MODEL_UNAVAILABLE', { message: 'The ONNX static embedding model has no output.' });
  const tokenizer = options.tokenizer ?? createStaticTokenizer(model.words);
  const { dim } = model;

  const runBatch = async (batch: readonly (readonly number[])[]): Promise<Float32Array[]> => {
    const length = Math.max(1, ...batch.map((ids) => ids.length));
    const ids = new BigInt64Array(batch.length * length).fill(BigInt(PAD_ID));
    batch.forEach((row, r) => row.forEach((id, t) => (ids[r * length + t] = BigInt(id))));
    let result: Ort.InferenceSession.OnnxValueMapType;
    try {
      result = await session.run({ input_ids: new ort.Tensor('int64', ids, [batch.length, length]) });
    } catch (error) {
      throw wrapError(error, 'MODEL_FAILED', 'The ONNX static embedding model failed');
    }
    const data = result[output]?.data;
    if (!(data instanceof Float32Array) || data.length !== batch.length * dim) {
      throw new MemoryError('MODEL_FAILED', { message: 'The ONNX static embedding model returned an unexpected output.' });
    }
    // Copies, so each vector owns its buffer (structured clone and transfer stay cheap and safe);
    // `+ 0` turns the −0 an all-padding row can produce into the +0 the TypeScript path returns.
    return batch.map((_, r) => data.slice(r * dim, (r + 1) * dim).map((x) => x + 0));
  };

  return {
    id: model.id,
    dim,
    tokenizer,
    async embed(texts: readonly string[], callOptions: ModelCallOptions = {}): Promise<Float32Array[]> {
      throwIfAborted(callOptions.signal);
      const encoded = texts.map((text) => tokenizer.encode(text));
      const out: Float32Array[] = [];
      let start = 0;
      while (start < encoded.length) {
        // Grow the batch while its padded size stays within budget; a single huge text goes alone.
        let end = start + 1;
        let longest = encoded[start]?.length ?? 0;
        while (end < encoded.length && end - start < MAX_BATCH) {
          const next = Math.max(longest, encoded[end]?.length ?? 0);
          if (next * (end - start + 1) > MAX_PADDED_TOKENS) break;
          longest = next;
          end++;
        }
        throwIfAborted(callOptions.signal);
        out.push(...(await runBatch(encoded.slice(start, end))));
        start = end;
      }
      return out;
    },
    async dispose(): Promise<void> {
      await session.release();
    },
  };
}
