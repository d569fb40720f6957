/**
 * The bring-your-own sentence-transformers embedder, run on a tiny BERT the suite generates
 * (real BERT operators and shapes, seeded weights) with a real WordPiece tokenizer.json. Pooling
 * is checked against a plain-TypeScript pooling of the raw hidden states of the same graph.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createMemory } from '../../src/engine.js';
import { isMemoryError } from '../../src/errors.js';
import { createOnnxSentenceEmbedder, type OnnxSentenceEmbedder, type OnnxSentenceEmbedderOptions } from '../../src/models/onnx-sentence-embedder.js';
import { embedQueries, type Embedder } from '../../src/models/ports.js';
import { MONDAY_9AM, remember, said } from '../support/conversations.js';
import { buildTinyBert, tinyTokenizerConfig, tinyTokenizerJson } from '../support/tiny-bert.js';

const HIDDEN = 32;
const model = buildTinyBert({ hidden: HIDDEN, seed: 11 });
const tokenizer = tinyTokenizerJson();
const tokenizerConfig = tinyTokenizerConfig(128);
const base: OnnxSentenceEmbedderOptions = { model, tokenizer, tokenizerConfig };

const TEXTS = [
  'Alice adopted a beagle named Rufus in March.',
  'I work as a nurse at the city hospital.',
  'We plan a trip to Tokyo next summer with the kids.',
  'Coffee.',
  'My sister loves playing the guitar and the piano, and she also writes songs about the rain in London every winter.',
  '',
];

let mean: OnnxSentenceEmbedder;
let raw: ort.InferenceSession;
const reference = new Tokenizer(tokenizer, tokenizerConfig);

beforeAll(async () => {
  mean = await createOnnxSentenceEmbedder(base);
  raw = await ort.InferenceSession.create(model);
});

afterAll(async () => {
  await mean.dispose();
  await raw.release();
});

/** Last hidden states of one text, run alone and unpadded straight through onnxruntime. */
async function hiddenStates(text: string): Promise<Float32Array[]> {
  const { ids } = reference.encode(text);
  const n = ids.length;
  const int64 = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, n]);
  const out = await raw.run({ input_ids: int64(ids), attention_mask: int64(ids.map(() => 1)), token_type_ids: int64(ids.map(() => 0)) });
  const data = out.last_hidden_state!.data as Float32Array;
  return Array.from({ length: n }, (_, t) => data.slice(t * HIDDEN, (t + 1) * HIDDEN));
}

function pool(states: Float32Array[], how: 'mean' | 'cls' | 'max', normalize = true): Float32Array {
  const out = new Float32Array(HIDDEN);
  for (let d = 0; d < HIDDEN; d++) {
    const column = states.map((s) => s[d]!);
    out[d] = how === 'cls' ? column[0]! : how === 'max' ? Math.max(...column) : column.reduce((a, b) => a + b, 0) / column.length;
  }
  const norm = Math.hypot(...out);
  return normalize ? out.map((x) => x / norm) : out;
}

const norm = (v: Float32Array) => Math.hypot(...v);
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0) / (norm(a) * norm(b));

function expectClose(actual: Float32Array | undefined, expected: Float32Array | undefined, tolerance = 1e-5): void {
  expect(actual).toBeDefined();
  expect(actual!.length).toBe(expected!.length);
  const worst = Math.max(...actual!.map((x, i) => Math.abs(x - expected![i]!)));
  expect(worst).toBeLessThan(tolerance);
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('createOnnxSentenceEmbedder', () => {
  it('embeds texts to unit vectors of the model width', async () => {
    const vectors = await mean.embed(TEXTS);

    expect(mean.dim).toBe(HIDDEN);
    expect(vectors).toHaveLength(TEXTS.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(HIDDEN);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(cosine(vectors[0]!, vectors[1]!)).toBeLessThan(0.999);
    expect(await mean.embed([])).toEqual([]);
    expect(mean.id).toMatch(/^onnx-sentence:[0-9a-f]{8}-[0-9a-f]{8}:mean:len128$/);
  });

  it('gives the same vectors batched as one by one', async () => {
    const small = await createOnnxSentenceEmbedder({ ...base, batchSize: 2 });
    const together = await mean.embed(TEXTS);
    const inPairs = await small.embed(TEXTS);
    for (const [i, text] of TEXTS.entries()) {
      const [alone] = await mean.embed([text]);
      expectClose(together[i], alone);
      expectClose(inPairs[i], alone);
    }
    await small.dispose();
  });

  it('is not moved by the padding of longer texts in the same batch', async () => {
    const short = 'Coffee.';
    const [alone] = await mean.embed([short]);
    const batch = await mean.embed([TEXTS[4]!, short, TEXTS[2]!, TEXTS[4]!.repeat(2)]);

    expectClose(batch[1], alone);
  });

  it('pools mean, cls and max over the real tokens as a plain computation on the hidden states does', async () => {
    const cls = await createOnnxSentenceEmbedder({ ...base, pooling: 'cls' });
    const max = await createOnnxSentenceEmbedder({ ...base, pooling: 'max' });
    const unnormalised = await createOnnxSentenceEmbedder({ ...base, normalize: false });
    const texts = TEXTS.slice(0, 5);
    const [byMean, byCls, byMax, byRawMean] = await Promise.all([mean.embed(texts), cls.embed(texts), max.embed(texts), unnormalised.embed(texts)]);
    for (const [i, text] of texts.entries()) {
      const states = await hiddenStates(text);
      expectClose(byMean[i], pool(states, 'mean'));
      expectClose(byCls[i], pool(states, 'cls'));
      expectClose(byMax[i], pool(states, 'max'));
      expectClose(byRawMean[i], pool(states, 'mean', false));
      expect(cosine(byMean[i]!, byCls[i]!)).toBeLessThan(0.99);
    }
    expect(cls.id).not.toBe(mean.id);
    expect(unnormalised.id).not.toBe(mean.id);
    await Promise.all([cls.dispose(), max.dispose(), unnormalised.dispose()]);
  });

  it('applies the document prefix in embed and the query prefix in embedQueries', async () => {
    const e5 = await createOnnxSentenceEmbedder({ ...base, queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    const text = 'Where did Alice travel last summer?';
    const [stored] = await e5.embed([text]);
    const [asked] = await e5.embedQueries([text]);
    const [plainPassage, plainQuery, plain] = await mean.embed([`passage: ${text}`, `query: ${text}`, text]);

    expectClose(stored, plainPassage);
    expectClose(asked, plainQuery);
    expect(cosine(stored!, plain!)).toBeLessThan(0.9999);
    expect(e5.id).toContain('doc=passage:');
    // Without prefixes the two paths are the same.
    expectClose((await mean.embedQueries([text]))[0], plain);
    // The port helper takes the query path where there is one, and embed otherwise.
    expectClose((await embedQueries(e5, [text]))[0], plainQuery);
    const documentsOnly: Embedder = { id: 'documents-only', dim: HIDDEN, embed: (texts, options) => e5.embed(texts, options) };
    expectClose((await embedQueries(documentsOnly, [text]))[0], plainPassage);
    await e5.dispose();
  });

  it('cuts long texts to maxLength, keeping [CLS] and [SEP], and caps maxLength at model_max_length', async () => {
    const eight = await createOnnxSentenceEmbedder({ ...base, maxLength: 8 });
    const text = 'one two three four five six seven eight nine ten';
    const [cut] = await eight.embed([text]);
    expectClose(cut, (await mean.embed(['one two three four five six']))[0]);

    // 300 tokens would overrun the 128 positions of the graph; the config caps them.
    const wide = await createOnnxSentenceEmbedder({ ...base, maxLength: 512 });
    expect(wide.maxLength).toBe(128);
    const [long] = await wide.embed([Array.from({ length: 300 }, () => 'dog').join(' ')]);
    expect(norm(long!)).toBeCloseTo(1, 5);
    await Promise.all([eight.dispose(), wide.dispose()]);
  });

  it('feeds only the inputs the graph declares', async () => {
    const noTypes = await createOnnxSentenceEmbedder({ ...base, model: buildTinyBert({ hidden: HIDDEN, seed: 11, tokenTypes: false }) });
    const vectors = await noTypes.embed(TEXTS);
    expect(vectors.every((v) => Math.abs(norm(v) - 1) < 1e-5)).toBe(true);
    await noTypes.dispose();
  });

  it('reads model and tokenizer from disk paths, file URLs and fetched URLs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engram-onnx-'));
    try {
      await writeFile(join(dir, 'model.onnx'), model);
      await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
      await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
      const fromDisk = await createOnnxSentenceEmbedder({
        model: join(dir, 'model.onnx'),
        tokenizer: new URL(`file://${join(dir, 'tokenizer.json')}`),
        tokenizerConfig: join(dir, 'tokenizer_config.json'),
      });
      const served: string[] = [];
      const files: Record<string, ArrayBuffer | string> = { '/m/model.onnx': model.slice().buffer, '/m/tokenizer.json': JSON.stringify(tokenizer) };
      const fakeFetch = (async (input: string | URL | Request) => {
        const path = new URL(String(input)).pathname;
        served.push(path);
        const body = files[path];
        return body === undefined ? new Response('missing', { status: 404 }) : new Response(body);
      }) as typeof fetch;
      const fromUrl = await createOnnxSentenceEmbedder({ model: 'https://app.example/m/model.onnx', tokenizer: new URL('https://app.example/m/tokenizer.json'), tokenizerConfig, fetch: fakeFetch });

      const [a] = await fromDisk.embed([TEXTS[0]!]);
      const [b] = await fromUrl.embed([TEXTS[0]!]);
      const [c] = await mean.embed([TEXTS[0]!]);
      expectClose(a, c);
      expectClose(b, c);
      expect(fromDisk.id).toBe(mean.id);
      expect(served.sort()).toEqual(['/m/model.onnx', '/m/tokenizer.json']);

      const missing = await failure(createOnnxSentenceEmbedder({ model: 'https://app.example/m/nope.onnx', tokenizer, fetch: fakeFetch }));
      expect(isMemoryError(missing) && missing.code).toBe('MODEL_UNAVAILABLE');
      await Promise.all([fromDisk.dispose(), fromUrl.dispose()]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails with MODEL_UNAVAILABLE for a corrupt model or a missing or broken tokenizer', async () => {
    const corrupt = model.slice(0, 4000);
    const cases: Promise<unknown>[] = [
      createOnnxSentenceEmbedder({ ...base, model: corrupt }),
      createOnnxSentenceEmbedder({ ...base, model: new TextEncoder().encode('not a model at all') }),
      createOnnxSentenceEmbedder({ ...base, tokenizer: join(tmpdir(), 'engram-no-such-dir', 'tokenizer.json') }),
      createOnnxSentenceEmbedder({ ...base, tokenizer: undefined as unknown as object }),
      createOnnxSentenceEmbedder({ ...base, tokenizer: new TextEncoder().encode('{ not json') }),
      createOnnxSentenceEmbedder({ ...base, tokenizer: { model: { type: 'NoSuchModel' } } }),
      createOnnxSentenceEmbedder({ ...base, model: join(tmpdir(), 'engram-no-such-dir', 'model.onnx') }),
    ];
    for (const error of await Promise.all(cases.map(failure))) {
      expect(isMemoryError(error) && error.code).toBe('MODEL_UNAVAILABLE');
    }
  });

  it('stops with ABORTED when the signal fires, before loading or between batches', async () => {
    const before = await failure(createOnnxSentenceEmbedder({ ...base, signal: AbortSignal.abort() }));
    expect(isMemoryError(before) && before.code).toBe('ABORTED');
    expect(isMemoryError(await failure(mean.embed(TEXTS, { signal: AbortSignal.abort() })))).toBe(true);

    const oneByOne = await createOnnxSentenceEmbedder({ ...base, batchSize: 1 });
    const controller = new AbortController();
    const pending = oneByOne.embed(TEXTS, { signal: controller.signal });
    controller.abort();
    const during = await failure(pending);
    expect(isMemoryError(during) && during.code).toBe('ABORTED');
    await oneByOne.dispose();
  });

  it('serves a memory end to end: add, flush, search', async () => {
    const memory = await createMemory({ embedder: mean });
    const lines = TEXTS.slice(0, 5);
    for (const [i, line] of lines.entries()) await remember(memory, `s${i}`, [said('kim', line, MONDAY_9AM + i * 60_000)]);

    expect(memory.stats().embedder).toEqual({ id: mean.id, dim: HIDDEN });
    const { data } = await memory.search({ user_id: 'kim', query: lines[1], method: 'vector', top_k: 3 });
    expect(data.episodes.length).toBeGreaterThan(0);
    expect(data.episodes[0]!.episode).toContain('nurse');
    const hybrid = await memory.search({ user_id: 'kim', query: lines[4], method: 'hybrid', top_k: 3 });
    expect(hybrid.data.episodes[0]!.episode).toContain('guitar');
    await memory.close();
  });
});
