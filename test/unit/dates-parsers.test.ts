/**
 * The chrono parsers the date reader runs, and that they are the same wherever it runs. The
 * library's and the demo's browser bundles are minified, which renames classes: the reader once
 * dropped chrono's time-of-day parser by its class name, so in a browser "tomorrow at 5pm" was
 * dated as one phrase and the facts differed from Node's. This bundles dates.ts the way `npm run
 * build:bundle` does (minified, chrono inside) and compares what both copies write.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as chrono from 'chrono-node/en';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import { annotateDates, english, englishNoEndOf, findDates, readsTimeOfDay } from '../../src/write/dates.js';

const SENTENCES = [
  "Let's meet tomorrow at 5pm to plan the trip.",
  'The call is on Friday at 10:30, right after standup.',
  'I flew back yesterday at noon and slept until 9pm.',
  'We moved in June and the lease ends on the 14th.',
  'Two weeks ago at 7 pm I ran my first 10k.',
  'We leave at the end of March, by the end of next month at the latest.',
];
const NOW = Date.UTC(2026, 0, 5, 12);

describe('dates in a minified bundle', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('drops exactly one parser, the time of day', () => {
    expect(english.parsers.length).toBe(chrono.casual.parsers.length - 1);
    expect(chrono.casual.parsers.filter(readsTimeOfDay)).toHaveLength(1);
    expect(annotateDates(SENTENCES[0]!, NOW)).toBe("Let's meet tomorrow (2026-01-06) at 5pm to plan the trip.");
  });

  it('leaves out the "end of" refiner only where its words are not', () => {
    expect(englishNoEndOf.refiners.length).toBe(english.refiners.length - 1);
    expect(englishNoEndOf.parsers).toEqual(english.parsers);
    // With its words the refiner runs: the end of the month, not its first day.
    expect(findDates('We leave at the end of March.', NOW).map((d) => [d.phrase, d.label])).toEqual([['end of March', '2026-03-31']]);
    expect(findDates('by the end of next month we will know', NOW).map((d) => [d.phrase, d.label])).toEqual([['end of next month', '2026-02-28']]);
    // Without them both parsers read the same (the refiner moves nothing there).
    for (const s of SENTENCES.slice(0, -1)) {
      const reference = { instant: new Date(NOW), timezone: 0 };
      expect(englishNoEndOf.parse(s, reference).map((r) => [r.index, r.text, r.start.date().getTime()])).toEqual(english.parse(s, reference).map((r) => [r.index, r.text, r.start.date().getTime()]));
    }
  });

  it('writes the same dates as the source, parser for parser', async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'engram-dates-bundle-'));
    dirs.push(outDir);
    await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        outDir,
        emptyOutDir: true,
        target: 'es2022',
        minify: true,
        lib: { entry: resolve(import.meta.dirname, '../../src/write/dates.ts'), formats: ['es'], fileName: 'dates' },
      },
    });
    const bundled = (await import(pathToFileURL(join(outDir, 'dates.js')).href)) as typeof import('../../src/write/dates.js');
    // The bundle renamed the class, so only what the parser does could have found it.
    expect(bundled.english.parsers.some((p) => p.constructor.name === 'ENTimeExpressionParser')).toBe(false);
    expect(bundled.english.parsers.length).toBe(english.parsers.length);
    expect(bundled.englishNoEndOf.refiners.length).toBe(englishNoEndOf.refiners.length);
    for (const s of SENTENCES) expect(bundled.annotateDates(s, NOW)).toBe(annotateDates(s, NOW));
  }, 60_000);
});
