/**
 * The static embedding model run in plain TypeScript: a sentence vector is the sum of its words'
 * rows (int8 × per-row scale), L2-normalised. Needs no WebAssembly, so it runs wherever the engine
 * runs, workerd included; about ten microseconds for a short query.
 *
 * Text with no known word (the empty string, digits only, an unseen script) embeds to the all-zero
 * vector. It is the one vector that is not unit length: its cosine with anything is 0, meaning
 * "no similarity", never NaN.
 */

import { throwIfAborted } from '../errors.js';
import type { Embedder, ModelCallOptions } from './ports.js';
import type { StaticModel } from './static-model.js';
import { createStaticTokenizer, type StaticTokenizer } from './static-tokenizer.js';

/** An Embedder backed by a static model, also exposing the tokeniser it uses. */
export interface StaticEmbedder extends Embedder {
  readonly tokenizer: StaticTokenizer;
  /** Embeds already tokenised ids (no PAD_ID needed); the ONNX path and tests share the tokeniser this way. */
  embedIds(ids: readonly number[]): Float32Array;
}

// Checking the signal between texts keeps a large batch abortable without slowing small ones.
const ABORT_CHECK_EVERY = 256;

/** Builds the pure-TypeScript embedder from a parsed model. */
export function createStaticEmbedder(model: StaticModel, tokenizer: StaticTokenizer = createStaticTokenizer(model.words)): StaticEmbedder {
  const { dim, table, scales } = model;
  const rows = model.vocabSize + 1;

  // Rows summed four columns at a time (the write path embeds every record it stores); each
  // column still adds its words in order, so every sum is the same as one column at a time.
  const unrolled = dim - (dim % 4);
  const embedIds = (ids: readonly number[]): Float32Array => {
    // float64 accumulation: the float32 ONNX graph differs from it by rounding only (≪ 1e-5).
    const sum = new Float64Array(dim);
    for (const id of ids) {
      if (id <= 0 || id >= rows) continue;
      const scale = scales[id] as number;
      const base = id * dim;
      for (let k = 0; k < unrolled; k += 4) {
        const at = base + k;
        sum[k] = (sum[k] as number) + (table[at] as number) * scale;
        sum[k + 1] = (sum[k + 1] as number) + (table[at + 1] as number) * scale;
        sum[k + 2] = (sum[k + 2] as number) + (table[at + 2] as number) * scale;
        sum[k + 3] = (sum[k + 3] as number) + (table[at + 3] as number) * scale;
      }
      for (let k = unrolled; k < dim; k++) sum[k] = (sum[k] as number) + (table[base + k] as number) * scale;
    }
    let norm = 0;
    for (let k = 0; k < dim; k++) norm += (sum[k] as number) ** 2;
    norm = Math.sqrt(norm);
    const out = new Float32Array(dim);
    if (norm > 0) for (let k = 0; k < dim; k++) out[k] = (sum[k] as number) / norm;
    return out;
  };

  return {
    id: model.id,
    dim,
    tokenizer,
    embedIds,
    async embed(texts: readonly string[], options: ModelCallOptions = {}): Promise<Float32Array[]> {
      throwIfAborted(options.signal);
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        if (i > 0 && i % ABORT_CHECK_EVERY === 0) throwIfAborted(options.signal);
        out.push(embedIds(tokenizer.encode(texts[i] ?? '')));
      }
      return out;
    },
  };
}
