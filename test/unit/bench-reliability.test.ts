/**
 * The reliability tables `bench:quality` and `bench:conversations` print: which bucket a score
 * falls in, that a nested fact is a hit when its episode's session is, and how many buckets a
 * score that meant exactly what it says would leave off by chance. The README's calibration
 * claims are read from these.
 */
import { describe, expect, it } from 'vitest';
import { calibrationOf, chanceOff, countItems, emptyCounts, strayBuckets } from '../../bench/reliability.js';

describe('bench reliability tables', () => {
  it('buckets episodes and their facts by score, a fact counting as a hit with its episode, 1.0 in the top bucket', () => {
    const counts = emptyCounts();
    countItems(counts, [{ score: 1, atomic_facts: [{ score: 0.95 }, { score: 0.05 }] }, { score: 0.91, atomic_facts: [] }], (i) => i === 0);
    const c = calibrationOf(counts);
    expect(c.episode[9]).toMatchObject({ bucket: '0.9-1.0', hit_rate: 0.5, count: 2 });
    expect(c.episode[9]!.mean_score).toBeCloseTo(0.955, 12);
    expect(c.fact[9]).toEqual({ bucket: '0.9-1.0', mean_score: 0.95, hit_rate: 1, count: 1 });
    expect(c.fact[0]).toMatchObject({ bucket: '0.0-0.1', hit_rate: 1, count: 1 });
    expect(c.all[9]!.count).toBe(3);
    expect(c.episode[5]).toEqual({ bucket: '0.5-0.6', mean_score: null, hit_rate: null, count: 0 });
  });

  it('counts a bucket of 30 or more off by more than 0.1, and what chance alone leaves off', () => {
    // 30 items at 0.5 with 10 hits: off. 100 items at 0.2 with 21 hits: within. 10 items: too few to count.
    const rows = [
      { bucket: '0.5-0.6', mean_score: 0.5, hit_rate: 10 / 30, count: 30 },
      { bucket: '0.2-0.3', mean_score: 0.2, hit_rate: 0.21, count: 100 },
      { bucket: '0.9-1.0', mean_score: 0.95, hit_rate: 0, count: 10 },
    ];
    const check = strayBuckets({ episodes: rows });
    expect(check.counted).toBe(2);
    expect(check.off).toEqual(['episodes 0.5-0.6 (mean 0.50, hit 0.33, 30 items)']);
    expect(check.expected).toBeCloseTo(chanceOff(30, 0.5) + chanceOff(100, 0.2), 12);
    // A fair coin over 30 tosses lands outside 0.4–0.6 a little more than a quarter of the time.
    expect(chanceOff(30, 0.5)).toBeGreaterThan(0.2);
    expect(chanceOff(30, 0.5)).toBeLessThan(0.4);
  });
});
