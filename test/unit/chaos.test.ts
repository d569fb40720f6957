/**
 * A small sample of `npm run chaos` (scripts/chaos.ts) inside the unit suite: the same harness,
 * against real server processes, with small sizes. Each scenario must end with zero violations;
 * the failure message is the harness's own report with its reproductions. Per-request timeouts
 * are generous and nothing is timed: a loaded two-core machine is slow, not wrong.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../scripts/chaos/ledger.js';
import { formatReport } from '../../scripts/chaos/report.js';
import { createRng } from '../../scripts/chaos/rng.js';
import { FULL_RUN, runChaos, type ChaosOptions } from '../../scripts/chaos/run.js';
import { startServer } from '../../scripts/chaos/server.js';

const SMALL: ChaosOptions = {
  ...FULL_RUN,
  seed: 1,
  requestsPerRoute: 0,
  rpcCallsPerMethod: 0,
  kills: 0,
  disk: false,
  corruption: false,
  corruptionFlips: 1,
  concurrency: 2,
  timeoutMs: 60_000,
  rssLimitMb: 768,
  oversizeCapMb: 16,
  oversizedRoutes: ['add', 'breeth', 'tablestore'],
  limits: { hugeBytes: 2 * 1024 * 1024, maxDepth: 10_000, maxList: 200_000 },
};

const TIMEOUT = 600_000;

async function expectClean(options: Partial<ChaosOptions>) {
  const report = await runChaos({ ...SMALL, ...options });
  expect(report.violationsByKind, formatReport(report)).toEqual([]);
  return report;
}

describe('chaos sample', () => {
  it('the read-back check sees a write that is gone (the harness can fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-chaos-self-'));
    try {
      const ledger = new Ledger();
      let server = await startServer({ dataDir: join(dir, 'a') });
      const rng = createRng(7);
      for (let i = 0; i < 6; i++) await ledger.writeOne(server.port, 'self-u0', rng, { deletes: false });
      expect(ledger.counts.acked).toBeGreaterThan(0);
      expect((await ledger.verify(server.port)).lost).toEqual([]);
      await server.stop();
      // Another, empty directory stands for a store that lost everything.
      server = await startServer({ dataDir: join(dir, 'b') });
      const check = await ledger.verify(server.port);
      await server.stop();
      expect(check.ok).toBe(false);
      expect(check.lost.length).toBe(check.checked);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, TIMEOUT);

  it('HTTP fuzz: 150 requests per route, every answer 2xx or the route\'s own 4xx, server reopens', async () => {
    const report = await expectClean({ requestsPerRoute: 150 });
    expect(Object.values(report.http!.routes).every((t) => t.requests >= 150)).toBe(true);
    expect(report.http!.restartOk).toBe(true);
  }, TIMEOUT);

  it('comlink fuzz: every rejection is a MemoryError with a catalog code', async () => {
    const report = await expectClean({ rpcCallsPerMethod: 40 });
    expect(Object.values(report.rpc!.methods).reduce((n, t) => n + t.calls, 0)).toBeGreaterThan(300);
  }, TIMEOUT);

  it('SIGKILL during writes: nothing acknowledged is lost or undone', async () => {
    const report = await expectClean({ kills: 3 });
    expect(report.kills!.ackedWrites).toBeGreaterThan(0);
  }, TIMEOUT);

  it('full disk: 507, then nothing acknowledged lost once space returns', async () => {
    const report = await expectClean({ disk: true });
    expect(report.disk!.answered507).toBeGreaterThan(0);
  }, TIMEOUT);

  it('a corrupted byte or torn page: a typed refusal or nothing lost', async () => {
    const report = await expectClean({ corruption: true });
    expect(report.corruption!.trials.length).toBeGreaterThan(0);
  }, TIMEOUT);
});
