/**
 * An Embedder backed by a Cloudflare Workers AI binding (`env.AI`), e.g. `@cf/baai/bge-small-en-v1.5`.
 * Typed against the one method it calls, so nothing here needs platform types and a test can hand
 * it a scripted double. Vectors are L2-normalised here whatever the service returns; a blank text
 * is never sent and embeds to the all-zero vector, as with the static model.
 */
import { MemoryError, throwIfAborted, wrapError } from '../errors.js';
import type { Embedder, ModelCallOptions } from './ports.js';

/** The part of the Workers AI binding this embedder uses. */
export interface WorkersAiBinding {
  run(model: string, inputs: { text: string[] }): Promise<unknown>;
}

/** Output widths of the Workers AI text-embedding models this package knows. */
export const WORKERS_AI_EMBEDDING_DIMS: Readonly<Record<string, number>> = {
  '@cf/baai/bge-small-en-v1.5': 384,
  '@cf/baai/bge-base-en-v1.5': 768,
  '@cf/baai/bge-large-en-v1.5': 1024,
  '@cf/baai/bge-m3': 1024,
};

export const DEFAULT_WORKERS_AI_EMBEDDING_MODEL = '@cf/baai/bge-small-en-v1.5';

export interface WorkersAiEmbedderOptions {
  ai: WorkersAiBinding;
  /** Default `@cf/baai/bge-small-en-v1.5`. */
  model?: string;
  /** Output width; required for a model missing from WORKERS_AI_EMBEDDING_DIMS. */
  dim?: number;
  /** Texts per call (default 100, the service's limit for these models). */
  batchSize?: number;
  /** Texts are cut to this many characters (default 2000, about the models' 512-token window). */
  maxChars?: number;
}

/** Builds an Embedder that calls `ai.run(model, { text })`. */
export function createWorkersAiEmbedder(options: WorkersAiEmbedderOptions): Embedder {
  const model = options.model ?? DEFAULT_WORKERS_AI_EMBEDDING_MODEL;
  const dim = options.dim ?? WORKERS_AI_EMBEDDING_DIMS[model];
  if (dim === undefined || !Number.isInteger(dim) || dim <= 0) {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: `Unknown output width for Workers AI model ${model}: pass dim`, details: { model } });
  }
  const batchSize = Math.max(1, options.batchSize ?? 100);
  const maxChars = options.maxChars ?? 2000;
  const { ai } = options;

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    let result: unknown;
    try {
      result = await ai.run(model, { text: texts });
    } catch (error) {
      throw wrapError(error, 'MODEL_FAILED', `Workers AI ${model} failed`);
    }
    const data = (result as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== texts.length) {
      throw new MemoryError('MODEL_FAILED', { message: `Workers AI ${model} returned no data[] for ${texts.length} texts`, details: { model } });
    }
    return data.map((row: unknown) => {
      if (!Array.isArray(row) || row.length !== dim || !row.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new MemoryError('MODEL_FAILED', { message: `Workers AI ${model} returned a vector that is not ${dim} finite numbers`, details: { model, dim } });
      }
      return normalise(Float32Array.from(row as number[]));
    });
  }

  return {
    id: `workers-ai:${model}`,
    dim,
    async embed(texts: readonly string[], callOptions: ModelCallOptions = {}): Promise<Float32Array[]> {
      throwIfAborted(callOptions.signal);
      const out: Float32Array[] = texts.map(() => new Float32Array(dim));
      const pending = texts.map((text, index) => ({ index, text: text.slice(0, maxChars) })).filter((t) => t.text.trim() !== '');
      for (let i = 0; i < pending.length; i += batchSize) {
        throwIfAborted(callOptions.signal);
        const chunk = pending.slice(i, i + batchSize);
        const vectors = await embedBatch(chunk.map((t) => t.text));
        chunk.forEach((t, k) => (out[t.index] = vectors[k]!));
      }
      return out;
    },
  };
}

function normalise(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}
