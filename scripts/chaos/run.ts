/**
 * One chaos run: the scenarios in order (HTTP fuzz, comlink fuzz, SIGKILL trials, full disk,
 * corruption), each sized by the options and driven by one seed, into one report. Used by the
 * `npm run chaos` command line and, with small sizes, by the unit test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaseLimits } from './cases.js';
import { runCorruption, type CorruptionTrial } from './corrupt.js';
import { runFullDisk, type DiskResult } from './disk.js';
import { runHttpFuzz, type FuzzResult } from './fuzz.js';
import { runKillTrials, type KillResult } from './kills.js';
import type { RouteName } from './requests.js';
import { createRng } from './rng.js';
import { runRpcFuzz, type RpcTally } from './rpc.js';
import { Violations, type Example } from './tally.js';

export interface ChaosOptions {
  seed: number;
  requestsPerRoute: number;
  rpcCallsPerMethod: number;
  kills: number;
  disk: boolean;
  /** How the disk fills: a tmpfs (root), a file-size limit, or whichever works (default). */
  diskFault?: 'auto' | 'tmpfs' | 'fsize';
  corruption: boolean;
  /** Random byte flips in the corruption scenario (besides a header flip and two truncations). */
  corruptionFlips?: number;
  concurrency: number;
  timeoutMs: number;
  rssLimitMb: number;
  oversizeCapMb: number;
  oversizedRoutes?: readonly RouteName[];
  limits: CaseLimits;
  /** Working directory for data (a fresh temporary one by default; removed at the end unless kept). */
  workDir?: string;
  keep?: boolean;
  log?: (line: string) => void;
}

export interface ChaosReport {
  seed: number;
  durationS: number;
  options: Omit<ChaosOptions, 'log'>;
  http?: Omit<FuzzResult, 'violations'>;
  rpc?: { methods: Record<string, RpcTally> };
  kills?: KillResult;
  disk?: DiskResult;
  corruption?: { trials: CorruptionTrial[] };
  violationCount: number;
  violationsByKind: [string, number][];
  examples: Example[];
}

/** The sizes of `npm run chaos` with no flags: the full run. */
export const FULL_RUN: Omit<ChaosOptions, 'seed'> = {
  requestsPerRoute: 10_000,
  rpcCallsPerMethod: 2_000,
  kills: 30,
  disk: true,
  corruption: true,
  concurrency: 4,
  timeoutMs: 30_000,
  // A bound that catches buffering a body whole (a 1 GiB upload took the server to 3–4 GB) but
  // not the heap V8 keeps after parsing four concurrent 9 MB bodies: the server's peak under the
  // fuzz is about 650 MB, from a 130 MB baseline, and falls back between them.
  rssLimitMb: 1024,
  oversizeCapMb: 256,
  limits: { hugeBytes: 9 * 1024 * 1024, maxDepth: 10_000, maxList: 1_000_000 },
};

/** Runs every scenario the options ask for. Never throws for a server's failure: that is a violation. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = performance.now();
  const log = options.log ?? (() => undefined);
  const root = createRng(options.seed);
  const violations = new Violations();
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'engram-chaos-'));
  const { log: _log, ...shown } = options;
  const report: ChaosReport = { seed: options.seed, durationS: 0, options: shown, violationCount: 0, violationsByKind: [], examples: [] };
  const guard = async <T>(name: string, body: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await body();
    } catch (error) {
      violations.add({ where: name, kind: 'scenario', violation: 'scenario-failed', request: '', answer: String((error as Error)?.stack ?? error).slice(0, 1500) });
      return undefined;
    }
  };
  try {
    if (options.requestsPerRoute > 0) {
      log(`HTTP fuzz: ${options.requestsPerRoute} requests per route`);
      const http = await guard('http', () => runHttpFuzz(root.fork('http'), {
        dataDir: join(workDir, 'fuzz'), requestsPerRoute: options.requestsPerRoute, concurrency: options.concurrency, timeoutMs: options.timeoutMs,
        maxResponseBytes: 8 * 1024 * 1024, limits: options.limits, oversizeCap: options.oversizeCapMb * 1024 * 1024,
        ...(options.oversizedRoutes ? { oversizedRoutes: options.oversizedRoutes } : {}), rssLimitBytes: options.rssLimitMb * 1024 * 1024, log,
      }));
      if (http) {
        const { violations: found, ...rest } = http;
        report.http = rest;
        // Each scenario's figures as soon as it ends: a long run stopped later still has them.
        log(`HTTP fuzz done: ${JSON.stringify(rest)}; violations ${JSON.stringify([...found.byKind])}`);
        for (const e of found.examples) violations.examples.push(e);
        for (const [k, n] of found.byKind) violations.byKind.set(k, (violations.byKind.get(k) ?? 0) + n);
      }
    }
    if (options.rpcCallsPerMethod > 0) {
      log(`comlink fuzz: ${options.rpcCallsPerMethod} calls per method`);
      const methods = await guard('rpc', () => runRpcFuzz(root.fork('rpc'), { callsPerMethod: options.rpcCallsPerMethod, timeoutMs: options.timeoutMs, limits: options.limits, log }, violations));
      if (methods) report.rpc = { methods };
      log(`comlink fuzz done: ${JSON.stringify(methods)}`);
    }
    if (options.kills > 0) {
      log(`SIGKILL trials: ${options.kills}`);
      const kills = await guard('kill', () => runKillTrials(root.fork('kill'), { dataDir: join(workDir, 'kills'), trials: options.kills, writers: 6, minDelayMs: 50, maxDelayMs: 1500, log }, violations));
      if (kills) report.kills = kills;
      log(`SIGKILL trials done: ${JSON.stringify(kills)}`);
    }
    if (options.disk) {
      log('full disk');
      const disk = await guard('disk', () => runFullDisk(root.fork('disk'), { workDir, sizeMb: 3, refusals: 40, maxWrites: 3000, fault: options.diskFault ?? 'auto', log }, violations));
      if (disk) report.disk = disk;
      log(`full disk done: ${JSON.stringify(disk)}`);
    }
    if (options.corruption) {
      log('corruption');
      const corruption = await guard('corruption', () => runCorruption(root.fork('corrupt'), { workDir, writes: 60, flips: options.corruptionFlips ?? 4, log }, violations));
      if (corruption) report.corruption = corruption;
    }
  } finally {
    if (!options.keep && !options.workDir) rmSync(workDir, { recursive: true, force: true });
  }
  report.durationS = (performance.now() - started) / 1000;
  report.violationCount = violations.total;
  report.violationsByKind = [...violations.byKind.entries()].sort((a, b) => b[1] - a[1]);
  report.examples = violations.examples;
  return report;
}
