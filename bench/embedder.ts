/**
 * Throughput of the bundled static embedding model, pure TypeScript vs onnxruntime-web (wasm, one
 * thread), at batch 1 and batch 64, for short sentences and for paragraph-long texts.
 *
 *   npx tsx bench/embedder.ts
 */

import type { Embedder } from '../src/models/ports.js';
import { createDefaultEmbedder, createDefaultOnnxEmbedder } from '../src/models/load-static-model.js';

const SENTENCES = [
  'My daughter starts kindergarten next September.',
  'I am allergic to peanuts and shellfish.',
  'We adopted a puppy from the animal shelter last weekend.',
  'My flight to Tokyo leaves on Friday morning at seven.',
  'The meeting with the landlord was moved to Thursday afternoon.',
  'I have been learning to play the guitar for three months.',
  'Remind me to buy milk, eggs and bread on the way home.',
  'Our internet connection keeps dropping in the evening.',
];

// Deterministic texts: short ones are single sentences, long ones ~120 words.
const SHORT = Array.from({ length: 256 }, (_, i) => `${SENTENCES[i % SENTENCES.length] ?? ''} (${i})`);
const LONG = Array.from({ length: 256 }, (_, i) =>
  Array.from({ length: 14 }, (_, j) => SENTENCES[(i + j * 3) % SENTENCES.length] ?? '').join(' '),
);

/** Embeddings per second, measured over at least `minMs` after a warm-up. */
async function rate(embedder: Embedder, texts: readonly string[], batch: number, minMs = 1500): Promise<number> {
  const batches: string[][] = [];
  for (let i = 0; i < texts.length; i += batch) batches.push(texts.slice(i, i + batch));
  for (const b of batches.slice(0, 4)) await embedder.embed(b);
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    for (const b of batches) {
      await embedder.embed(b);
      count += b.length;
    }
  }
  return (count * 1000) / (performance.now() - start);
}

async function main(): Promise<void> {
  process.stderr.write('data: none to fetch: 256 short and 256 long sentences generated here; model: the bundled models/static-en (TypeScript and ONNX forms of the same weights)\n');
  const ts = await createDefaultEmbedder();
  const onnx = await createDefaultOnnxEmbedder();
  const format = (n: number): string => Math.round(n).toLocaleString('en-US').padStart(10);
  console.log(`model ${ts.id}, ${ts.dim} dims; embeddings per second (higher is better)`);
  console.log('texts               batch    TypeScript        ONNX');
  for (const [label, texts] of [['short (~10 words)', SHORT], ['long (~120 words)', LONG]] as const) {
    for (const batch of [1, 64]) {
      const a = await rate(ts, texts, batch);
      const b = await rate(onnx, texts, batch);
      console.log(`${label.padEnd(18)} ${String(batch).padStart(6)} ${format(a)}  ${format(b)}`);
    }
  }
  await onnx.dispose();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
