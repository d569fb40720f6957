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

/** Scores on the wire gathered per 0.1 bucket: [sum of scores, hits, count], episodes and nested facts apart. */
export interface ReliabilityCounts {
  episode: number[][];
  fact: number[][];
}

export const emptyCounts = (): ReliabilityCounts => ({ episode: Array.from({ length: 10 }, () => [0, 0, 0]), fact: Array.from({ length: 10 }, () => [0, 0, 0]) });

/** Counts returned episodes and their nested facts; an item is a hit when its episode's session holds the answer. */
export function countItems(counts: ReliabilityCounts, episodes: readonly { score: number; atomic_facts: readonly { score: number }[] }[], hit: (index: number) => boolean): void {
  episodes.forEach((e, i) => {
    const h = hit(i) ? 1 : 0;
    for (const [kind, s] of [['episode', e.score], ...e.atomic_facts.map((f) => ['fact', f.score] as const)] as const) {
      const b = counts[kind][Math.min(9, Math.floor(s * 10))]!;
      b[0]! += s;
      b[1]! += h;
      b[2]! += 1;
    }
  });
}

/** A reliability table per kind, and both together. */
export interface Calibration {
  episode: BucketRow[];
  fact: BucketRow[];
  all: BucketRow[];
}

export function calibrationOf(counts: ReliabilityCounts): Calibration {
  const table = (rows: number[][]) => rows.map((b, i) => ({ bucket: `${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}`, mean_score: b[2] ? b[0]! / b[2] : null, hit_rate: b[2] ? b[1]! / b[2] : null, count: b[2]! }));
  return { episode: table(counts.episode), fact: table(counts.fact), all: table(counts.episode.map((b, i) => b.map((x, j) => x + counts.fact[i]![j]!))) };
}

/** The off buckets of a calibration, episodes and facts apart and all together. */
export const strayCheck = (c: Calibration) => ({ episodes_and_facts: strayBuckets({ episodes: c.episode, facts: c.fact }), all: strayBuckets({ all: c.all }) });

/** The printed reliability table and its check, under `title`. */
export function reliabilityReport(title: string, c: Calibration): string[] {
  const f = (x: number | null) => (x === null ? '  –  ' : x.toFixed(3));
  const cell = (r: BucketRow) => `${f(r.mean_score)} ${f(r.hit_rate)} ${String(r.count).padStart(5)}`;
  const lines = [`\n${title}`, 'bucket    episodes: mean  hit   n     facts: mean  hit   n     all: mean  hit   n'];
  for (let i = 0; i < 10; i++) lines.push(`${c.episode[i]!.bucket}   ${cell(c.episode[i]!)}   ${cell(c.fact[i]!)}   ${cell(c.all[i]!)}`);
  const { episodes_and_facts: apart, all } = strayCheck(c);
  const list = (xs: string[]) => (xs.length ? `: ${xs.join('; ')}` : '');
  lines.push(`Buckets of 30 items or more off by more than 0.1: episodes and facts ${apart.off.length} of ${apart.counted}${list(apart.off)}; all ${all.off.length} of ${all.counted}${list(all.off)}.`);
  lines.push(`A score meaning exactly what it says would leave ${apart.expected.toFixed(2)} of those ${apart.counted} episode and fact buckets off by chance alone (none off: ${(100 * apart.chanceNone).toFixed(0)} %; items taken as independent).`);
  return lines;
}
