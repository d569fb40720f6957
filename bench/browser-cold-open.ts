/**
 * Cold open in a real browser: how long from a page's navigation start to the first search answer
 * over a persisted memory of N records (default 10,000), through the worker + IndexedDB path,
 * side by side with restoring the same records from an Orama JSON snapshot kept in IndexedDB.
 *
 *   npm run bench:browser                                # 10k records, table
 *   npm run bench:browser -- --json                      # machine-readable
 *   npm run bench:browser -- --records 10000,100000 --runs 3
 *   npm run bench:browser -- --variants engram --profile 0  # only the cached-model open, no step profile
 *
 * Also reports warm hybrid query latency (p50/p95 of 20 questions after each open) and the bytes
 * IndexedDB holds against the raw text and vectors. Orama's JSON snapshot is only built up to
 * 20k records: past that its JSON outgrows what one JavaScript string holds.
 *
 * Texts are turns of LongMemEval-S (the user's, then the assistant's) when ../shared/data has it,
 * else generated sentences.
 * Needs Chromium at /usr/bin/chromium (apt-get install -y chromium).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPage, CHROMIUM_PATH, hasChromium, launchChromium, serveDir } from '../test/support/browser.js';
import type { ColdResult, SeedResult } from './browser/cold-open-page.js';
import { DEFAULT_DATA, loadDataset } from './longmemeval.js';

const args = process.argv.slice(2);
const option = (flag: string, fallback: number) => {
  const i = args.indexOf(flag);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const JSON_OUT = args.includes('--json');
const i0 = args.indexOf('--records');
const SIZES = (i0 >= 0 && args[i0 + 1] ? args[i0 + 1]! : '10000').split(',').map(Number);
const SNAPSHOT_LIMIT = 20_000;
const RUNS = option('--runs', 5);
/** Step-by-step profiles after the timed opens (0: none). */
const PROFILES = option('--profile', 3);
const i1 = args.indexOf('--variants');
const ONLY = i1 >= 0 && args[i1 + 1] ? new Set(args[i1 + 1]!.split(',')) : null;
const TARGET_MS = 300;

type Variant = 'engram' | 'engram-nocache' | 'orama';
const LABELS: Record<Variant, string> = {
  engram: 'Engram: worker + IndexedDB (model in Cache API)',
  'engram-nocache': 'Engram: worker + IndexedDB (model fetched)',
  orama: 'Orama save() JSON in IndexedDB, load()',
};

async function texts(count: number): Promise<{ source: string; texts: string[] }> {
  if (existsSync(fileURLToPath(DEFAULT_DATA))) {
    const data = await loadDataset();
    const out: string[] = [];
    for (const role of ['user', 'assistant']) {
      for (const turns of Object.values(data.sessions)) {
        for (const turn of turns) {
          if (turn.role !== role || !turn.content.trim()) continue;
          out.push(turn.content.slice(0, 2000));
          if (out.length === count) return { source: role === 'user' ? 'LongMemEval-S user turns' : 'LongMemEval-S turns (user, then assistant)', texts: out };
        }
      }
    }
  }
  const words = ['trip', 'airport', 'dinner', 'garden', 'project', 'meeting', 'doctor', 'weekend', 'budget', 'recipe', 'train', 'gym', 'book', 'movie', 'sister', 'deadline'];
  const generated = Array.from({ length: count }, (_, i) => `Note ${i}: the ${words[i % 16]} and the ${words[(i * 7) % 16]} came up again, with ${words[(i * 3) % 16]} plans for ${words[(i * 5) % 16]}.`);
  return { source: 'generated sentences', texts: generated };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
};

const percentile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

async function main(): Promise<void> {
  if (!hasChromium()) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium`);
  const reports = [];
  for (const records of SIZES) reports.push(await measure(records));
  if (JSON_OUT) console.log(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
}

async function measure(count: number) {
  const { source, texts: corpus } = await texts(count);
  const withSnapshot = count <= SNAPSHOT_LIMIT && (!ONLY || ONLY.has('orama'));
  // LongMemEval-S when it is there (loadDataset prints what it is and where to get it), else generated sentences.
  process.stderr.write(`data: ${count.toLocaleString('en-US')} records from ${source}; model: the bundled models/static-en\n`);
  const outDir = await mkdtemp(join(tmpdir(), 'engram-bench-page-'));
  await buildPage({ entry: join(import.meta.dirname, 'browser', 'cold-open-page.ts'), outDir, title: 'cold open' });
  const served = await serveDir(outDir, { mounts: { '/models/': join(import.meta.dirname, '..', 'models') } });
  const browser = await launchChromium({ webgpu: false });
  try {
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => console.error('page error:', error.message));
    await page.goto(served.url);
    await page.waitForFunction(() => 'coldOpen' in globalThis);
    const seed = await page.evaluate(
      ([name, list, snapshot]) => (globalThis as unknown as { coldOpen: { seed(n: string, t: string[], s: boolean): Promise<SeedResult> } }).coldOpen.seed(name, list, snapshot),
      ['bench', corpus, withSnapshot] as const,
    );

    const openOnce = async (variant: Variant): Promise<ColdResult> => {
      await page.goto(`${served.url}?run=${variant}&name=bench`);
      await page.waitForFunction(() => 'coldResult' in globalThis, undefined, { timeout: 600_000 });
      const result = await page.evaluate(() => (globalThis as unknown as { coldResult: ColdResult }).coldResult);
      if (!result.ok) throw new Error(`${variant}: ${result.error}`);
      return result;
    };
    // The first open after the records were written has no index snapshot yet: it builds the
    // indexes from the records and keeps their snapshot (at close). Reported apart, not in the medians.
    const firstOpen = await openOnce('engram');
    await page.goto(`${served.url}?name=bench`);
    await page.waitForFunction(() => 'coldOpen' in globalThis);
    const held = await page.evaluate(async (n) => {
      const api = (globalThis as unknown as { coldOpen: { storedValueBytes(n: string): Promise<{ packs: number; packCount: number; snapshots: number }>; usage(): Promise<number | null> } }).coldOpen;
      return { ...(await api.storedValueBytes(n)), usage: await api.usage() };
    }, 'bench');

    const results: Record<Variant, ColdResult[]> = { engram: [], 'engram-nocache': [], orama: [] };
    const variants = (withSnapshot ? ['engram', 'orama', 'engram-nocache'] as const : ['engram', 'engram-nocache'] as const).filter((v) => !ONLY || ONLY.has(v));
    if (!variants.includes('engram')) throw new Error('--variants must include engram');
    // Interleaved, so that a slow moment of the machine does not land on one variant only.
    for (let run = 0; run < RUNS; run++) {
      for (const variant of variants) results[variant].push(await openOnce(variant));
    }

    await page.goto(`${served.url}?name=bench`);
    await page.waitForFunction(() => 'coldOpen' in globalThis);
    const profiles: Record<string, number>[] = [];
    for (let run = 0; run < Math.min(RUNS, PROFILES); run++) {
      const p = await page.evaluate(() => (globalThis as unknown as { coldOpen: { profile(n: string, q: string): Promise<{ ok: boolean; error?: string; steps: Record<string, number> }> } }).coldOpen.profile('bench', 'how long does it take to get to the airport'));
      if (!p.ok) throw new Error(`profile: ${p.error}`);
      profiles.push(p.steps);
    }
    const steps = Object.fromEntries(Object.keys(profiles[0] ?? {}).map((k) => [k, median(profiles.map((p) => p[k] ?? NaN))]));

    const summary = Object.fromEntries(
      variants.map((v) => {
        const rs = results[v];
        const worker: Record<string, number> = {};
        for (const key of Object.keys(rs[0]?.worker ?? {})) worker[key] = median(rs.map((r) => r.worker?.[key] ?? NaN));
        return [v, {
          label: LABELS[v],
          firstAnswerMs: median(rs.map((r) => r.firstAnswer!)),
          firstAnswerRuns: rs.map((r) => r.firstAnswer!),
          scriptStartMs: median(rs.map((r) => r.scriptStart)),
          ...(v === 'orama' ? {} : {
            readyMs: median(rs.map((r) => r.ready!)),
            secondAnswerMs: median(rs.map((r) => r.secondAnswer! - r.firstAnswer!)),
            warmP50Ms: percentile(rs.flatMap((r) => r.warm ?? []), 0.5),
            warmP95Ms: percentile(rs.flatMap((r) => r.warm ?? []), 0.95),
          }),
          workerMarksMs: worker,
          hits: rs[0]?.hits,
        }];
      }),
    );
    // The records' growth, plus what the first open added (the index snapshot), Orama's JSON left out.
    const withSnapshotBytes = held.usage === null || seed.usageAfterSeed === null || seed.storedBytes === null ? null : seed.storedBytes + held.usage - seed.usageAfterSeed;
    const report = {
      records: seed.records, runs: RUNS, source, targetMs: TARGET_MS,
      dataMiB: +(seed.rawBytes / 2 ** 20).toFixed(1),
      rawUtf8MiB: +(seed.rawUtf8Bytes / 2 ** 20).toFixed(1),
      storedMiB: seed.storedBytes === null ? null : +(seed.storedBytes / 2 ** 20).toFixed(1),
      storedToRaw: seed.storedBytes === null ? null : +(seed.storedBytes / seed.rawUtf8Bytes).toFixed(2),
      // After the first open kept the index snapshot: what the origin's storage grew by in all, and the values' own bytes.
      storedWithSnapshotMiB: withSnapshotBytes === null ? null : +(withSnapshotBytes / 2 ** 20).toFixed(1),
      storedWithSnapshotToRaw: withSnapshotBytes === null ? null : +(withSnapshotBytes / seed.rawUtf8Bytes).toFixed(2),
      packs: held.packCount, packBytesMiB: +(held.packs / 2 ** 20).toFixed(2), snapshotBytesMiB: +(held.snapshots / 2 ** 20).toFixed(2),
      valuesToRaw: +((held.packs + held.snapshots) / seed.rawUtf8Bytes).toFixed(2),
      firstOpenAfterSeedMs: firstOpen.firstAnswer,
      oramaSnapshotMiB: +((seed.snapshotChars * 2) / 2 ** 20).toFixed(1),
      oramaSnapshotChars: seed.snapshotChars,
      seedMs: seed.seedMs, snapshotBuildMs: seed.snapshotMs,
      chromium: browser.version(),
      results: summary,
      openStepsMs: steps,
    };
    if (JSON_OUT) return report;
    const pad = (s: string | number, n: number) => String(s).padStart(n);
    console.log(`Cold open to first search answer, ${seed.records.toLocaleString('en-US')} records (${source}), Chromium ${report.chromium}, median of ${RUNS} runs`);
    console.log(`data (text UTF-16 + float32 vectors) ${report.dataMiB} MiB; text UTF-8 + vectors ${report.rawUtf8MiB} MiB; IndexedDB grew by ${report.storedMiB ?? '?'} MiB writing the records (${report.storedToRaw ?? '?'}× UTF-8 + vectors)`);
    console.log(`after the first open kept the index snapshot: storage holds ${report.storedWithSnapshotMiB ?? '?'} MiB for this memory (${report.storedWithSnapshotToRaw ?? '?'}× UTF-8 + vectors); the values themselves: ${held.packCount} packs ${report.packBytesMiB} MiB + keyword snapshot ${report.snapshotBytesMiB} MiB = ${report.valuesToRaw}×`);
    console.log(`first open after the records were written (no snapshot yet: builds the indexes from the records, keeps their snapshot at close): first answer ${Math.round(firstOpen.firstAnswer!)} ms`);
    if (withSnapshot) console.log(`Orama JSON snapshot ${report.oramaSnapshotMiB} MiB as a JS string (${seed.snapshotChars.toLocaleString('en-US')} chars, ${(seed.snapshotChars * 2 / seed.rawBytes).toFixed(1)}× the data)`);
    console.log('');
    console.log(`${'path'.padEnd(50)} ${pad('first answer', 13)} ${pad('runs', 30)}`);
    for (const v of variants) {
      const s = summary[v] as { label: string; firstAnswerMs: number; firstAnswerRuns: number[] };
      console.log(`${s.label.padEnd(50)} ${pad(`${Math.round(s.firstAnswerMs)} ms`, 13)} ${pad(s.firstAnswerRuns.map(Math.round).join(' / '), 30)}`);
    }
    console.log('');
    for (const v of variants) {
      const s = summary[v] as { label: string; workerMarksMs: Record<string, number>; scriptStartMs: number; readyMs?: number; firstAnswerMs: number; secondAnswerMs?: number; warmP50Ms?: number; warmP95Ms?: number };
      const steps = [['page script', s.scriptStartMs], ...Object.entries(s.workerMarksMs), ...(s.readyMs === undefined ? [] : [['client ready', s.readyMs]]), ['first answer', s.firstAnswerMs]] as [string, number][];
      console.log(`${s.label}: ${steps.map(([k, t]) => `${k} ${Math.round(t)}`).join(' → ')} ms${s.secondAnswerMs === undefined ? '' : `; a second (warm) query ${Math.round(s.secondAnswerMs)} ms; warm hybrid p50 ${s.warmP50Ms!.toFixed(1)} ms, p95 ${s.warmP95Ms!.toFixed(1)} ms`}`);
    }
    console.log('');
    console.log('Where an open spends its time (each step alone, in a worker, median):');
    for (const [k, v] of Object.entries(steps)) console.log(`  ${k.padEnd(48)} ${pad(Math.round(v), 6)} ${k.includes('KiB') ? 'KiB' : 'ms'}`);
    const engram = (summary.engram as { firstAnswerMs: number }).firstAnswerMs;
    console.log('');
    console.log(`target ≤ ${TARGET_MS} ms to the first answer at 10k records; here, at ${seed.records.toLocaleString('en-US')}: ${engram <= TARGET_MS ? 'met' : 'NOT met'} (${Math.round(engram)} ms)`);
    console.log('');
    return report;
  } finally {
    await browser.close();
    await served.close();
    await rm(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
