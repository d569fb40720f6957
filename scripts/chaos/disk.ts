/**
 * A full disk. As root, the data directory is a 3 MB tmpfs: writers fill it until the server
 * answers 507, the tmpfs is then grown (space returns), the server is restarted and everything
 * it acknowledged must be there and new writes must work. Without root (or where mount fails)
 * the fault comes from a file-size limit instead (`ulimit -f`, SIGXFSZ ignored, so a write past
 * it fails with EFBIG), and space returns by restarting without the limit; the report says which
 * ran. Throughout: no 5xx other than 507, no hang.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ledger } from './ledger.js';
import type { Rng } from './rng.js';
import { startServer, StartFailure, type ServerProcess } from './server.js';
import { preview, type Violations } from './tally.js';

export interface DiskOptions {
  workDir: string;
  /** Size of the small filesystem, in MB. */
  sizeMb: number;
  /** Stop writing after this many 507 answers. */
  refusals: number;
  /** Give up filling after this many writes. */
  maxWrites: number;
  /** `tmpfs` (root only), `fsize` (the file-size limit) or `auto`: tmpfs when it can be mounted. */
  fault?: 'auto' | 'tmpfs' | 'fsize';
  log?: (line: string) => void;
}

export interface DiskResult {
  method: string;
  acked: number;
  answered507: number;
  other5xx: number;
  hangs: number;
  lost: number;
  afterOk: boolean;
  reopenMs: number;
  note?: string;
}

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: 'pipe' }).toString();

function tryMount(dir: string, sizeMb: number): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    sh('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir]);
    return true;
  } catch {
    return false;
  }
}

/** Runs the scenario; violations go to `violations`. */
export async function runFullDisk(rng: Rng, options: DiskOptions, violations: Violations): Promise<DiskResult> {
  const log = options.log ?? (() => undefined);
  const dir = join(options.workDir, 'full-disk');
  mkdirSync(dir, { recursive: true });
  const mounted = options.fault !== 'fsize' && tryMount(dir, options.sizeMb);
  if (!mounted && options.fault === 'tmpfs') throw new Error(`cannot mount a tmpfs on ${dir} (needs root and mount rights)`);
  const method = mounted ? `tmpfs ${options.sizeMb} MB, grown to 64 MB` : `file-size limit (ulimit -f ${options.sizeMb * 1024} KB), lifted on restart`;
  const limit = mounted ? undefined : `trap '' XFSZ; ulimit -f ${options.sizeMb * 1024}`;
  // Past a file-size limit the OS says EFBIG, which SQLite reports as an I/O error, not as a full
  // disk: there a 503 STORAGE_FAILED ("nothing was written") is the refusal to expect.
  const ledger = new Ledger(new Set(mounted ? [507] : [507, 503]));
  const result: DiskResult = { method, acked: 0, answered507: 0, other5xx: 0, hangs: 0, lost: 0, afterOk: false, reopenMs: 0 };
  let server: ServerProcess | null = null;
  try {
    server = await startServer({ dataDir: dir, ...(limit ? { shellPrefix: limit } : {}) });
    const wr = rng.fork('disk');
    let writes = 0;
    while (ledger.counts.refused507 < options.refusals && writes < options.maxWrites) {
      // Mostly ~20 KB writes to fill it, with small ones between: once a big write fails, a small
      // one may still fit behind whatever the failed write left on disk.
      const status = await ledger.writeOne(server.port, 'disk-u0', wr, { deletes: false, bigText: wr.pick([0, 300, 4_000, 20_000, 20_000]) });
      writes++;
      if (status === 0 && (server.child.exitCode !== null || server.child.signalCode !== null)) {
        violations.add({ where: 'disk', kind: method, violation: 'server-exited-on-full-disk', request: `write ${writes}`, answer: preview(server.output().slice(-1500), 1500) });
        break;
      }
    }
    if (ledger.counts.refused507 === 0) {
      violations.add({ where: 'disk', kind: method, violation: 'never-answered-507', request: `${writes} writes of ~20 KB`, answer: JSON.stringify(ledger.counts.statuses) });
    }
    log(`full disk: ${writes} writes, ${JSON.stringify(ledger.counts.statuses)}`);
    // Reads still work on a full disk.
    if (server.child.exitCode === null) {
      const { callJson } = await import('./client.js');
      const read = await callJson(server.port, '/api/v1/memory/search', { user_id: 'disk-u0', query: 'notebook drawer' });
      if (read.status !== 200) violations.add({ where: 'disk', kind: method, violation: 'read-failed-on-full-disk', request: 'search', answer: `${read.status} ${preview(JSON.stringify(read.body))}` });
    }
    if (mounted) sh('mount', ['-o', 'remount,size=64m', dir]);
    await server.stop();
    server = await startServer({ dataDir: dir });
    result.reopenMs = server.startMs;
    const check = await ledger.verify(server.port);
    result.lost = check.lost.length;
    for (const what of check.lost) violations.add({ where: 'disk', kind: method, violation: 'acknowledged-write-lost', request: what, answer: 'absent after space returned and restart' });
    for (const what of check.halfWritten) violations.add({ where: 'disk', kind: method, violation: 'refused-write-present', request: what, answer: 'present although answered 507' });
    for (const what of check.readFailures) violations.add({ where: 'disk', kind: method, violation: 'read-back-failed', request: what, answer: '' });
    // Later writes work and are kept.
    const before = ledger.counts.acked;
    for (let i = 0; i < 10; i++) await ledger.writeOne(server.port, 'disk-u1', wr, { deletes: false });
    result.afterOk = ledger.counts.acked - before === 10;
    if (!result.afterOk) violations.add({ where: 'disk', kind: method, violation: 'writes-fail-after-space-returned', request: '10 writes', answer: JSON.stringify(ledger.counts.statuses) });
    await server.stop();
  } catch (error) {
    const out = error instanceof StartFailure ? error.output : String(error);
    violations.add({ where: 'disk', kind: method, violation: 'cannot-reopen', request: `serve-cli --data ${dir}`, answer: preview(out.slice(-1500), 1500) });
    await server?.stop();
  } finally {
    if (mounted) {
      try {
        sh('umount', [dir]);
      } catch (error) {
        result.note = `could not unmount ${dir}: ${String(error)}`;
      }
    }
  }
  result.acked = ledger.counts.acked;
  result.answered507 = ledger.counts.refused507;
  result.other5xx = ledger.counts.other5xx;
  result.hangs = ledger.counts.hangs;
  if (!mounted) result.note = 'file-size limit: a 503 STORAGE_FAILED counts as the refusal (SQLite cannot tell EFBIG from an I/O error)';
  if (result.other5xx) violations.add({ where: 'disk', kind: method, violation: '5xx-other-than-507', request: 'writes on a full disk', answer: JSON.stringify(ledger.counts.statuses) });
  if (result.hangs) violations.add({ where: 'disk', kind: method, violation: 'hang', request: 'writes on a full disk', answer: JSON.stringify(ledger.counts.statuses) });
  return result;
}
