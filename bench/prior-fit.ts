/**
 * The fit of the wire's population prior (`WIRE_PRIOR` in src/search/scores.ts), shared by
 * `bench/calibrate.ts`, which fits the slopes in use (its step 3), and `bench/calibrate-cv.ts
 * --prior`, which compares forms of the prior by cross-validation inside the fit half.
 */
import { priorShift, shiftOdds, type WireMap, type WirePrior } from '../src/search/scores.js';
import type { Haystack, Protocol } from './longmemeval.js';

/** One shown item: what its knots alone made of it, whether its session holds the answer, how many units its query weighed. */
export interface PriorSample {
  p: number;
  label: 0 | 1;
  population: number;
  haystack: Haystack;
  map: WireMap;
  q: string;
  protocol: Protocol;
}

const EACH = (x: number): Record<WireMap, number> => ({ episode: x, fact: x, shared_episode: x, shared_fact: x, passage: x });

/** `prior` with nothing above `most`: the prior of `most` held past it, as before `WIRE_PRIOR.above`. */
export function heldAtMost(prior: WirePrior): WirePrior {
  const still = { spread: 0, slope: 0 };
  return { ...prior, above: { episode: still, fact: still, shared_episode: still, shared_fact: still, passage: still } };
}

/** ln(reference / population), the population clamped to the prior's range: the prior's shift at a slope of 1. */
export function lever(s: PriorSample, range: Omit<WirePrior, 'slope' | 'few'>): number {
  return priorShift(s.map, s.population, { ...range, slope: EACH(1), few: EACH(0) });
}

/** ln(least / population) below the prior's range, else 0: the shift of its `few` slope at 1. */
export function fewLever(s: PriorSample, range: Pick<WirePrior, 'least'>): number {
  return s.population < range.least ? Math.log(range.least / Math.max(1, s.population)) : 0;
}

/** The sample with `prior`'s shift above `least` taken into its knots' chance: the offset `few` is fitted against. */
export function withinRange(s: PriorSample, prior: WirePrior): PriorSample {
  return { ...s, p: shiftOdds(s.p, priorShift(s.map, s.population, { ...prior, few: EACH(0) })) };
}

export const logit = (p: number): number => {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p));
  return Math.log(q / (1 - q));
};
export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * Logistic regression of the labels on `features(s)` with `base(s)` (default `logit(s.p)`) as a
 * fixed offset and no intercept (Newton's method): the log-odds a prior adds to the knots' own.
 * Returns the weights and their standard errors.
 */
export function fitOffset(list: readonly PriorSample[], features: (s: PriorSample) => readonly number[], base: (s: PriorSample) => number = (s) => logit(s.p)): { weights: number[]; errors: number[] } {
  const k = list.length ? features(list[0]!).length : 0;
  const w = new Array<number>(k).fill(0);
  let info: number[][] = [];
  for (let iter = 0; iter < 50 && k > 0; iter++) {
    const grad = new Array<number>(k).fill(0);
    info = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => (i === j ? 1e-9 : 0)));
    for (const s of list) {
      const x = features(s);
      const p = sigmoid(base(s) + x.reduce((a, xi, i) => a + xi * w[i]!, 0));
      for (let i = 0; i < k; i++) {
        grad[i]! += (s.label - p) * x[i]!;
        for (let j = 0; j < k; j++) info[i]![j]! += p * (1 - p) * x[i]! * x[j]!;
      }
    }
    const step = solve(info, grad);
    for (let i = 0; i < k; i++) w[i]! += step[i]!;
    if (step.reduce((a, b) => a + Math.abs(b), 0) < 1e-10) break;
  }
  const inverse = info.length ? info.map((_, i) => solve(info, info.map((__, j) => (i === j ? 1 : 0)))) : [];
  return { weights: w, errors: w.map((_, i) => Math.sqrt(Math.max(0, inverse[i]![i]!))) };
}

/** Solves a small symmetric positive system by Gaussian elimination. */
function solve(a: readonly (readonly number[])[], b: readonly number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= m[r]![k]! * x[k]!;
    x[r] = s / m[r]![r]!;
  }
  return x;
}
