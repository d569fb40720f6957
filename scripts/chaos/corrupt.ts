/**
 * Damaged data on disk: the server is stopped, one byte of its database is flipped (or the file
 * is cut at a page boundary), and it is started again. It must either refuse to open, exiting
 * with a message that names STORAGE_CORRUPT, or open with everything it acknowledged intact:
 * never open quietly with records missing. Each trial damages a fresh copy of the same data.
 */
import { cpSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, truncateSync, writeSync, closeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ledger } from './ledger.js';
import type { Rng } from './rng.js';
import { startServer, StartFailure } from './server.js';
import { preview, type Violations } from './tally.js';

export interface CorruptionOptions {
  workDir: string;
  writes: number;
  /** Byte flips (at random offsets past the header); a header flip and two truncations are always added. */
  flips: number;
  log?: (line: string) => void;
}

export interface CorruptionTrial {
  name: string;
  file: string;
  outcome: 'refused: STORAGE_CORRUPT' | 'refused: untyped' | 'opened: nothing lost' | 'opened: records lost' | 'opened: reads fail' | 'skipped';
  acked: number;
  lost: number;
}

function files(dir: string): { path: string; size: number }[] {
  const out: { path: string; size: number }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (entry.isFile() && entry.name !== 'LOCK') out.push({ path, size: statSync(path).size });
  }
  return out;
}

function flip(path: string, offset: number, rng: Rng): void {
  const fd = openSync(path, 'r+');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, offset);
    b[0] = b[0]! ^ (1 << rng.int(0, 7));
    writeSync(fd, b, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

/** Runs the trials; violations go to `violations`. */
export async function runCorruption(rng: Rng, options: CorruptionOptions, violations: Violations): Promise<{ trials: CorruptionTrial[] }> {
  const log = options.log ?? (() => undefined);
  const pristine = join(options.workDir, 'corrupt-pristine');
  mkdirSync(pristine, { recursive: true });
  const ledger = new Ledger();
  const server = await startServer({ dataDir: pristine });
  const wr = rng.fork('corrupt');
  for (let i = 0; i < options.writes; i++) await ledger.writeOne(server.port, 'corrupt-u0', wr, { deletes: true });
  await server.stop();
  const all = files(pristine).sort((a, b) => b.size - a.size);
  const db = all[0];
  const trials: CorruptionTrial[] = [];
  if (!db || db.size === 0) {
    violations.add({ where: 'corruption', kind: 'setup', violation: 'no-data-file', request: pristine, answer: JSON.stringify(all) });
    return { trials };
  }
  const name = relative(pristine, db.path);
  const header = Math.min(100, db.size - 1);
  const plans: { name: string; damage: (path: string, size: number) => void }[] = [
    { name: 'flip in header', damage: (p) => flip(p, rng.int(0, header), rng) },
    ...Array.from({ length: options.flips }, (_, i) => ({ name: `flip ${i + 1}`, damage: (p: string, size: number) => flip(p, rng.int(Math.min(header + 1, size - 1), size - 1), rng) })),
    { name: 'torn last page', damage: (p: string, size: number) => truncateSync(p, Math.max(0, size - Math.min(4096, Math.ceil(size / 4)))) },
    { name: 'cut in half', damage: (p: string, size: number) => truncateSync(p, Math.floor(size / 2 / 4096) * 4096 || Math.floor(size / 2)) },
  ];
  for (const [i, plan] of plans.entries()) {
    const dir = join(options.workDir, `corrupt-${i}`);
    rmSync(dir, { recursive: true, force: true });
    cpSync(pristine, dir, { recursive: true });
    const target = join(dir, name);
    plan.damage(target, statSync(target).size);
    const trial: CorruptionTrial = { name: plan.name, file: name, outcome: 'skipped', acked: ledger.counts.acked, lost: 0 };
    try {
      const s = await startServer({ dataDir: dir });
      const check = await ledger.verify(s.port);
      trial.lost = check.lost.length + check.undone.length;
      trial.outcome = check.readFailures.length ? 'opened: reads fail' : trial.lost ? 'opened: records lost' : 'opened: nothing lost';
      await s.stop();
      if (trial.lost) {
        violations.add({ where: 'corruption', kind: plan.name, violation: 'opened-silently-with-records-lost', request: `${plan.name} of ${name}, restart`, answer: `${trial.lost} of ${trial.acked} acknowledged missing, e.g. ${[...check.lost, ...check.undone].slice(0, 3).join('; ')}` });
      } else if (check.readFailures.length) {
        violations.add({ where: 'corruption', kind: plan.name, violation: 'opened-but-reads-fail', request: `${plan.name} of ${name}, restart`, answer: check.readFailures.slice(0, 3).join('; ') });
      }
    } catch (error) {
      const out = error instanceof StartFailure ? error.output : String(error);
      const typed = out.includes('STORAGE_CORRUPT');
      trial.outcome = typed ? 'refused: STORAGE_CORRUPT' : 'refused: untyped';
      if (!typed) violations.add({ where: 'corruption', kind: plan.name, violation: 'refused-without-STORAGE_CORRUPT', request: `${plan.name} of ${name}, restart`, answer: preview(out.slice(-1000), 1000) });
    }
    log(`corruption: ${plan.name} of ${name}: ${trial.outcome}`);
    trials.push(trial);
    rmSync(dir, { recursive: true, force: true });
  }
  return { trials };
}
