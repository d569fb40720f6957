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
 */
import { readFileSync } from 'node:fs';
import { throughKnots } from '../src/search/scores.js';
import { isotonicKnots, MIN_PER_KNOT, type Sample } from './isotonic.js';
import { fnv1a } from './longmemeval.js';

const file = process.argv[2];
if (!file) throw new Error('usage: npx tsx bench/calibrate-cv.ts FILE (from bench/calibrate.ts --dump FILE)');
const shown: Record<string, Sample[]> = JSON.parse(readFileSync(file, 'utf8'));
const EPISODE_MAPS = new Set(['episode', 'shared_episode']);

/** A middle bit of FNV-1a: its low bit is the parity of the text's characters, the halves' own split. */
const bit = (text: string) => (fnv1a(text) >>> 13) & 1;

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
            const score = throughKnots(s.x, knots);
            const row = table.get(kind)![Math.min(9, Math.floor(score * 10))]!;
            row[0]! += score;
            row[1]! += s.label;
            row[2]! += 1;
          }
        }
        for (const rows of table.values()) {
          for (const [sum, hits, n] of rows) {
            if (n! < 15) continue;
            const gap = Math.abs(hits! / n! - sum! / n!);
            counted++;
            if (gap > 0.1) off++;
            worst = Math.max(worst, gap);
            squares += gap * gap * n!;
            items += n!;
          }
        }
      }
    }
    const mark = minPerKnot === MIN_PER_KNOT && prior === 0 ? '  (in use)' : '';
    console.log(`${String(minPerKnot).padStart(4)}, ${String(prior).padStart(3)}${mark.padEnd(12)}                 ${String(off).padStart(3)} of ${counted}                                   ${worst.toFixed(3)}   ${Math.sqrt(squares / items).toFixed(4)}`);
  }
}
