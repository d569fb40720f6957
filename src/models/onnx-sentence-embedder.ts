/**
 * Bring your own sentence-transformers model: an ONNX export (all-MiniLM-L6-v2, bge-small, e5 …)
 * and its tokenizer.json, run on the device by onnxruntime-web. Texts are tokenised in plain
 * JavaScript, fed in padded batches, pooled over the attention mask (mean, [CLS] or max) and
 * L2-normalised, as sentence-transformers does.
 *
 * Models trained with instructions (e5: "query: " / "passage: ", bge: a query instruction) embed
 * queries and documents differently: `embed` applies `documentPrefix` (what the engine stores) and
 * `embedQueries` applies `queryPrefix` (what it searches with).
 */

import { MemoryError, throwIfAborted } from '../errors.js';
import type { EncodedInput, HfTokenizer } from './hf-tokenizer.js';
import { fingerprint, type ModelFileSource } from './model-source.js';
import { runPlanned } from './batches.js';
import { openEncoder, startFailure, type EncoderOutput, type EncoderSession, type OnnxRuntimeOptions } from './onnx-encoder-session.js';
import type { Embedder, ModelCallOptions } from './ports.js';

/** How token vectors become one sentence vector. */
export type Pooling = 'mean' | 'cls' | 'max';

/** Options of createOnnxSentenceEmbedder. */
export interface OnnxSentenceEmbedderOptions extends OnnxRuntimeOptions {
  /** model.onnx: bytes, a URL (fetched), or a path (Node). Weights must be inside the file. */
  model: ModelFileSource;
  /** tokenizer.json: the parsed object, bytes, a URL, or a path (Node). */
  tokenizer: ModelFileSource | object;
  /** tokenizer_config.json (optional): its model_max_length caps maxLength. */
  tokenizerConfig?: ModelFileSource | object;
  /** Default 'mean' (MiniLM, e5); bge uses 'cls'. Check the model's 1_Pooling/config.json. */
  pooling?: Pooling;
  /** L2-normalise the vectors. Default true; the engine's cosine scores assume unit vectors. */
  normalize?: boolean;
  /** Tokens per text including special tokens; longer texts are cut. Default 256. */
  maxLength?: number;
  /** Put before every search query, e.g. 'query: ' for e5. */
  queryPrefix?: string;
  /** Put before every stored text, e.g. 'passage: ' for e5. */
  documentPrefix?: string;
  /** Model id stored with each vector. Default: derived from the model and tokenizer bytes and these options. */
  id?: string;
  /** Texts per run (default 32). */
  batchSize?: number;
  /** Output to read. Default: 'sentence_embedding' when the graph has it (already pooled), else 'last_hidden_state', else the first. */
  output?: string;
  /** The fetch used for URL sources (default globalThis.fetch), e.g. cachedModelFetch(...). */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** The embedder; `embedQueries` applies the query prefix, `dispose` frees the session. */
export interface OnnxSentenceEmbedder extends Embedder {
  readonly maxLength: number;
  readonly pooling: Pooling;
  embedQueries(texts: readonly string[], options?: ModelCallOptions): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

// Padded tokens per run: bounds the [batch, heads, sequence, sequence] attention scores.
const MAX_PADDED_TOKENS = 4096;

/**
 * Loads a sentence-transformers ONNX model and its tokenizer; a missing file, corrupt model or
 * unusable tokenizer is MODEL_UNAVAILABLE.
 *
 * @example
 * const embedder = await createOnnxSentenceEmbedder({
 *   model: '/models/all-MiniLM-L6-v2/onnx/model.onnx',
 *   tokenizer: '/models/all-MiniLM-L6-v2/tokenizer.json',
 *   wasmPaths: '/ort/',
 * });
 * const memory = await createMemory({ embedder });
 */
export async function createOnnxSentenceEmbedder(options: OnnxSentenceEmbedderOptions): Promise<OnnxSentenceEmbedder> {
  const { bytes, tokenizer, session } = await openEncoder(options, 'ONNX sentence embedding model');
  try {
    return await buildEmbedder(session, tokenizer, fingerprint(bytes), options);
  } catch (error) {
    await session.dispose().catch(() => undefined);
    throw startFailure(error, 'Cannot start the ONNX sentence embedding model');
  }
}

async function buildEmbedder(session: EncoderSession, tokenizer: HfTokenizer, modelPrint: string, options: OnnxSentenceEmbedderOptions): Promise<OnnxSentenceEmbedder> {
  const pooling = options.pooling ?? 'mean';
  if (pooling !== 'mean' && pooling !== 'cls' && pooling !== 'max') {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: `Unknown pooling ${String(pooling)}: use mean, cls or max.` });
  }
  const normalize = options.normalize ?? true;
  const maxLength = Math.max(2, Math.min(options.maxLength ?? 256, tokenizer.modelMaxLength ?? Number.POSITIVE_INFINITY));
  const batchSize = Math.max(1, options.batchSize ?? 32);
  const queryPrefix = options.queryPrefix ?? '';
  const documentPrefix = options.documentPrefix ?? '';
  const output = options.output ?? pickOutput(session.outputNames);
  if (!session.outputNames.includes(output)) {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: `The model has no output ${output}.`, details: { outputs: [...session.outputNames] } });
  }

  const runBatch = async (batch: EncodedInput[]): Promise<Float32Array[]> => {
    const result = await session.run(batch, tokenizer.padId, output);
    return batch.map((input, row) => finish(sentenceVector(result, row, input.ids.length, pooling), normalize));
  };

  const embedWith = async (prefix: string, texts: readonly string[], callOptions: ModelCallOptions): Promise<Float32Array[]> => {
    throwIfAborted(callOptions.signal);
    const encoded = texts.map((text) => tokenizer.encode(prefix + text, maxLength));
    return runPlanned(
      encoded.map((e) => e.ids.length),
      { maxBatch: batchSize, maxTokens: MAX_PADDED_TOKENS },
      callOptions.signal,
      (indices) => runBatch(indices.map((i) => encoded[i] as EncodedInput)),
    );
  };

  // One probe run learns the width and proves the graph runs before anything is stored with it.
  const [probe] = await embedWith(documentPrefix, ['probe'], {});
  const dim = probe?.length ?? 0;
  if (dim === 0) throw new MemoryError('MODEL_UNAVAILABLE', { message: 'The model produced an empty embedding.' });

  const id =
    options.id ??
    ['onnx-sentence', `${modelPrint}-${tokenizer.fingerprint}`, pooling, `len${maxLength}`, normalize ? '' : 'raw', documentPrefix ? `doc=${documentPrefix.trim()}` : '']
      .filter(Boolean)
      .join(':');

  return {
    id,
    dim,
    maxLength,
    pooling,
    embed: (texts, callOptions = {}) => embedWith(documentPrefix, texts, callOptions),
    embedQueries: (texts, callOptions = {}) => embedWith(queryPrefix, texts, callOptions),
    dispose: () => session.dispose(),
  };
}

function pickOutput(names: readonly string[]): string {
  if (names.includes('sentence_embedding')) return 'sentence_embedding';
  if (names.includes('last_hidden_state')) return 'last_hidden_state';
  return names[0] ?? '';
}

/** One row of the output as a sentence vector: pooled token states, or the row as is when the graph pooled already. */
function sentenceVector(result: EncoderOutput, row: number, tokens: number, pooling: Pooling): Float32Array {
  const { data, dims } = result;
  if (dims.length === 2) {
    const width = dims[1] as number;
    return data.slice(row * width, (row + 1) * width);
  }
  if (dims.length !== 3) throw new MemoryError('MODEL_FAILED', { message: `Unexpected output rank ${dims.length}.`, details: { dims: [...dims] } });
  const length = dims[1] as number;
  const width = dims[2] as number;
  const base = row * length * width;
  const out = new Float32Array(width);
  if (pooling === 'cls') {
    out.set(data.subarray(base, base + width));
    return out;
  }
  if (pooling === 'max') {
    out.fill(Number.NEGATIVE_INFINITY);
    for (let t = 0; t < tokens; t++) for (let d = 0; d < width; d++) out[d] = Math.max(out[d] as number, data[base + t * width + d] as number);
    return out;
  }
  // Mean over the real tokens, summed in float64 so a long text does not drift.
  const sum = new Float64Array(width);
  for (let t = 0; t < tokens; t++) for (let d = 0; d < width; d++) sum[d] = (sum[d] as number) + (data[base + t * width + d] as number);
  for (let d = 0; d < width; d++) out[d] = (sum[d] as number) / Math.max(1, tokens);
  return out;
}

function finish(vector: Float32Array, normalize: boolean): Float32Array {
  if (!normalize) return vector;
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}
