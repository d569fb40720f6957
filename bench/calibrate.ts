/**
 * `npx tsx bench/calibrate.ts`: fits the calibration of hybrid's scores (src/search/scores.ts) on
 * the fit half of LongMemEval-S, in two steps, per kind of item (episodes, facts), each item
 * labelled by whether its session holds the answer:
 *
 *   1. `FUSED_CALIBRATION`: a Platt fit (logistic regression of the label on the fused evidence
 *      that the trace reports) over the top 50 of a hybrid search: the chances the granularity
 *      competition weighs facts and episodes by;
 *   2. `WIRE_KNOTS`: an isotonic regression (pool-adjacent-violators) of the label on the score
 *      of what a hybrid search with top_k 10 shows, with the current knots undone, per wire map
 *      (episodes and the owner's facts, apart for conversations where
 *      someone else spoke, and another participant's passages; the search trace says which map
 *      each shown item went through): the correction from a
 *      competition score to the chance a shown item stands for;
 *   3. `WIRE_PRIOR` (with `--haystack all`): per wire map, the slope of the log-odds a shown item
 *      gains as the number of units the query weighed falls (a logistic regression with the
 *      knots' log-odds as a fixed offset), over LongMemEval's haystack and two of
 *      `bench:quality --haystack` (personal: about 24 chats about one life; days: those chats three
 *      to a conversation, about 8); and below that range (`few`), on the third (few: a memory of
 *      one to five chats), with the range's prior in the offset (`--haystack few` fits that slope
 *      alone, the rest as in use). Steps 1 and 2 fit LongMemEval's own haystack only. Above that
 *      range (`--haystack above`: memories of about 200 and about 500 conversations, `medium` and
 *      `large`, either alone too), `WIRE_PRIOR.above`: per map a spread and a slope on
 *      ln(population / most), with the prior held at `most` in the offset; the shown items'
 *      reliability is printed per haystack with the knots alone, the prior held at `most`, its
 *      slopes carried on past it, a slope alone fitted above it, the spread and slope fitted, and
 *      as in use.
 *
 * Ranking does not change with any of them; run it again after changing step 1's constants, since
 * step 2 is fitted on the scores they give, and step 3 on step 2's. `npm run bench:quality` checks
 * the wire on the other half.
 *
 *   npx tsx bench/calibrate.ts [--protocol a|b|c|both|abc] [--haystack full|personal|days|few|all|medium|large|above]
 *                              [--limit N | --limit a=N,b=M] [--dump FILE] [--dump-prior FILE]
 *
 * Data: LongMemEval-S (cleaned, MIT licence) at ../shared/data/longmemeval_s_dedup.json.gz; see
 * that folder's README for its source. Progress goes to stderr.
 */
import { parseArgs } from 'node:util';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import { aboveLever, priorOdds, priorShift, shiftOdds, throughKnots, undoPriorOdds, WIRE_KNOTS, WIRE_PRIOR, type Knots, type WireMap, type WirePrior } from '../src/search/scores.js';
import { isotonicKnots, type Sample } from './isotonic.js';
import { fewLever, fitOffset, heldAtMost, lever, logit, sigmoid, withinRange, type PriorSample } from './prior-fit.js';
import { strayBuckets, type BucketRow } from './reliability.js';
import { haystackMemory, holdsAnswer, isAbstention, loadDataset, questionHalf, type Haystack, type Protocol } from './longmemeval.js';

const { values } = parseArgs({ options: { limit: { type: 'string' }, protocol: { type: 'string', default: 'both' }, dump: { type: 'string' }, 'dump-prior': { type: 'string' }, haystack: { type: 'string', default: 'full' } } });
const HAYSTACKS: Record<string, Haystack[]> = { full: ['full'], personal: ['personal'], days: ['days'], few: ['few'], all: ['full', 'personal', 'days', 'few'], medium: ['medium'], large: ['large'], above: ['medium', 'large'] };
const haystacks = HAYSTACKS[values.haystack!];
if (!haystacks) throw new Error(`--haystack must be full, personal, days, few, all, medium, large or above, not ${values.haystack}`);
const BY_FLAG: Record<string, Protocol[]> = { a: ['user'], b: ['all'], c: ['other'], both: ['user', 'all'], abc: ['user', 'all', 'other'] };
const protocols = BY_FLAG[values.protocol!];
if (!protocols) throw new Error(`--protocol must be a, b, c, both or abc, not ${values.protocol}`);
const LETTER: Record<Protocol, string> = { user: 'a', all: 'b', other: 'c' };
/** `--limit 40` caps every protocol; `--limit a=200,b=60` caps each one. */
const limitOf = (protocol: Protocol): number => {
  const spec = values.limit;
  if (!spec) return Infinity;
  if (/^\d+$/.test(spec)) return Number(spec);
  const m = new RegExp(`(?:^|,)${LETTER[protocol]}=(\\d+)`).exec(spec);
  return m ? Number(m[1]) : Infinity;
};

process.stderr.write('LongMemEval-S: loading ../shared/data/longmemeval_s_dedup.json.gz\n');
const dataset = await loadDataset();
const fitHalf = dataset.questions.filter((q) => !isAbstention(q) && questionHalf(q.question_id) === 'fit');
const embedder = await createDefaultEmbedder();

type Kind = 'unit' | 'child';
/** Step 1: fused evidence of the top 50. Step 2: competition scores of what the top 10 shows, per wire map. */
const evidence: Record<Kind, Sample[]> = { unit: [], child: [] };
const shown: Record<WireMap, Sample[]> = { episode: [], fact: [], shared_episode: [], shared_fact: [], passage: [] };

/** Undoes `throughKnots`: the knots rise strictly, so the map is invertible. */
function undoKnots(y: number, knots: Knots): number {
  if (knots.length === 0) return y;
  let x0 = 0;
  let y0 = 0;
  for (const [x1, y1] of [...knots, [1, 1] as const]) {
    if (y <= y1) return y1 > y0 ? x0 + ((y - y0) / (y1 - y0)) * (x1 - x0) : x1;
    x0 = x1;
    y0 = y1;
  }
  return 1;
}

/** Step 3: what a shown item's knots alone make of it, with the population it was weighed among, per haystack. */
const priorSamples: PriorSample[] = [];
/** Each question's population in the full haystack, for the reference. */
const fullPopulations: number[] = [];

for (const haystack of haystacks) for (const protocol of protocols) {
  const questions = fitHalf.slice(0, limitOf(protocol));
  // Steps 1 and 2 fit LongMemEval's own haystack; the others only inform step 3.
  const fitsMaps = haystack === 'full';
  for (const [qi, q] of questions.entries()) {
    const memory = await haystackMemory(dataset, q, embedder, protocol, {}, haystack);
    const labelOf = (sessionId: string | null | undefined): 0 | 1 => (holdsAnswer(q, sessionId!) ? 1 : 0);
    if (fitsMaps) {
      const wide = await memory.searchWithTrace({ user_id: 'user', query: q.question, method: 'hybrid', top_k: 50, radius: 0 });
      for (const e of wide.response.data.episodes) {
        evidence.unit.push({ x: wide.trace.evidence[e.id]!, label: labelOf(e.session_id) });
        for (const f of e.atomic_facts) evidence.child.push({ x: wide.trace.evidence[f.id]!, label: labelOf(e.session_id) });
      }
    }
    const top = await memory.searchWithTrace({ user_id: 'user', query: q.question, method: 'hybrid', top_k: 10, radius: 0 });
    const wireMap = top.trace.wire_map;
    const population = top.trace.population;
    if (fitsMaps) fullPopulations.push(population);
    const record = (score: number, map: WireMap, label: 0 | 1) => {
      // The wire score undone: first the prior in use, then the knots.
      const p = undoPriorOdds(score, map, population);
      if (fitsMaps) shown[map].push({ x: undoKnots(p, WIRE_KNOTS[map]), label, q: q.question_id, p: protocol });
      priorSamples.push({ p, label, population, haystack, map, q: q.question_id, protocol });
    };
    for (const e of top.response.data.episodes) {
      record(e.score, wireMap[e.id]!, labelOf(e.session_id));
      for (const f of e.atomic_facts) record(f.score, wireMap[f.id]!, labelOf(e.session_id));
    }
    await memory.close();
    if ((qi + 1) % 10 === 0) process.stderr.write(`  ${haystack} haystack, protocol ${protocol}: ${qi + 1}/${questions.length} questions\n`);
  }
}

// `--dump FILE`: step 2's samples as JSON, for `bench/calibrate-cv.ts` (other ways of fitting the knots, compared without searching again).
if (values.dump) (await import('node:fs')).writeFileSync(values.dump, JSON.stringify(shown));
// `--dump-prior FILE`: step 3's samples, to compare forms of the prior without searching again.
if (values['dump-prior']) (await import('node:fs')).writeFileSync(values['dump-prior'], JSON.stringify(priorSamples));

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

/** The reliability table of `list` through `map`: per 0.1 bucket, mean score, hit rate, count. */
const bucketRows = (list: Sample[], map: (x: number) => number): BucketRow[] => {
  const rows = Array.from({ length: 10 }, () => [0, 0, 0]);
  for (const s of list) {
    const p = map(s.x);
    const r = rows[Math.min(9, Math.floor(p * 10))]!;
    r[0]! += p;
    r[1]! += s.label;
    r[2]! += 1;
  }
  return rows.map((r, i) => ({ bucket: `${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}`, mean_score: r[2] ? r[0]! / r[2] : null, hit_rate: r[2] ? r[1]! / r[2] : null, count: r[2]! }));
};
const f3 = (x: number | null) => (x === null ? '  –  ' : x.toFixed(3));
const bucketTable = (list: Sample[], map: (x: number) => number) =>
  bucketRows(list, map).map((r) => `  ${r.bucket}  ${f3(r.mean_score)}  ${f3(r.hit_rate)}  ${String(r.count).padStart(5)}`).join('\n');

const r4 = (x: number) => Number(x.toFixed(4));
/** Every wire map, in the order the steps print them. */
const MAPS = ['episode', 'fact', 'shared_episode', 'shared_fact', 'passage'] as const;
const through = (knots: Knots) => (x: number) => throughKnots(x, knots);
const platts: string[] = [];
for (const kind of ['unit', 'child'] as const) {
  if (evidence[kind].length === 0) continue;
  const name = kind === 'unit' ? 'episodes' : 'facts';
  const [slope, bias] = platt(evidence[kind]);
  const fitted = evidence[kind].map((s) => ({ x: sigmoid(slope * s.x + bias), label: s.label }));
  console.log(`\nstep 1, ${name}: ${fitted.length} items of the top 50 (${fitted.filter((s) => s.label).length} hits)`);
  console.log(`bucket     mean   hit    n   (Platt)\n${bucketTable(fitted, (x) => x)}`);
  platts.push(`  ${kind}: { slope: ${r4(slope)}, bias: ${r4(bias)} },`);
}
const knotLines: string[] = [];
const gaps: number[] = [];
for (const map of MAPS) {
  if (shown[map].length === 0) continue;
  const knots = isotonicKnots(shown[map]).map(([x, y]) => [r4(x), r4(y)] as [number, number]);
  console.log(`\nstep 2, map ${map}, shown in the top 10: ${shown[map].length} items (${shown[map].filter((s) => s.label).length} hits)`);
  console.log(`bucket     mean   hit    n   (competition score)\n${bucketTable(shown[map], (x) => x)}`);
  console.log(`bucket     mean   hit    n   (through the fitted knots)\n${bucketTable(shown[map], through(knots))}`);
  knotLines.push(`  ${map}: [${knots.map(([x, y]) => `[${x}, ${y}]`).join(', ')}],`);
  // How far the fitted map lies from the one in use: over every score, and over the items shown.
  const gap = (x: number) => Math.abs(throughKnots(x, knots) - throughKnots(x, WIRE_KNOTS[map]));
  let widest = { at: 0, gap: 0 };
  for (let i = 0; i <= 1000; i++) if (gap(i / 1000) > widest.gap) widest = { at: i / 1000, gap: gap(i / 1000) };
  const meanGap = shown[map].reduce((sum, s) => sum + gap(s.x), 0) / shown[map].length;
  gaps.push(widest.gap);
  console.log(`fitted map against the one in use: largest gap ${widest.gap.toFixed(3)} (at score ${widest.at.toFixed(3)}), mean over the items shown ${meanGap.toFixed(3)}`);
}
if (gaps.length) console.log(`\nstep 2, every map: largest gap between a fitted map and the one in use ${Math.max(...gaps).toFixed(3)}`);
if (platts.length) console.log(`\nFUSED_CALIBRATION = {\n${platts.join('\n')}\n}`);
if (knotLines.length) console.log(`WIRE_KNOTS = {\n${knotLines.join('\n')}\n}   (fitted on the scores of the current FUSED_CALIBRATION)`);

// Step 3: the prior of the population (`WIRE_PRIOR`), per map, over every haystack asked for,
// with the knots in use: a logistic regression of the label on ln(reference / population) with
// the knots' log-odds as a fixed offset (one slope per map; prior-fit.ts), fitted on the haystacks
// of LongMemEval's populations (full, personal, days) when two or more are asked for. With the
// few haystack, the slope below that range (`few`) is fitted on it the same way, that prior (or,
// without those haystacks, the one in use) taken into the offset. `bench/calibrate-cv.ts --prior
// FILE` compares these forms with none and with a square term, inside the fit half.
const ranged = priorSamples.filter((s) => s.haystack !== 'few');
const fewSamples = priorSamples.filter((s) => s.haystack === 'few');
const fitsRange = new Set(ranged.map((s) => s.haystack)).size > 1;
if (fitsRange || fewSamples.length) {
  const prior: WirePrior = { ...WIRE_PRIOR, slope: { ...WIRE_PRIOR.slope }, few: { ...WIRE_PRIOR.few } };
  if (fitsRange) {
    const populations = ranged.map((s) => s.population);
    prior.least = Math.min(...populations);
    prior.most = Math.max(...populations);
    if (fullPopulations.length) prior.reference = Math.round(Math.exp(fullPopulations.reduce((a, n) => a + Math.log(n), 0) / fullPopulations.length));
  }
  const table = (part: PriorSample[], p: (s: PriorSample) => number) => bucketTable(part.map((s) => ({ x: p(s), label: s.label })), (x) => x);
  // Per haystack, the episode buckets (both episode maps) of 30 items or more whose mean score is
  // more than 0.1 from their hit rate, counted on the unrounded figures: knots alone, then with the prior.
  const off: Record<string, { alone: [number, number]; prior: [number, number] }> = {};
  const countOff = (part: PriorSample[], p: (s: PriorSample) => number): [number, number] => {
    const { off: strays, counted } = strayBuckets({ episodes: bucketRows(part.map((s) => ({ x: p(s), label: s.label })), (x) => x) });
    return [strays.length, counted];
  };
  for (const map of MAPS) {
    const list = ranged.filter((s) => s.map === map);
    if (fitsRange && list.length) {
      const { weights: [g], errors: [error] } = fitOffset(list, (s) => [lever(s, prior)]);
      prior.slope[map] = r4(g!);
      console.log(`\nstep 3, map ${map}: slope ${r4(g!)} (standard error ${r4(error!)}), ${list.length} shown items`);
    }
    const few = fewSamples.filter((s) => s.map === map);
    if (few.length) {
      const { weights: [g], errors: [error] } = fitOffset(few.map((s) => withinRange(s, prior)), (s) => [fewLever(s, prior)]);
      prior.few[map] = r4(g!);
      console.log(`\nstep 3, map ${map}: below ${prior.least} units, slope ${r4(g!)} (standard error ${r4(error!)}), ${few.length} shown items of the few haystack`);
    }
    for (const haystack of haystacks) {
      const part = [...list, ...few].filter((s) => s.haystack === haystack);
      if (part.length === 0) continue;
      const ns = part.map((s) => s.population);
      console.log(`  ${haystack} haystack, populations ${Math.min(...ns)}–${Math.max(...ns)}: ${part.length} items`);
      console.log(`  bucket     mean   hit    n   (knots alone)\n${table(part, (s) => s.p)}`);
      if (haystack === 'few') console.log(`  bucket     mean   hit    n   (with the prior of the least population)\n${table(part, (s) => withinRange(s, prior).p)}`);
      console.log(`  bucket     mean   hit    n   (with the fitted prior)\n${table(part, (s) => shiftOdds(s.p, priorShift(map, s.population, prior)))}`);
      if (map === 'episode' || map === 'shared_episode') {
        const tally = (off[haystack] ??= { alone: [0, 0], prior: [0, 0] });
        const add = (into: [number, number], [n, of]: [number, number]) => { into[0] += n; into[1] += of; };
        add(tally.alone, countOff(part, (s) => s.p));
        add(tally.prior, countOff(part, (s) => shiftOdds(s.p, priorShift(map, s.population, prior))));
      }
    }
  }
  const offLine = Object.entries(off).map(([haystack, { alone, prior: fitted }]) => `${haystack} ${alone[0]} of ${alone[1]} → ${fitted[0]} of ${fitted[1]}`).join('; ');
  if (offLine) console.log(`\nstep 3, episode buckets of 30 items or more off by more than 0.1 (both episode maps), knots alone → with the fitted prior: ${offLine}`);
  const each = (slopes: Record<WireMap, number>) => Object.entries(slopes).map(([map, x]) => `${map}: ${x}`).join(', ');
  console.log(`\nWIRE_PRIOR = { reference: ${prior.reference}, least: ${prior.least}, most: ${prior.most}, slope: { ${each(prior.slope)} }, few: { ${each(prior.few)} } }   (fitted with the current WIRE_KNOTS${fitsRange ? '' : '; reference, range and slopes as in use'})`);
}

// Above the range (`--haystack medium`, `large` or `above`, both): the prior was fitted on
// populations up to `most`; how is a memory of hundreds of conversations served? Per map, the
// shown items with the knots alone, with the prior held at `most`, with its slopes carried on
// past it, with a slope fitted above it (a shift by the number of rivals alone), and with a spread
// and a slope fitted above it (`WIRE_PRIOR.above`: the log-odds also stretched or pressed
// together, since among many more rivals the competition's scores spread otherwise), fitted on
// every haystack given at once; the log loss of each and the episode buckets off, per haystack,
// and the prior with `above` fitted. Ways 4 and 5 are fitted per map with the prior held at
// `most` in the offset, on the lever ln(population / most) (`aboveLever`).
const aboveRange = priorSamples.filter((s) => s.haystack === 'medium' || s.haystack === 'large');
if (aboveRange.length) {
  const held = heldAtMost(WIRE_PRIOR);
  const fitted: WirePrior = { ...held, largest: Math.max(...aboveRange.map((s) => s.population)), above: { ...held.above } };
  const open: WirePrior = { ...held, most: Infinity };
  const L = (s: PriorSample) => aboveLever(s.population, fitted);
  const heldP = (s: PriorSample) => priorOdds(s.p, s.map, s.population, held);
  const shifted: Partial<Record<WireMap, number>> = {};
  for (const map of MAPS) {
    const part = aboveRange.filter((s) => s.map === map);
    if (part.length === 0) continue;
    const onHeld = part.map((s) => ({ ...s, p: heldP(s) }));
    const { weights: [g], errors: [error] } = fitOffset(onHeld, (s) => [-L(s)]);
    shifted[map] = r4(g!);
    const { weights: [spread, slope], errors: [spreadError, slopeError] } = fitOffset(onHeld, (s) => [logit(s.p) * L(s), L(s)]);
    fitted.above[map] = { spread: r4(spread!), slope: r4(slope!) };
    console.log(`\nabove the range, map ${map}: ${part.length} shown items; a slope alone ${r4(g!)} (standard error ${r4(error!)}); spread ${r4(spread!)} (${r4(spreadError!)}) and slope ${r4(slope!)} (${r4(slopeError!)})`);
  }
  const loss = (list: PriorSample[], p: (s: PriorSample) => number) => list.reduce((a, s) => {
    const q = Math.min(1 - 1e-6, Math.max(1e-6, p(s)));
    return a - (s.label ? Math.log(q) : Math.log(1 - q));
  }, 0);
  const ways: [string, (s: PriorSample) => number][] = [
    ['knots alone', (s) => s.p],
    [`prior held at ${WIRE_PRIOR.most}`, heldP],
    ['prior carried past it', (s) => shiftOdds(s.p, priorShift(s.map, s.population, open))],
    ['a slope fitted above it', (s) => shiftOdds(heldP(s), -(shifted[s.map] ?? 0) * L(s))],
    ['spread and slope fitted above it', (s) => priorOdds(s.p, s.map, s.population, fitted)],
    ['in use', (s) => priorOdds(s.p, s.map, s.population)],
  ];
  for (const haystack of ['medium', 'large'] as const) {
    const group = aboveRange.filter((s) => s.haystack === haystack);
    if (group.length === 0) continue;
    const episodesOff = ways.map(() => 0);
    const episodesCounted = ways.map(() => 0);
    for (const map of MAPS) {
      const part = group.filter((s) => s.map === map);
      if (part.length === 0) continue;
      const ns = part.map((s) => s.population);
      console.log(`\nabove the range, map ${map}: ${haystack} haystack, populations ${Math.min(...ns)}–${Math.max(...ns)}, ${part.length} shown items`);
      ways.forEach(([name, p], i) => {
        const scored = part.map((s) => ({ x: p(s), label: s.label }));
        console.log(`  bucket     mean   hit    n   (${name}; log loss ${loss(part, p).toFixed(1)})\n${bucketTable(scored, (x) => x)}`);
        if (map === 'episode' || map === 'shared_episode') {
          const { off: strays, counted: n } = strayBuckets({ episodes: bucketRows(scored, (x) => x) });
          episodesOff[i]! += strays.length;
          episodesCounted[i]! += n;
        }
      });
    }
    console.log(`\nabove the range, ${haystack} haystack, all maps: log loss ${ways.map(([name, p]) => `${name} ${loss(group, p).toFixed(1)}`).join(', ')}; episode buckets of 30 items or more off by more than 0.1: ${ways.map(([name], i) => `${name} ${episodesOff[i]} of ${episodesCounted[i]}`).join(', ')}`);
  }
  const each = Object.entries(fitted.above).map(([map, { spread, slope }]) => `${map}: { spread: ${spread}, slope: ${slope} }`).join(', ');
  console.log(`\nWIRE_PRIOR above the range: largest: ${fitted.largest}, above: { ${each} }   (fitted with the current WIRE_KNOTS and the prior below ${WIRE_PRIOR.most} in use)`);
}
