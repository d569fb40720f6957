/**
 * A TEST DOUBLE embedder: hashes words into a small vector space. Deterministic and instant, for
 * unit tests of fusion and ranking logic only; nothing user-facing uses it.
 */
import type { Embedder } from '../../src/models/ports.js';
import { tokenize } from '../../src/index/tokenizer.js';

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Creates the hashing embedder double. `synonyms` maps words onto one slot to model paraphrase. */
export function hashEmbedderDouble(dim = 256, synonyms: Record<string, string> = {}): Embedder {
  return {
    id: `test-hash-double-${dim}`,
    dim,
    async embed(texts) {
      return texts.map((text) => {
        const v = new Float32Array(dim);
        for (const token of tokenize(text)) {
          const t = synonyms[token] ?? token;
          const h = hash(t);
          v[h % dim]! += (h & 0x80000000) ? -1 : 1;
        }
        let norm = 0;
        for (const x of v) norm += x * x;
        norm = Math.sqrt(norm);
        if (norm > 0) for (let i = 0; i < dim; i++) v[i]! /= norm;
        return v;
      });
    },
  };
}
