/**
 * SIGKILL trials: the server is killed at a random moment while several writers add, flush,
 * upsert and delete, then started again on the same directory. Every write it acknowledged
 * must be there, every delete it acknowledged must stay done, and it must open at all; the
 * time from spawn to listening is the reopen time. Trials share one directory, so later ones
 * reopen a store that has already survived earlier kills.
 */
import { Ledger } from './ledger.js';
import type { Rng } from './rng.js';
import { startServer, StartFailure, type ServerProcess } from './server.js';
import { preview, type Violations } from './tally.js';

export interface KillOptions {
  dataDir: string;
  trials: number;
  writers: number;
  /** The kill comes between these many ms after the writers start. */
  minDelayMs: number;
  maxDelayMs: number;
  log?: (line: string) => void;
}

export interface KillResult {
  trials: number;
  ackedWrites: number;
  ackedDeletes: number;
  lostWrites: number;
  undoneDeletes: number;
  reopenFailures: number;
  reopenMsMedian: number;
  reopenMsMax: number;
}

/** Runs the trials; violations go to `violations`. */
export async function runKillTrials(rng: Rng, options: KillOptions, violations: Violations): Promise<KillResult> {
  const log = options.log ?? (() => undefined);
  const ledger = new Ledger();
  const reopen: number[] = [];
  let lost = 0;
  let undone = 0;
  let reopenFailures = 0;
  // Trials re-check everything acknowledged so far; a loss is counted once, when first seen.
  const reported = new Set<string>();
  const fresh = (list: string[]) => list.filter((x) => !reported.has(x) && reported.add(x));
  let server: ServerProcess = await startServer({ dataDir: options.dataDir });
  for (let t = 0; t < options.trials; t++) {
    const user = `kill-u${t}`;
    let stop = false;
    const writer = async (w: number) => {
      const wr = rng.fork(`kill:${t}:${w}`);
      while (!stop) {
        const status = await ledger.writeOne(server.port, user, wr, { deletes: true });
        if (status === 0) return; // the server is gone
      }
    };
    const ackedBefore = ledger.counts.acked;
    const running = Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
    // The first writes after a start wait for the indexes to warm; the kill lands among the writes that follow.
    for (let waited = 0; ledger.counts.acked === ackedBefore && waited < 60_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, rng.int(options.minDelayMs, options.maxDelayMs)));
    server.kill('SIGKILL');
    await server.exited;
    stop = true;
    await running;
    try {
      server = await startServer({ dataDir: options.dataDir });
      reopen.push(server.startMs);
    } catch (error) {
      reopenFailures++;
      const out = error instanceof StartFailure ? error.output : String(error);
      violations.add({ where: 'kill', kind: `trial ${t}`, violation: 'cannot-reopen-after-sigkill', request: `SIGKILL during writes, then serve-cli --data ${options.dataDir}`, answer: preview(out.slice(-1500), 1500) });
      return summary();
    }
    const check = await ledger.verify(server.port);
    const newLost = fresh(check.lost);
    const newUndone = fresh(check.undone);
    lost += newLost.length;
    undone += newUndone.length;
    for (const what of newLost) violations.add({ where: 'kill', kind: `trial ${t}`, violation: 'acknowledged-write-lost', request: what, answer: 'absent after SIGKILL and restart' });
    for (const what of newUndone) violations.add({ where: 'kill', kind: `trial ${t}`, violation: 'acknowledged-delete-undone', request: what, answer: 'present again after SIGKILL and restart' });
    for (const what of check.readFailures) violations.add({ where: 'kill', kind: `trial ${t}`, violation: 'read-back-failed', request: what, answer: '' });
    log(`kill trial ${t + 1}/${options.trials}: ${ledger.counts.acked} acked so far, checked ${check.checked}, lost ${newLost.length}, undone ${newUndone.length}, reopen ${Math.round(server.startMs)} ms`);
  }
  await server.stop();
  return summary();

  function summary(): KillResult {
    const sorted = [...reopen].sort((a, b) => a - b);
    return {
      trials: options.trials,
      ackedWrites: ledger.counts.acked,
      ackedDeletes: ledger.counts.ackedDeletes,
      lostWrites: lost,
      undoneDeletes: undone,
      reopenFailures,
      reopenMsMedian: sorted[Math.floor(sorted.length / 2)] ?? 0,
      reopenMsMax: sorted[sorted.length - 1] ?? 0,
    };
  }
}
