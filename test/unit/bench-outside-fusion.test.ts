// The outside fusions `bench:quality` sets beside hybrid (bench/outside-fusion.ts): reciprocal
// rank fusion and weighted z-scores of the two legs' episode lists, as an outside evaluation
// computes them.
import { describe, expect, it } from 'vitest';
import { OUTSIDE_FUSIONS, rrf, zFuse } from '../../bench/outside-fusion.js';

const list = (...pairs: [string, number][]) => pairs.map(([id, score]) => ({ id, score }));

describe('outside fusions of two ranked lists', () => {
  it('rrf sums 1 / (60 + rank) per list, weighted', () => {
    const keyword = list(['a', 9], ['b', 5], ['c', 1]);
    const vector = list(['c', 0.9], ['b', 0.8]);
    // c: 1/63 + 1/61 (0.032266) edges out b: 1/62 + 1/62 (0.032258); a has 1/61 alone.
    expect(rrf([keyword, vector])).toEqual(['c', 'b', 'a']);
    // 0.9 / 0.1: b keeps 1/62, c falls to 0.9/63 + 0.1/61, a to 0.9/61.
    expect(rrf([keyword, vector], [0.9, 0.1])).toEqual(['b', 'c', 'a']);
    // Nearly all on the keyword list, its order.
    expect(rrf([keyword, vector], [0.99, 0.01])).toEqual(['a', 'b', 'c']);
  });

  it('zFuse standardises each list and puts an id a list lacks at its lowest score', () => {
    const keyword = list(['a', 10], ['b', 2], ['c', 0]);
    const vector = list(['b', 0.9], ['c', 0.5], ['d', 0.1]);
    // Keyword z: a 1.37, b −0.39, c −0.98, d (missing: lowest) −0.98; vector z: b 1.22, c 0, d −1.22, a (missing) −1.22.
    expect(zFuse([keyword, vector], [0.5, 0.5])).toEqual(['b', 'a', 'c', 'd']);
    expect(zFuse([keyword, vector], [0.9, 0.1])).toEqual(['a', 'b', 'c', 'd']);
    expect(zFuse([keyword, vector], [0.1, 0.9])).toEqual(['b', 'c', 'a', 'd']);
  });

  it('keeps the order of first appearance among ties, and handles an empty or flat list', () => {
    expect(rrf([list(['x', 1]), list(['y', 1])])).toEqual(['x', 'y']);
    expect(zFuse([list(['x', 3], ['y', 3]), []], [0.5, 0.5])).toEqual(['x', 'y']);
  });

  it('names the four rows the bench prints', () => {
    expect(Object.keys(OUTSIDE_FUSIONS)).toEqual(['rrf k+v', 'rrf .7k+.3v', 'z k+v', 'z .7k+.3v']);
    const fused = OUTSIDE_FUSIONS['z .7k+.3v']!(list(['a', 3], ['b', 1]), list(['b', 0.8], ['a', 0.2]));
    expect(fused).toEqual(['a', 'b']);
  });
});
