/**
 * `npx tsx bench/calibrate.ts`: fits the calibration of hybrid's wire scores (`FUSED_CALIBRATION`
 * in src/search/scores.ts) on the fit half of LongMemEval-S, both protocols. Every episode that a
 * hybrid search (top_k 10) returns is labelled by whether its session holds the answer; a Platt
 * fit of that label on the logit of the current wire score gives a slope and an intercept, which
 * compose with the current constants into new ones. The ranking does not change (the map is
 * monotone); the scores come to mean the chance that an item holds the answer. Facts share the
 * constants (the granularity competition compares them with episodes); their fit is printed for
 * comparison only, since the facts shown are the competition's winners, a biased sample.
 * `npm run bench:quality` checks both on the other half.
 *
 *   npx tsx bench/calibrate.ts [--limit N] [--protocol a|b|both]
 *
 * Data: LongMemEval-S (cleaned, MIT licence) at ../shared/data/longmemeval_s_dedup.json.gz; see
 * that folder's README for its source. Progress goes to stderr.
 */
import { parseArgs } from 'node:util';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { FUSED_CALIBRATION, type FusedCalibration } from '../src/search/scores.js';
import { haystackMemory, isAbstention, loadDataset, questionHalf, type Protocol } from './longmemeval.js';

const { values } = parseArgs({ options: { limit: { type: 'string' }, protocol: { type: 'string', default: 'both' } } });
const protocols: Protocol[] = values.protocol === 'a' ? ['user'] : values.protocol === 'b' ? ['all'] : ['user', 'all'];
process.stderr.write('LongMemEval-S: loading ../shared/data/longmemeval_s_dedup.json.gz\n');
const dataset = await loadDataset();
let questions = dataset.questions.filter((q) => !isAbstention(q) && questionHalf(q.question_id) === 'fit');
if (values.limit) questions = questions.slice(0, Number(values.limit));
const embedder = await createDefaultEmbedder();

interface Sample {
  x: number;
  label: 0 | 1;
}
const samples: Record<'unit' | 'child', Sample[]> = { unit: [], child: [] };
const clampLogit = (p: number) => {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
};

for (const protocol of protocols) {
  for (const [qi, q] of questions.entries()) {
    const memory = await haystackMemory(dataset, q, embedder, protocol);
    const answers = new Set(q.answer_session_ids);
    const { data } = await memory.search({ user_id: 'user', query: q.question, method: 'hybrid', top_k: 10, radius: 0 });
    for (const e of data.episodes) {
      const label = answers.has(q.haystack_session_ids[Number(e.session_id!.slice(1))]!) ? 1 : 0;
      samples.unit.push({ x: clampLogit(e.score), label });
      for (const f of e.atomic_facts) samples.child.push({ x: clampLogit(f.score), label });
    }
    await memory.close();
    if ((qi + 1) % 10 === 0) process.stderr.write(`  protocol ${protocol}: ${qi + 1}/${questions.length} questions\n`);
  }
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** One-feature logistic regression (Platt scaling) by Newton's method. */
function platt(list: Sample[]): [number, number] {
  let a = 1;
  let b = 0;
  for (let iter = 0; iter < 100; iter++) {
    let ga = 0, gb = 0, haa = 1e-9, hab = 0, hbb = 1e-9;
    for (const s of list) {
      const p = sigmoid(a * s.x + b);
      const w = p * (1 - p);
      ga += (p - s.label) * s.x;
      gb += p - s.label;
      haa += w * s.x * s.x;
      hab += w * s.x;
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  return [a, b];
}

const logLoss = (list: Sample[], a: number, b: number) =>
  -list.reduce((sum, s) => sum + Math.log(Math.max(1e-12, s.label ? sigmoid(a * s.x + b) : 1 - sigmoid(a * s.x + b))), 0) / Math.max(1, list.length);

const next: Record<string, FusedCalibration> = {};
const current = FUSED_CALIBRATION;
for (const kind of ['unit', 'child'] as const) {
  const list = samples[kind];
  const [a, b] = platt(list);
  // new logit = a·(slope·fused + bias) + b
  next[kind] = { slope: a * current.slope, bias: a * current.bias + b };
  console.log(`${kind === 'unit' ? 'episodes' : 'facts'}: ${list.length} items (${list.filter((s) => s.label).length} hits); log loss ${logLoss(list, 1, 0).toFixed(4)} now, ${logLoss(list, a, b).toFixed(4)} recalibrated`);
}
const r = (x: number) => Number(x.toFixed(4));
console.log(`FUSED_CALIBRATION = { slope: ${r(next['unit']!.slope)}, bias: ${r(next['unit']!.bias)} }   (facts alone would give { slope: ${r(next['child']!.slope)}, bias: ${r(next['child']!.bias)} })`);
