/**
 * A transformer encoder exported to ONNX (BERT, MiniLM, bge, e5, cross-encoders) run through
 * onnxruntime-web: padded batches fed as the inputs the graph declares (input_ids, attention_mask,
 * token_type_ids, position_ids) in the integer type it declares. onnxruntime-web is imported only
 * when a session is created, so bundles that never create one stay free of it.
 */

import type * as Ort from 'onnxruntime-web';

import { isMemoryError, MemoryError, throwIfAborted, wrapError } from '../errors.js';
import { loadHfTokenizer, type EncodedInput, type HfTokenizer } from './hf-tokenizer.js';
import { isNode, loadModelFile, type ModelFileSource } from './model-source.js';
import type { OnnxWasmPaths } from './onnx-static-embedder.js';

/** Runtime options shared by the ONNX encoders. */
export interface OnnxRuntimeOptions {
  /** Serve the runtime's .wasm from your own origin; never left to a CDN. Sets ort.env.wasm.wasmPaths. */
  wasmPaths?: OnnxWasmPaths;
  /** WebAssembly threads (ort.env.wasm.numThreads, process-wide). Default 1 in Node; the runtime's choice elsewhere. */
  numThreads?: number;
}

/** Where an ONNX encoder's files come from (bytes, a URL, or a path in Node). */
export interface EncoderFiles extends OnnxRuntimeOptions {
  model: ModelFileSource;
  tokenizer: ModelFileSource | object;
  tokenizerConfig?: ModelFileSource | object;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** Loads an encoder's model and tokenizer in parallel and starts its session. */
export async function openEncoder(files: EncoderFiles, what: string): Promise<{ bytes: Uint8Array; tokenizer: HfTokenizer; session: EncoderSession }> {
  throwIfAborted(files.signal);
  const fetchOptions = {
    ...(files.fetch === undefined ? {} : { fetch: files.fetch }),
    ...(files.signal === undefined ? {} : { signal: files.signal }),
  };
  const [bytes, tokenizer] = await Promise.all([
    loadModelFile(files.model, fetchOptions),
    loadHfTokenizer({ tokenizer: files.tokenizer, ...(files.tokenizerConfig === undefined ? {} : { tokenizerConfig: files.tokenizerConfig }), ...fetchOptions }),
  ]);
  throwIfAborted(files.signal);
  return { bytes, tokenizer, session: await createEncoderSession(bytes, files, what) };
}

/** An output of one run: flat float data and its dims. */
export interface EncoderOutput {
  data: Float32Array;
  dims: readonly number[];
}

/** A started session. */
export interface EncoderSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Declared shape of an output (numbers or symbolic names), empty when unknown. */
  outputShape(name: string): readonly (number | string)[];
  /** Runs one padded batch and returns the named output. */
  run(batch: readonly EncodedInput[], padId: number, output: string): Promise<EncoderOutput>;
  dispose(): Promise<void>;
}

const KNOWN_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids', 'position_ids']);

/** Starts a session on model bytes; a missing runtime, corrupt model or unknown input is MODEL_UNAVAILABLE. */
export async function createEncoderSession(bytes: Uint8Array, options: OnnxRuntimeOptions, what: string): Promise<EncoderSession> {
  let ort: typeof Ort;
  let session: Ort.InferenceSession;
  try {
    ort = await import('onnxruntime-web');
    if (options.wasmPaths !== undefined) ort.env.wasm.wasmPaths = options.wasmPaths;
    // Threads in Node would start workers the process then waits on; browsers pick their own.
    if (options.numThreads !== undefined) ort.env.wasm.numThreads = options.numThreads;
    else if (isNode()) ort.env.wasm.numThreads = 1;
    session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', `Cannot start the ${what}`);
  }
  const unknown = session.inputNames.filter((name) => !KNOWN_INPUTS.has(name));
  if (unknown.length > 0 || !session.inputNames.includes('input_ids')) {
    await session.release().catch(() => undefined);
    throw new MemoryError('MODEL_UNAVAILABLE', {
      message: `The ${what} declares inputs this runtime cannot feed: ${session.inputNames.join(', ')}`,
      details: { inputs: [...session.inputNames] },
    });
  }
  const int32 = new Set(
    session.inputMetadata.filter((m) => m.isTensor && m.type === 'int32').map((m) => m.name),
  );

  const feed = (name: string, rows: number, length: number, fill: (row: number, t: number) => number): Ort.Tensor => {
    if (int32.has(name)) {
      const data = new Int32Array(rows * length);
      for (let r = 0; r < rows; r++) for (let t = 0; t < length; t++) data[r * length + t] = fill(r, t);
      return new ort.Tensor('int32', data, [rows, length]);
    }
    const data = new BigInt64Array(rows * length);
    for (let r = 0; r < rows; r++) for (let t = 0; t < length; t++) data[r * length + t] = BigInt(fill(r, t));
    return new ort.Tensor('int64', data, [rows, length]);
  };

  return {
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    outputShape(name) {
      const meta = session.outputMetadata.find((m) => m.name === name);
      return meta?.isTensor ? meta.shape : [];
    },
    async run(batch, padId, output) {
      const rows = batch.length;
      const length = Math.max(1, ...batch.map((b) => b.ids.length));
      const at = (r: number) => batch[r] as EncodedInput;
      const feeds: Record<string, Ort.Tensor> = {};
      for (const name of session.inputNames) {
        if (name === 'input_ids') feeds[name] = feed(name, rows, length, (r, t) => at(r).ids[t] ?? padId);
        else if (name === 'attention_mask') feeds[name] = feed(name, rows, length, (r, t) => (t < at(r).ids.length ? 1 : 0));
        else if (name === 'token_type_ids') feeds[name] = feed(name, rows, length, (r, t) => at(r).typeIds[t] ?? 0);
        else feeds[name] = feed(name, rows, length, (_, t) => t);
      }
      let result: Ort.InferenceSession.OnnxValueMapType;
      try {
        result = await session.run(feeds, [output]);
      } catch (error) {
        throw wrapError(error, 'MODEL_FAILED', `The ${what} failed`);
      }
      const tensor = result[output];
      if (!tensor || !(tensor.data instanceof Float32Array) || tensor.dims[0] !== rows) {
        throw new MemoryError('MODEL_FAILED', { message: `The ${what} returned an unexpected ${output}.`, details: { dims: tensor ? [...tensor.dims] : null } });
      }
      return { data: tensor.data, dims: tensor.dims };
    },
    async dispose() {
      await session.release();
    },
  };
}

/** A failure while starting a model (its probe run included) is MODEL_UNAVAILABLE; an abort stays ABORTED. */
export function startFailure(error: unknown, message: string): MemoryError {
  if (isMemoryError(error) && error.code !== 'MODEL_FAILED') return error;
  const cause = isMemoryError(error) ? error : undefined;
  return cause ? new MemoryError('MODEL_UNAVAILABLE', { message: `${message}: ${cause.message}`, cause }) : wrapError(error, 'MODEL_UNAVAILABLE', message);
}
