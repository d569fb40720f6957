/**
 * A Reranker backed by an ONNX cross-encoder (cross-encoder/ms-marco-MiniLM-L-6-v2, bge-reranker
 * …) run on the device by onnxruntime-web. Each candidate is read together with the query as one
 * pair ([CLS] query [SEP] passage [SEP], token types 0 / 1), so the model sees both at once; its
 * logit becomes a 0..1 score through a sigmoid (one logit) or a softmax (two classes).
 */

import { MemoryError, throwIfAborted } from '../errors.js';
import type { EncodedInput } from './hf-tokenizer.js';
import { fingerprint, type ModelFileSource } from './model-source.js';
import { runPlanned } from './batches.js';
import { openEncoder, startFailure, type EncoderOutput, type EncoderSession, type OnnxRuntimeOptions } from './onnx-encoder-session.js';
import type { ModelCallOptions, Reranker, RerankCandidate } from './ports.js';

/** Options of createCrossEncoderReranker. */
export interface CrossEncoderRerankerOptions extends OnnxRuntimeOptions {
  /** model.onnx of the cross-encoder: bytes, a URL (fetched), or a path (Node). */
  model: ModelFileSource;
  /** tokenizer.json: the parsed object, bytes, a URL, or a path (Node). */
  tokenizer: ModelFileSource | object;
  /** tokenizer_config.json (optional): its model_max_length caps maxLength. */
  tokenizerConfig?: ModelFileSource | object;
  /** Tokens per pair including special tokens; the longer side is cut first. Default 512. */
  maxLength?: number;
  /** Pairs per run. Default 16. */
  batchSize?: number;
  /** Output to read. Default 'logits' when the graph has it, else the first. */
  output?: string;
  /** Reranker id. Default: derived from the model and tokenizer bytes. */
  id?: string;
  /** The fetch used for URL sources (default globalThis.fetch). */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** The reranker; `dispose` frees the session. */
export interface CrossEncoderReranker extends Reranker {
  dispose(): Promise<void>;
}

const MAX_PADDED_TOKENS = 8192;

/**
 * Loads a cross-encoder; a missing file, corrupt model or unusable tokenizer is MODEL_UNAVAILABLE.
 * `rerank` returns every candidate once, best first (input order breaks ties), scores in 0..1.
 *
 * @example
 * const reranker = await createCrossEncoderReranker({
 *   model: '/models/ms-marco-MiniLM-L-6-v2/onnx/model.onnx',
 *   tokenizer: '/models/ms-marco-MiniLM-L-6-v2/tokenizer.json',
 *   wasmPaths: '/ort/',
 * });
 * const memory = await createMemory({ embedder, reranker });
 */
export async function createCrossEncoderReranker(options: CrossEncoderRerankerOptions): Promise<CrossEncoderReranker> {
  const { bytes, tokenizer, session } = await openEncoder(options, 'ONNX cross-encoder');
  const maxLength = Math.max(3, Math.min(options.maxLength ?? 512, tokenizer.modelMaxLength ?? Number.POSITIVE_INFINITY));
  const batchSize = Math.max(1, options.batchSize ?? 16);
  const output = options.output ?? (session.outputNames.includes('logits') ? 'logits' : (session.outputNames[0] ?? ''));

  const scoreBatch = async (pairs: EncodedInput[]): Promise<number[]> => toScores(await session.run(pairs, tokenizer.padId, output), pairs.length);
  const scorePairs = (query: string, texts: readonly string[], signal: AbortSignal | undefined): Promise<number[]> => {
    const pairs = texts.map((text) => tokenizer.encodePair(query, text, maxLength));
    return runPlanned(
      pairs.map((p) => p.ids.length),
      { maxBatch: batchSize, maxTokens: MAX_PADDED_TOKENS },
      signal,
      (indices) => scoreBatch(indices.map((i) => pairs[i] as EncodedInput)),
    );
  };

  try {
    if (!session.outputNames.includes(output)) {
      throw new MemoryError('MODEL_UNAVAILABLE', { message: `The cross-encoder has no output ${output}.`, details: { outputs: [...session.outputNames] } });
    }
    await scorePairs('probe', ['probe'], undefined);
  } catch (error) {
    await disposeQuietly(session);
    throw startFailure(error, 'Cannot start the ONNX cross-encoder');
  }

  return {
    id: options.id ?? `cross-encoder:${fingerprint(bytes)}-${tokenizer.fingerprint}:len${maxLength}`,
    async rerank(query: string, candidates: readonly RerankCandidate[], callOptions: ModelCallOptions = {}) {
      throwIfAborted(callOptions.signal);
      if (!candidates || candidates.length === 0) return [];
      const scores = await scorePairs(query, candidates.map((c) => c.text ?? ''), callOptions.signal);
      return candidates
        .map((candidate, index) => ({ id: candidate.id, score: scores[index] as number, index }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .map(({ id, score }) => ({ id, score }));
    },
    dispose: () => session.dispose(),
  };
}

/** Logits [batch] or [batch, classes] → 0..1: sigmoid of a single logit, softmax probability of the last class otherwise. */
function toScores(result: EncoderOutput, rows: number): number[] {
  const width = result.data.length / rows;
  if (result.dims.length > 2 || !Number.isInteger(width) || width < 1) {
    throw new MemoryError('MODEL_FAILED', { message: 'The cross-encoder returned an unexpected output.', details: { dims: [...result.dims] } });
  }
  const scores: number[] = [];
  for (let r = 0; r < rows; r++) {
    const row = result.data.subarray(r * width, (r + 1) * width);
    let score: number;
    if (width === 1) score = 1 / (1 + Math.exp(-(row[0] as number)));
    else {
      const max = Math.max(...row);
      let total = 0;
      for (const x of row) total += Math.exp(x - max);
      score = Math.exp((row[width - 1] as number) - max) / total;
    }
    scores.push(Number.isFinite(score) ? score : 0);
  }
  return scores;
}

async function disposeQuietly(session: EncoderSession): Promise<void> {
  await session.dispose().catch(() => undefined);
}
