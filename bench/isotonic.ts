/**
 * The isotonic fit behind the wire maps (`WIRE_KNOTS` in src/search/scores.ts), shared by
 * `bench/calibrate.ts`, which fits them, and `bench/calibrate-cv.ts`, which compares ways of
 * fitting them by cross-validation inside the fit half.
 */
import type { Protocol } from './longmemeval.js';

/** One labelled item: its score before the map, whether its session holds the answer. */
export interface Sample {
  x: number;
  label: 0 | 1;
  /** The question and protocol the item answered (cross-validation splits by question). */
  q?: string;
  p?: Protocol;
}

/** Fewest samples behind one knot: a knot is a mean, and a mean of few labels is noise. */
export const MIN_PER_KNOT = 100;

/**
 * Isotonic regression of the labels on x (pool adjacent violators), its blocks then merged left
 * to right until each holds `minPerKnot` samples; each block becomes a knot (mean x, hit rate),
 * nudged so the map rises strictly and keeps the order of items within a kind. `prior` > 0 pulls
 * a knot's hit rate towards its mean x as if `prior` more items had scored exactly their x (a
 * shrinkage towards the map before it; 0, the fit in use, does not).
 */
export function isotonicKnots(list: readonly Sample[], minPerKnot = MIN_PER_KNOT, prior = 0): [number, number][] {
  const sorted = [...list].sort((a, b) => a.x - b.x);
  const blocks: { sx: number; sy: number; n: number }[] = [];
  for (const s of sorted) {
    blocks.push({ sx: s.x, sy: s.label, n: 1 });
    while (blocks.length > 1) {
      const b = blocks[blocks.length - 1]!;
      const a = blocks[blocks.length - 2]!;
      if (a.sy / a.n < b.sy / b.n) break;
      blocks.splice(-2, 2, { sx: a.sx + b.sx, sy: a.sy + b.sy, n: a.n + b.n });
    }
  }
  const merged: { sx: number; sy: number; n: number }[] = [];
  let open = { sx: 0, sy: 0, n: 0 };
  for (const b of blocks) {
    open = { sx: open.sx + b.sx, sy: open.sy + b.sy, n: open.n + b.n };
    if (open.n >= minPerKnot) {
      merged.push(open);
      open = { sx: 0, sy: 0, n: 0 };
    }
  }
  if (open.n > 0) {
    const last = merged.pop();
    merged.push(last ? { sx: last.sx + open.sx, sy: last.sy + open.sy, n: last.n + open.n } : open);
  }
  const knots: [number, number][] = [];
  for (const b of merged) {
    const x = b.sx / b.n;
    const prev = knots[knots.length - 1];
    const rate = (b.sy + prior * x) / (b.n + prior);
    const y = Math.min(0.999, Math.max(rate, prev ? prev[1] + 1e-3 : 1e-3));
    if (!prev || x > prev[0] + 1e-6) knots.push([x, y]);
  }
  return knots;
}
