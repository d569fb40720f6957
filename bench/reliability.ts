/**
 * How far a reliability table may stray by chance alone. A bucket's hit rate over n items is a
 * sample: even when a score means exactly what it says, a bucket of 30 items strays by more than
 * 0.1 from its mean score about one time in four. Knowing how many off-buckets chance alone
 * leaves tells a calibration that fails from one that merely met a small sample.
 */

/** The chance that a binomial(n, p) hit rate lies more than `tolerance` from p (exact sum). */
export function chanceOff(n: number, p: number, tolerance = 0.1): number {
  if (n <= 0) return 0;
  const q = Math.min(Math.max(p, 1e-9), 1 - 1e-9);
  let logChoose = 0; // log C(n, x), updated as x rises
  let total = 0;
  for (let x = 0; x <= n; x++) {
    if (x > 0) logChoose += Math.log(n - x + 1) - Math.log(x);
    if (Math.abs(x / n - q) > tolerance + 1e-12) total += Math.exp(logChoose + x * Math.log(q) + (n - x) * Math.log(1 - q));
  }
  return Math.min(1, total);
}

/** One bucket of a reliability table. */
export interface BucketRow {
  bucket: string;
  mean_score: number | null;
  hit_rate: number | null;
  count: number;
}

/**
 * The buckets of at least `minItems` items whose hit rate is more than `tolerance` from their mean
 * score, and how many a perfectly calibrated score would leave out by chance (items taken as
 * independent), with the chance that none would be.
 */
export function strayBuckets(columns: Record<string, readonly BucketRow[]>, minItems = 30, tolerance = 0.1): { off: string[]; counted: number; expected: number; chanceNone: number } {
  const off: string[] = [];
  let counted = 0;
  let expected = 0;
  let chanceNone = 1;
  for (const [column, rows] of Object.entries(columns)) {
    for (const r of rows) {
      if (r.count < minItems || r.mean_score === null || r.hit_rate === null) continue;
      counted++;
      const p = chanceOff(r.count, r.mean_score, tolerance);
      expected += p;
      chanceNone *= 1 - p;
      if (Math.abs(r.hit_rate - r.mean_score) > tolerance) off.push(`${column} ${r.bucket} (mean ${r.mean_score.toFixed(2)}, hit ${r.hit_rate.toFixed(2)}, ${r.count} items)`);
    }
  }
  return { off, counted, expected, chanceNone };
}
