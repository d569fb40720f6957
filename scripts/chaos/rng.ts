/**
 * A small seeded generator, so every chaos run can be replayed exactly from its seed: the same
 * seed gives the same requests, the same kill moments and the same corrupted bytes.
 */

/** A seeded source of random choices (sfc32: fast, 128-bit state, good enough for fuzzing). */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** An independent generator derived from this one and a label (stable across code changes elsewhere). */
  fork(label: string): Rng;
}

function hash(text: string, seed: number): number {
  let h = seed ^ 0x9e3779b9;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x85ebca6b) ^ (h >>> 13);
  return h >>> 0;
}

/** A generator for `seed`. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  let b = 0x9e3779b9;
  let c = 0x243f6a88;
  let d = (seed * 0x85ebca6b) >>> 0;
  const next = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const out = (t + d) | 0;
    c = (c + out) | 0;
    return (out >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    fork: (label) => createRng(hash(label, Math.floor(next() * 4294967296))),
  };
  return rng;
}
