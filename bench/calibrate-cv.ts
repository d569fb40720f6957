/**
 * `npx tsx bench/calibrate-cv.ts FILE`: is the wire maps' isotonic fit as good as its family
 * gets? `npx tsx bench/calibrate.ts --protocol abc --dump FILE` writes
 * the labelled scores it fits on (the fit half only); this script splits those questions in two
 * (three different ways, each side in turn), fits the maps on one side with each setting (fewest
 * items per knot; a prior that shrinks each knot towards the map before it) and reads the
 * reliability table of the other side, per protocol and kind (episodes, facts), as
 * `npm run bench:quality` does on the report half. A bucket counts when it holds at least 15
 * items (a quarter of the questions: about 30 in a half); it is off when its hit rate is more than
 * 0.1 from its mean score. The report half is never read.
 *
 * `npx tsx bench/calibrate-cv.ts --prior FILE` (FILE from `npx tsx bench/calibrate.ts --protocol abc
 * --haystack all --dump-prior FILE`) does the same for the population prior (`WIRE_PRIOR`): with
 * the knots in use, it fits each form of the prior on one side (none; one slope per map on
 * ln(reference / population); that and a square term; that and the slope below the range,
 * `few`, as in use) and reads the other side's tables per haystack and kind, with the held-out
 * log loss. Below the range (the few haystack) the first three forms count a population as the
 * range's least, as the wire did before `few`. Above it (a dump of `--haystack medium`, `large` or
 * `above`; several FILEs are read as one), three more: the prior held at `most`; that and a slope
 * per map on ln(population / most); that and a spread (`WIRE_PRIOR.above`, as in use), and, with
 * two haystacks above the range, a spread and slope for each haystack apart.
 */
import { readFileSync } from 'node:fs';
import { aboveLever, priorOdds, throughKnots, WIRE_PRIOR } from '../src/search/scores.js';
import { isotonicKnots, MIN_PER_KNOT, type Sample } from './isotonic.js';
import { fnv1a } from './longmemeval.js';
import { fewLever, fitOffset, heldAtMost, lever, logit, sigmoid, type PriorSample } from './prior-fit.js';

const priorMode = process.argv[2] === '--prior';
const files = process.argv.slice(priorMode ? 3 : 2);
const file = files[0];
if (!file || (!priorMode && files.length > 1)) throw new Error('usage: npx tsx bench/calibrate-cv.ts FILE | --prior FILE... (from bench/calibrate.ts --dump FILE, or --dump-prior FILE)');
const EPISODE_MAPS = new Set(['episode', 'shared_episode']);

/** A middle bit of FNV-1a: its low bit is the parity of the text's characters, the halves' own split. */
const bit = (text: string) => (fnv1a(text) >>> 13) & 1;

/** Adds one held-out item to a reliability table of 0.1 buckets ([sum of scores, hits, items] each). */
function tally(rows: number[][], score: number, label: number): void {
  const row = rows[Math.min(9, Math.floor(score * 10))]!;
  row[0]! += score;
  row[1]! += label;
  row[2]! += 1;
}

/** A table's buckets of at least 15 items, and those more than 0.1 from their mean score. */
function offOf(rows: readonly number[][]): { off: number; counted: number; gaps: { gap: number; n: number }[] } {
  let off = 0;
  let counted = 0;
  const gaps: { gap: number; n: number }[] = [];
  for (const [sum, hits, n] of rows) {
    if (n! < 15) continue;
    const gap = Math.abs(hits! / n! - sum! / n!);
    counted++;
    if (gap > 0.1) off++;
    gaps.push({ gap, n: n! });
  }
  return { off, counted, gaps };
}

if (priorMode) {
  // Several dumps (of other haystacks) are read as one.
  const samples: PriorSample[] = files.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as PriorSample[]);
  const baseOf = (s: PriorSample) => logit(s.p);
  // A form's fitted weights add to `base` (default: the knots' own log-odds).
  const forms: { name: string; features: (s: PriorSample) => number[]; base?: (s: PriorSample) => number }[] = [
    { name: 'none', features: () => [] },
    { name: 'slope', features: (s) => [lever(s, WIRE_PRIOR)] },
    { name: 'slope + square', features: (s) => [lever(s, WIRE_PRIOR), lever(s, WIRE_PRIOR) ** 2] },
    { name: 'slope + few (in use)', features: (s) => [lever(s, WIRE_PRIOR), fewLever(s, WIRE_PRIOR)] },
  ];
  // Above the range (a dump of `--haystack medium`, `large` or `above`): the prior in use below
  // `most` held, and what is fitted above it on ln(population / most), the population clamped to
  // the dumps' largest.
  const largest = Math.max(...samples.map((s) => s.population));
  if (largest > WIRE_PRIOR.most) {
    const range = { ...heldAtMost(WIRE_PRIOR), largest };
    const held = (s: PriorSample) => logit(priorOdds(s.p, s.map, s.population, range));
    const above = (s: PriorSample) => aboveLever(s.population, range);
    forms.push(
      { name: `held at ${WIRE_PRIOR.most}`, features: () => [], base: held },
      { name: 'held + slope above', features: (s) => [above(s)], base: held },
      { name: 'held + spread, slope above', features: (s) => [held(s) * above(s), above(s)], base: held },
    );
    // One spread and slope per haystack (per population): `WIRE_PRIOR.above`'s knots.
    const aboveHaystacks = [...new Set(samples.filter((s) => s.population > WIRE_PRIOR.most).map((s) => s.haystack))];
    if (aboveHaystacks.length > 1) {
      const each = (s: PriorSample, x: number) => aboveHaystacks.map((h) => (s.haystack === h ? x : 0));
      forms.push({ name: 'held + spread, slope per haystack above', features: (s) => [...each(s, held(s) * above(s)), ...each(s, above(s))], base: held });
    }
  }
  const maps = [...new Set(samples.map((s) => s.map))];
  const haystacks = [...new Set(samples.map((s) => s.haystack))];
  console.log('form                  held-out log loss   buckets off by > 0.1 (of those with >= 15 items), per haystack and kind');
  for (const form of forms) {
    const cells = new Map<string, { off: number; counted: number }>();
    let loss = 0;
    for (const salt of ['cv1', 'cv2', 'cv3']) {
      for (const side of [0, 1]) {
        const inFit = (s: PriorSample) => bit(s.q + salt) === side;
        const tables = new Map<string, number[][]>();
        for (const map of maps) {
          const { weights } = fitOffset(samples.filter((s) => s.map === map && inFit(s)), form.features, form.base);
          for (const s of samples.filter((s) => s.map === map && !inFit(s))) {
            const y = sigmoid((form.base ?? baseOf)(s) + form.features(s).reduce((a, x, i) => a + x * weights[i]!, 0));
            loss -= Math.log(Math.max(1e-9, s.label ? y : 1 - y));
            const key = `${s.haystack}/${EPISODE_MAPS.has(map) ? 'episodes' : 'facts'}`;
            if (!tables.has(key)) tables.set(key, Array.from({ length: 10 }, () => [0, 0, 0]));
            tally(tables.get(key)!, y, s.label);
          }
        }
        for (const [key, rows] of tables) {
          const { off, counted } = offOf(rows);
          const cell = cells.get(key) ?? { off: 0, counted: 0 };
          cells.set(key, { off: cell.off + off, counted: cell.counted + counted });
        }
      }
    }
    const keys = haystacks.flatMap((h) => [`${h}/episodes`, `${h}/facts`]).filter((k) => cells.has(k));
    const total = keys.reduce((a, k) => a + cells.get(k)!.off, 0);
    const of = keys.reduce((a, k) => a + cells.get(k)!.counted, 0);
    console.log(`${form.name.padEnd(21)} ${loss.toFixed(1).padStart(10)}          ${keys.map((k) => `${k} ${cells.get(k)!.off}/${cells.get(k)!.counted}`).join('  ')}  (all: ${total} of ${of})`);
  }
  process.exit(0);
}

const shown: Record<string, Sample[]> = JSON.parse(readFileSync(file, 'utf8'));

console.log(`setting (items per knot, prior)   buckets off by > 0.1 (of those with >= 15 items)   worst   weighted rms`);
for (const minPerKnot of [50, MIN_PER_KNOT, 200, 400]) {
  for (const prior of [0, 25, 50, 100, 200]) {
    let off = 0;
    let counted = 0;
    let worst = 0;
    let squares = 0;
    let items = 0;
    for (const salt of ['cv1', 'cv2', 'cv3']) {
      for (const side of [0, 1]) {
        const inFit = (s: Sample) => bit(s.q + salt) === side;
        const table = new Map<string, number[][]>();
        for (const [map, list] of Object.entries(shown)) {
          const knots = isotonicKnots(list.filter(inFit), minPerKnot, prior);
          for (const s of list.filter((s) => !inFit(s))) {
            const kind = `${s.p}/${EPISODE_MAPS.has(map) ? 'episode' : 'fact'}`;
            if (!table.has(kind)) table.set(kind, Array.from({ length: 10 }, () => [0, 0, 0]));
            tally(table.get(kind)!, throughKnots(s.x, knots), s.label);
          }
        }
        for (const rows of table.values()) {
          const cell = offOf(rows);
          off += cell.off;
          counted += cell.counted;
          for (const { gap, n } of cell.gaps) {
            worst = Math.max(worst, gap);
            squares += gap * gap * n;
            items += n;
          }
        }
      }
    }
    const mark = minPerKnot === MIN_PER_KNOT && prior === 0 ? '  (in use)' : '';
    console.log(`${String(minPerKnot).padStart(4)}, ${String(prior).padStart(3)}${mark.padEnd(12)}                 ${String(off).padStart(3)} of ${counted}                                   ${worst.toFixed(3)}   ${Math.sqrt(squares / items).toFixed(4)}`);
  }
}
