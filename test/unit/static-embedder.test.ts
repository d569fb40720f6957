import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isMemoryError } from '../../src/errors.js';
import type { OnnxStaticEmbedder } from '../../src/models/onnx-static-embedder.js';
import {
  bundledModelUrl,
  createDefaultOnnxEmbedder,
  loadBundledStaticModel,
  loadStaticModelFromFile,
  loadStaticModelFromUrl,
} from '../../src/models/load-static-model.js';
import { createStaticEmbedder, type StaticEmbedder } from '../../src/models/static-embedder.js';
import { crc32, encodeStaticModel, parseStaticModel, type StaticModel } from '../../src/models/static-model.js';
import { porterStem, splitWords } from '../../src/models/static-tokenizer.js';

/**
 * Paraphrase pairs written by hand, in the register of personal memories. The second sentence
 * says the same as the first with mostly different words.
 */
const PARAPHRASES: readonly (readonly [string, string])[] = [
  ['My daughter starts kindergarten next September.', 'Our little girl will begin school in the fall.'],
  ['I am allergic to peanuts.', 'Eating nuts gives me a bad allergic reaction.'],
  ['We adopted a puppy from the animal shelter last weekend.', 'Last Saturday we brought home a young dog from the rescue.'],
  ['My flight to Tokyo leaves on Friday morning.', 'I fly to Japan early on Friday.'],
  ['I work as a nurse at the city hospital.', 'My job is caring for patients in a medical clinic.'],
  ['The car broke down on the highway.', 'Our vehicle stopped working on the motorway.'],
  ['I have been learning to play the guitar.', 'I am taking guitar lessons these days.'],
  ['She is a vegetarian and never eats meat.', 'She does not eat beef, pork or chicken.'],
  ['My favourite sport is basketball.', 'I love playing and watching basketball games.'],
  ['We are planning a trip to Italy this summer.', 'This summer we want to travel to Rome and Florence.'],
  ['The meeting was moved to Thursday afternoon.', 'They rescheduled the appointment for Thursday after lunch.'],
  ['I need to buy milk, eggs and bread.', 'Groceries to get: bread, a dozen eggs and some milk.'],
  ['My sister got married in June.', 'My sister had her wedding in the summer.'],
  ['I moved to a new apartment downtown.', 'I just relocated to a flat in the city centre.'],
  ['He is afraid of spiders.', 'Spiders really scare him.'],
  ['Our internet connection keeps dropping.', 'The wifi at home disconnects all the time.'],
  ['I run five kilometres every morning.', 'Each day I go jogging before breakfast.'],
  ['The doctor told me to lower my blood pressure.', 'My physician said my hypertension needs treatment.'],
  ['My laptop screen cracked when I dropped it.', 'I broke my computer display by dropping it.'],
  ["We celebrated my grandmother's ninetieth birthday.", 'Grandma turned ninety and we had a party for her.'],
  ['I prefer tea to coffee.', 'I would rather drink tea than coffee.'],
  ['The kids love swimming at the lake.', 'The children enjoy going to the lake to swim.'],
  ['I lost my wallet on the train.', 'My purse with my cards went missing on the subway.'],
  ['Our rent goes up next month.', 'The landlord is raising what we pay for the apartment.'],
  ['I am reading a novel about the Second World War.', 'The book I am reading is a story set during World War II.'],
  ['My son wants to become an astronaut.', 'My boy dreams of flying into space one day.'],
  ['The restaurant was too noisy to talk.', 'It was so loud in the diner we could not hear each other.'],
  ['I cannot sleep well at night.', 'I have trouble sleeping and often have insomnia.'],
  ['We painted the kitchen walls yellow.', 'The kitchen got a new coat of yellow paint.'],
  ['My cat is sick and will not eat.', 'Our kitten is ill and refuses her food.'],
  ['I am saving money to buy a house.', 'I put cash aside every month for a home of my own.'],
  ['The printer in the office is out of ink.', 'The office printer needs a new cartridge.'],
];

const LONG_TEXT = Array.from({ length: 60 }, (_, i) => PARAPHRASES.map((p) => p[i % 2]).join(' ')).join('\n');

/** Texts on which both runtimes must agree: edge cases first, then ordinary sentences. */
const AGREEMENT_TEXTS: readonly string[] = [
  '',
  '   ',
  '!!! ??? ...',
  '12345 67890',
  'zzqxv blorptastic wuggle',
  'The quick brown fox jumps over the lazy dog.',
  'Naïve café owners in Zürich serve crème brûlée.',
  '東京で寿司を食べました',
  'Привет, как дела?',
  'I ❤️ my 🐶 and 🍕',
  'ＦＵＬＬＷＩＤＴＨ letters and ligature ﬁsh',
  'reorganizations photosynthesizing xylophonists',
  'a',
  'the the the the the the',
  LONG_TEXT,
  ...PARAPHRASES.slice(0, 12).flat(),
];

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

function maxAbsDiff(a: readonly Float32Array[], b: readonly Float32Array[]): number {
  expect(b.length).toBe(a.length);
  let max = 0;
  a.forEach((v, i) => {
    const w = b[i] as Float32Array;
    expect(w.length).toBe(v.length);
    for (let k = 0; k < v.length; k++) max = Math.max(max, Math.abs((v[k] as number) - (w[k] as number)));
  });
  return max;
}

async function expectUnavailable(work: () => unknown): Promise<void> {
  try {
    await work();
  } catch (error) {
    expect(isMemoryError(error)).toBe(true);
    expect((error as { code: string }).code).toBe('MODEL_UNAVAILABLE');
    return;
  }
  expect.fail('expected MODEL_UNAVAILABLE');
}

let model: StaticModel;
let embedder: StaticEmbedder;
let onnx: OnnxStaticEmbedder;
let manifest: { id: string; dims: number; vocabSize: number; files: Record<string, { bytes: number; sha256: string }> };

beforeAll(async () => {
  model = await loadBundledStaticModel();
  embedder = createStaticEmbedder(model);
  onnx = await createDefaultOnnxEmbedder();
  manifest = JSON.parse(await readFile(bundledModelUrl('manifest'), 'utf8')) as typeof manifest;
}, 30_000);

afterAll(async () => {
  await onnx?.dispose();
});

describe('bundled static model', () => {
  it('matches its manifest', async () => {
    expect(embedder.dim).toBe(manifest.dims);
    expect(onnx.dim).toBe(manifest.dims);
    expect(model.vocabSize).toBe(manifest.vocabSize);
    expect(embedder.id).toBe(manifest.id);
    expect(onnx.id).toBe(manifest.id);
    let total = 0;
    for (const file of [...Object.keys(manifest.files), 'manifest.json', 'README.md']) {
      const bytes = await readFile(new URL(file, bundledModelUrl('manifest')));
      total += bytes.length;
      const info = manifest.files[file];
      if (info === undefined) continue;
      expect(bytes.length).toBe(info.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(info.sha256);
    }
    // The repository ships the model; it has to stay within its 10 MB budget.
    expect(total).toBeLessThanOrEqual(10_000_000);
  });

  it('ranks every paraphrase above an unrelated sentence', async () => {
    const first = await embedder.embed(PARAPHRASES.map((p) => p[0]));
    const second = await embedder.embed(PARAPHRASES.map((p) => p[1]));
    const failures: string[] = [];
    PARAPHRASES.forEach(([sentence], i) => {
      // The unrelated sentences are the next pair's (the list never puts two topics side by side).
      const j = (i + 1) % PARAPHRASES.length;
      const paraphrase = cosine(first[i] as Float32Array, second[i] as Float32Array);
      const unrelated = Math.max(cosine(first[i] as Float32Array, first[j] as Float32Array), cosine(first[i] as Float32Array, second[j] as Float32Array));
      if (!(paraphrase > unrelated)) failures.push(`${sentence} (${paraphrase.toFixed(3)} ≤ ${unrelated.toFixed(3)})`);
    });
    expect(failures).toEqual([]);
  });

  it('finds most paraphrases among all of them', async () => {
    const first = await embedder.embed(PARAPHRASES.map((p) => p[0]));
    const second = await embedder.embed(PARAPHRASES.map((p) => p[1]));
    let top1 = 0;
    first.forEach((query, i) => {
      const scores = second.map((candidate) => cosine(query, candidate));
      if (scores.every((s, j) => j === i || s < (scores[i] as number))) top1++;
    });
    // Some pairs share a topic with another pair (rent / moving flat, nurse / doctor), where a bag
    // of words may rank the neighbour first; the bundled model gets 28 of 32 right.
    expect(top1).toBeGreaterThanOrEqual(26);
  });

  it('returns unit vectors, and zeros for text without a known word', async () => {
    const vectors = await embedder.embed(AGREEMENT_TEXTS);
    AGREEMENT_TEXTS.forEach((text, i) => {
      const v = vectors[i] as Float32Array;
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(manifest.dims);
      const known = embedder.tokenizer.encode(text).length > 0;
      if (known) expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-5);
      else expect(v.every((x) => x === 0)).toBe(true);
    });
    for (const empty of ['', '   ', '!!! ??? ...', '12345 67890', '東京で寿司を食べました']) {
      expect(embedder.tokenizer.encode(empty)).toEqual([]);
    }
    expect(await embedder.embed([])).toEqual([]);
  });

  it('is deterministic and order-independent within a batch', async () => {
    const batch = await embedder.embed(AGREEMENT_TEXTS);
    const reversed = (await embedder.embed([...AGREEMENT_TEXTS].reverse())).reverse();
    expect(maxAbsDiff(batch, reversed)).toBe(0);
  });
});

/** A word's vector the plain way: one column at a time, each summing its words in order. */
function referenceVector(m: StaticModel, ids: readonly number[]): Float32Array {
  const sum = new Float64Array(m.dim);
  for (let k = 0; k < m.dim; k++) for (const id of ids) if (id > 0 && id <= m.vocabSize) sum[k] = sum[k]! + m.table[id * m.dim + k]! * m.scales[id]!;
  const norm = Math.sqrt(sum.reduce((a, x) => a + x * x, 0));
  return Float32Array.from(sum, (x) => (norm > 0 ? x / norm : 0));
}

describe('summing rows', () => {
  it('gives every column the sum of its words in order, for widths that are and are not a multiple of four', () => {
    for (const dim of [4, 6, 7]) {
      const words = ['alpha', 'beta', 'gamma'];
      const table = Int8Array.from({ length: (words.length + 1) * dim }, (_, i) => (i < dim ? 0 : ((i * 37) % 255) - 127));
      const scales = Float32Array.from([0, 0.013, 0.0071, 0.029]);
      const small = parseStaticModel(encodeStaticModel({ meta: { name: 'tiny', version: '1' }, dim, words, scales, table }));
      const tiny = createStaticEmbedder(small);
      for (const ids of [[1], [1, 2, 3], [3, 3, 1, 2, 2], []]) expect(tiny.embedIds(ids)).toEqual(referenceVector(small, ids));
    }
    for (const text of PARAPHRASES.flat()) {
      const ids = embedder.tokenizer.encode(text);
      expect(embedder.embedIds(ids)).toEqual(referenceVector(model, ids));
    }
  });
});

describe('ONNX path', () => {
  it('agrees with the TypeScript path to 1e-5, batched and one by one', async () => {
    expect(AGREEMENT_TEXTS.length).toBeGreaterThanOrEqual(20);
    const reference = await embedder.embed(AGREEMENT_TEXTS);
    const batched = await onnx.embed(AGREEMENT_TEXTS);
    const single: Float32Array[] = [];
    for (const text of AGREEMENT_TEXTS) single.push(...(await onnx.embed([text])));
    expect(maxAbsDiff(reference, batched)).toBeLessThanOrEqual(1e-5);
    expect(maxAbsDiff(reference, single)).toBeLessThanOrEqual(1e-5);
    expect(await onnx.embed([])).toEqual([]);
  });

  it('splits a large batch without changing the vectors', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `${PARAPHRASES[i % PARAPHRASES.length]?.[i % 2] ?? ''} ${i % 7 === 0 ? LONG_TEXT.slice(0, 2000) : ''}`);
    expect(maxAbsDiff(await embedder.embed(many), await onnx.embed(many))).toBeLessThanOrEqual(1e-5);
  });
});

describe('tokeniser', () => {
  it('lower-cases, splits on non-alphanumerics and keeps Unicode letters', () => {
    expect(splitWords("Don't STOP, Zürich-2024 東京!")).toEqual(['don', 't', 'stop', 'zürich', '2024', '東京']);
    expect(splitWords('ＡＢＣ ﬁne')).toEqual(['abc', 'fine']);
  });

  it('falls back to accent-free forms and to the most frequent word with the same stem', () => {
    const { tokenizer } = embedder;
    const word = (id: number | undefined): string | undefined => (id === undefined ? undefined : model.words[id - 1]);
    expect(word(tokenizer.lookup('café'))).toBe('cafe');
    expect(model.words.includes('reorganizations')).toBe(false);
    expect(word(tokenizer.lookup('reorganizations'))).toBe('reorganize');
    expect(tokenizer.lookup('zzqxv')).toBeUndefined();
    expect(porterStem('generalizations')).toBe('gener');
    expect(porterStem('hopping')).toBe('hop');
    expect(porterStem('relational')).toBe('relat');
  });

  it('encodes ASCII text (its own fast path) exactly as splitting and looking up each word', () => {
    const { tokenizer } = embedder;
    const reference = (text: string) => splitWords(text).map((w) => tokenizer.lookup(w)).filter((id): id is number => id !== undefined);
    const ascii = fc.string({ unit: fc.constantFrom(...'aZ09 .,-_\'\t\n\u0000\u007f'.split(''), 'Hello', 'WORLD', 'reorganizations', 'x'.repeat(70)) });
    fc.assert(fc.property(ascii, (text) => {
      expect(tokenizer.encode(text)).toEqual(reference(text));
    }), { numRuns: 500 });
    for (const text of PARAPHRASES.flat()) expect(tokenizer.encode(text)).toEqual(reference(text));
    // A run longer than MAX_TOKEN_LENGTH is cut, not split: the rest of it is dropped.
    expect(tokenizer.encode(`${'a'.repeat(64)}bcd the`)).toEqual(reference(`${'a'.repeat(64)} the`));
  });
});

describe('corrupt model files', () => {
  it('rejects truncated, altered or foreign bytes with MODEL_UNAVAILABLE', async () => {
    const bytes = model.bytes;
    await expectUnavailable(() => parseStaticModel(new Uint8Array(0)));
    await expectUnavailable(() => parseStaticModel(bytes.slice(0, 100)));
    await expectUnavailable(() => parseStaticModel(bytes.slice(0, bytes.length - 1)));
    await expectUnavailable(() => parseStaticModel(bytes.slice(0, bytes.length - 1), { verifyChecksum: false }));
    await expectUnavailable(() => parseStaticModel(new TextEncoder().encode('{"not":"a model"}')));

    const flipped = bytes.slice();
    flipped[flipped.length - 10] = (flipped[flipped.length - 10] as number) ^ 0x40;
    await expectUnavailable(() => parseStaticModel(flipped));

    // A header that lies about its sizes, with a correct checksum, is caught by the layout checks.
    const lying = bytes.slice();
    const view = new DataView(lying.buffer);
    const metaLength = view.getUint32(16, true);
    const meta = new TextDecoder().decode(lying.subarray(20, 20 + metaLength));
    const edited = new TextEncoder().encode(meta.replace(/"dim":\d+/, (m) => m.replace(/\d+$/, (d) => String(Number(d) + 1).padStart(d.length, '0'))));
    lying.set(edited, 20);
    view.setUint32(12, crc32(lying.subarray(16)), true);
    await expectUnavailable(() => parseStaticModel(lying));
  });

  it('reports missing files and failed downloads as MODEL_UNAVAILABLE', async () => {
    await expectUnavailable(() => loadStaticModelFromFile(new URL('does-not-exist.bin', bundledModelUrl('bin'))));
    const notFound = (async () => new Response('nope', { status: 404 })) as typeof fetch;
    await expectUnavailable(() => loadStaticModelFromUrl('https://example.invalid/model.bin', { fetch: notFound }));
    const garbage = (async () => new Response(new Uint8Array(64))) as typeof fetch;
    await expectUnavailable(() => loadStaticModelFromUrl('https://example.invalid/model.bin', { fetch: garbage }));
    const served = (async () => new Response(model.bytes.slice())) as typeof fetch;
    expect((await loadStaticModelFromUrl('https://example.invalid/model.bin', { fetch: served })).id).toBe(model.id);
  });

  it('aborts with ABORTED', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['hello'], { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(onnx.embed(['hello'], { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
