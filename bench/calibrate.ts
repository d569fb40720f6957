/**
 * `npx tsx bench/calibrate.ts`: fits the hybrid score's logistic calibration for an embedder on
 * LongMemEval-S. For each question, every haystack episode gets its raw cosine (vector search) and
 * raw BM25 (keyword search) through the public API, labelled by whether it holds an answer
 * session. Two logistic fits of the label: a free one on (cosine, BM25), and Platt scaling of the
 * reference server's own blend `6.2747·cos + 0.09395·4·bm25` (one slope and one intercept). The
 * second keeps the blend's ranking, which retrieves better, and only makes its scores mean
 * something: the chance that an episode holds the answer. Fitted on the even-numbered questions,
 * checked on the odd ones (log loss and calibration by score band).
 *
 *   npx tsx bench/calibrate.ts [--limit N]
 */
import { parseArgs } from 'node:util';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { haystackMemory, isAbstention, loadDataset } from './longmemeval.js';

const { values } = parseArgs({ options: { limit: { type: 'string' } } });
const dataset = await loadDataset();
let questions = dataset.questions.filter((q) => !isAbstention(q));
if (values.limit) questions = questions.slice(0, Number(values.limit));
const embedder = await createDefaultEmbedder();

interface Sample {
  cos: number;
  bm25: number;
  label: 0 | 1;
}
const train: Sample[] = [];
const test: Sample[] = [];

for (const [qi, q] of questions.entries()) {
  const memory = await haystackMemory(dataset, q, embedder);
  const cos = new Map<string, number>();
  const bm25 = new Map<string, number>();
  const sessionOf = new Map<string, string>();
  for (const [method, into] of [['vector', cos], ['keyword', bm25]] as const) {
    const { data } = await memory.search({ user_id: 'user', query: q.question, method, top_k: 100, radius: 0 });
    for (const e of data.episodes) {
      into.set(e.id, e.score);
      sessionOf.set(e.id, q.haystack_session_ids[Number(e.session_id!.slice(1))]!);
    }
  }
  for (const [id, session] of sessionOf) {
    const sample: Sample = { cos: cos.get(id) ?? 0, bm25: bm25.get(id) ?? 0, label: q.answer_session_ids.includes(session) ? 1 : 0 };
    (qi % 2 === 0 ? train : test).push(sample);
  }
  await memory.close();
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const predict = (w: number[], s: Sample) => sigmoid(w[0]! * s.cos + w[1]! * s.bm25 + w[2]!);

/** Logistic regression by Newton's method (three parameters: exact and fast). */
function fit(samples: Sample[]): number[] {
  let w = [0, 0, 0];
  for (let iter = 0; iter < 50; iter++) {
    const g = [0, 0, 0];
    const h = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
    for (const s of samples) {
      const x = [s.cos, s.bm25, 1];
      const p = predict(w, s);
      for (let i = 0; i < 3; i++) {
        g[i]! += (p - s.label) * x[i]!;
        for (let j = 0; j < 3; j++) h[i]![j]! += p * (1 - p) * x[i]! * x[j]! + (i === j ? 1e-6 : 0);
      }
    }
    const step = solve3(h, g);
    w = w.map((v, i) => v - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}

function solve3(a: number[][], b: number[]): number[] {
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < 3; c++) {
    let pivot = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k < 4; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[3]! / row[i]!);
}

const logLoss = (w: number[], samples: Sample[]) =>
  -samples.reduce((sum, s) => sum + Math.log(Math.max(1e-12, s.label ? predict(w, s) : 1 - predict(w, s))), 0) / samples.length;

const EVEROS = [6.2747, 0.09395 * 4, -4.8581];
const free = fit(train);
// Platt scaling: the same fit on the single feature z = EverOS's blend (bm25 column set to 0).
const blend = (x: Sample): Sample => ({ cos: EVEROS[0]! * x.cos + EVEROS[1]! * x.bm25, bm25: 0, label: x.label });
const platt = fit(train.map(blend));
const scaled = [platt[0]! * EVEROS[0]!, platt[0]! * EVEROS[1]!, platt[2]!];
console.log(`samples: ${train.length} train, ${test.length} test (positives ${test.filter((s) => s.label).length})`);
console.log(`free fit:      sigmoid(${free[0]!.toFixed(4)}·cos + ${free[1]!.toFixed(4)}·bm25 + ${free[2]!.toFixed(4)})  (bm25 = Orama's raw score)`);
console.log(`Platt scaling: sigmoid(${scaled[0]!.toFixed(4)}·cos + ${scaled[1]!.toFixed(4)}·bm25 + ${scaled[2]!.toFixed(4)})  (EverOS's blend × ${platt[0]!.toFixed(4)})`);
console.log(`held-out log loss: free ${logLoss(free, test).toFixed(4)}, Platt ${logLoss(scaled, test).toFixed(4)}, EverOS constants ${logLoss(EVEROS, test).toFixed(4)}`);
for (const [name, w] of [['Platt', scaled], ['free', free]] as const) {
  console.log(`held-out calibration, ${name} (score band: mean predicted vs observed rate, count):`);
  for (const [lo, hi] of [[0, 0.05], [0.05, 0.2], [0.2, 0.5], [0.5, 0.8], [0.8, 1.01]] as const) {
    const band = test.filter((x) => predict(w, x) >= lo && predict(w, x) < hi);
    if (!band.length) continue;
    const mean = band.reduce((sum, x) => sum + predict(w, x), 0) / band.length;
    const rate = band.filter((x) => x.label).length / band.length;
    console.log(`  ${lo.toFixed(2)}–${Math.min(1, hi).toFixed(2)}: predicted ${mean.toFixed(3)}, observed ${rate.toFixed(3)}, n=${band.length}`);
  }
}
