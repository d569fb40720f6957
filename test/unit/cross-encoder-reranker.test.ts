/**
 * The ONNX cross-encoder reranker on two generated models: a seeded-random tiny BERT with a
 * classifier head, checked against straight onnxruntime runs of hand-encoded pairs, and a tiny
 * cross-encoder wired by hand to score word overlap between query and passage, on which the
 * right passage has to move to the top.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isMemoryError } from '../../src/errors.js';
import { createCrossEncoderReranker, type CrossEncoderReranker, type CrossEncoderRerankerOptions } from '../../src/models/cross-encoder-reranker.js';
import type { RerankCandidate } from '../../src/models/ports.js';
import { buildOverlapCrossEncoder, buildTinyBert, tinyTokenizerConfig, tinyTokenizerJson } from '../support/tiny-bert.js';

const tokenizer = tinyTokenizerJson();
const tokenizerConfig = tinyTokenizerConfig(128);
const randomModel = buildTinyBert({ head: 'classifier', seed: 23 });
const base: CrossEncoderRerankerOptions = { model: randomModel, tokenizer, tokenizerConfig };
const reference = new Tokenizer(tokenizer, tokenizerConfig);

const QUERY = 'what job does alice have';
const CANDIDATES: RerankCandidate[] = [
  { id: 'weather', text: 'The weather was rainy all week.' },
  { id: 'pizza', text: 'Bob likes pizza and coffee.' },
  { id: 'trip', text: 'We plan a trip to Tokyo next summer with the kids.' },
  { id: 'music', text: 'My sister loves playing the guitar and the piano.' },
  { id: 'nurse', text: 'Alice has a job as a nurse.' },
];

let random: CrossEncoderReranker;
let raw: ort.InferenceSession;

beforeAll(async () => {
  random = await createCrossEncoderReranker(base);
  raw = await ort.InferenceSession.create(randomModel);
});

afterAll(async () => {
  await random.dispose();
  await raw.release();
});

/** sigmoid(logit) of one pair, encoded by the tokenizer library and run alone, unpadded. */
async function referenceScore(query: string, passage: string): Promise<number> {
  const { ids, token_type_ids: types } = reference.encode(query, { text_pair: passage, return_token_type_ids: true });
  const int64 = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, values.length]);
  const out = await raw.run({ input_ids: int64(ids), attention_mask: int64(ids.map(() => 1)), token_type_ids: int64(types) });
  return 1 / (1 + Math.exp(-(out.logits!.data as Float32Array)[0]!));
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('createCrossEncoderReranker', () => {
  it('moves the passage that shares the query words to the top', async () => {
    const overlap = await createCrossEncoderReranker({ model: buildOverlapCrossEncoder(), tokenizer, tokenizerConfig });
    const ranked = await overlap.rerank(QUERY, CANDIDATES);

    expect(ranked[0]).toMatchObject({ id: 'nurse' });
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score + 0.1);
    const other = await overlap.rerank('who plays the guitar', CANDIDATES);
    expect(other[0]!.id).toBe('music');
    await overlap.dispose();
  });

  it('scores each pair as sigmoid(logit) of [CLS] query [SEP] passage [SEP], best first', async () => {
    const ranked = await random.rerank(QUERY, CANDIDATES);
    const expected = await Promise.all(CANDIDATES.map(async (c) => ({ id: c.id, score: await referenceScore(QUERY, c.text) })));
    expected.sort((a, b) => b.score - a.score);

    expect(ranked.map((r) => r.id)).toEqual(expected.map((e) => e.id));
    ranked.forEach((r, i) => expect(Math.abs(r.score - expected[i]!.score)).toBeLessThan(1e-5));
    for (const r of ranked) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    expect(random.id).toMatch(/^cross-encoder:[0-9a-f]{8}-[0-9a-f]{8}:len128$/);
  });

  it('gives the same scores whatever the batch size', async () => {
    const single = await createCrossEncoderReranker({ ...base, batchSize: 1 });
    const a = await random.rerank(QUERY, CANDIDATES);
    const b = await single.rerank(QUERY, CANDIDATES);
    expect(b.map((r) => r.id)).toEqual(a.map((r) => r.id));
    b.forEach((r, i) => expect(Math.abs(r.score - a[i]!.score)).toBeLessThan(1e-5));
    await single.dispose();
  });

  it('cuts the longer side first and keeps the query whole', async () => {
    const short = await createCrossEncoderReranker({ ...base, maxLength: 12 });
    const passage = 'alice has a job as a nurse at the city hospital in london';
    const [cut] = await short.rerank(QUERY, [{ id: 'p', text: passage }]);
    // 12 = [CLS] + 5 query tokens + [SEP] + 4 passage tokens + [SEP].
    expect(Math.abs(cut!.score - (await referenceScore(QUERY, 'alice has a job')))).toBeLessThan(1e-5);

    const [long] = await random.rerank(QUERY, [{ id: 'long', text: Array.from({ length: 400 }, () => 'nurse').join(' ') }]);
    expect(long!.score).toBeGreaterThan(0);
    await short.dispose();
  });

  it('returns nothing for no candidates and scores empty texts', async () => {
    expect(await random.rerank(QUERY, [])).toEqual([]);
    expect(await random.rerank(QUERY, undefined as unknown as RerankCandidate[])).toEqual([]);
    const ranked = await random.rerank(QUERY, [{ id: 'blank', text: '' }, { id: 'nurse', text: 'Alice has a job as a nurse.' }]);
    expect(ranked.map((r) => r.id).sort()).toEqual(['blank', 'nurse']);
    expect(ranked.every((r) => r.score >= 0 && r.score <= 1)).toBe(true);
  });

  it('fails with MODEL_UNAVAILABLE for a corrupt model, a model without a score output or no tokenizer', async () => {
    const cases = [
      createCrossEncoderReranker({ ...base, model: randomModel.slice(0, 5000) }),
      createCrossEncoderReranker({ ...base, model: buildTinyBert({ head: 'hidden' }) }),
      createCrossEncoderReranker({ ...base, output: 'scores' }),
      createCrossEncoderReranker({ ...base, tokenizer: undefined as unknown as object }),
    ];
    for (const error of await Promise.all(cases.map(failure))) expect(isMemoryError(error) && error.code).toBe('MODEL_UNAVAILABLE');
  });

  it('stops with ABORTED when the signal fires', async () => {
    const before = await failure(random.rerank(QUERY, CANDIDATES, { signal: AbortSignal.abort() }));
    expect(isMemoryError(before) && before.code).toBe('ABORTED');

    const single = await createCrossEncoderReranker({ ...base, batchSize: 1 });
    const controller = new AbortController();
    const pending = single.rerank(QUERY, CANDIDATES, { signal: controller.signal });
    controller.abort();
    const during = await failure(pending);
    expect(isMemoryError(during) && during.code).toBe('ABORTED');
    await single.dispose();
  });
});
