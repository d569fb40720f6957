/**
 * The closing summary: one table of figures a reader can compare run to run, then every
 * violation by kind with its first reproductions.
 */
import type { ChaosReport } from './run.js';

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

function table(rows: (string | number)[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (typeof cell === 'number' ? String(cell).padStart(widths[i]!) : String(cell).padEnd(widths[i]!))).join('  ')).join('\n');
}

/** The human summary of a run. */
export function formatReport(report: ChaosReport): string {
  const lines: string[] = [];
  lines.push(`Engram chaos run, seed ${report.seed} (${report.durationS.toFixed(0)} s)`);
  if (report.http) {
    const rows: (string | number)[][] = [['route', 'requests', '2xx', '4xx', '5xx', 'hangs', 'malformed', 'forged-ok', 'violations', 'slowest ms']];
    for (const [route, t] of Object.entries(report.http.routes)) rows.push([route, t.requests, t.s2xx, t.s4xx, t.s5xx, t.hangs, t.malformed, t.forgeableAccepted, t.violations, Math.round(t.slowestMs)]);
    lines.push('', 'HTTP fuzz', table(rows));
    lines.push(`server RSS: ${mb(report.http.rssBaselineBytes)} at start, peak ${mb(report.http.rssPeakBytes)}; server exits during the fuzz: ${report.http.serverExits}; reopened after the fuzz: ${report.http.restartOk ? `yes (${Math.round(report.http.restartMs)} ms)` : 'NO'}`);
  }
  if (report.rpc) {
    const rows: (string | number)[][] = [['method', 'calls', 'resolved', 'MemoryError', 'other error', 'hangs', 'violations']];
    for (const [m, t] of Object.entries(report.rpc.methods)) rows.push([m, t.calls, t.resolved, t.memoryErrors, t.otherErrors, t.hangs, t.violations]);
    lines.push('', 'comlink fuzz (createMemoryClient over a MessageChannel, engine behind the peer layer)', table(rows));
  }
  if (report.kills) {
    const k = report.kills;
    lines.push('', 'SIGKILL trials', table([
      ['trials', 'acked writes', 'acked deletes', 'lost writes', 'undone deletes', 'reopen failures', 'reopen ms (median / max)'],
      [k.trials, k.ackedWrites, k.ackedDeletes, k.lostWrites, k.undoneDeletes, k.reopenFailures, `${Math.round(k.reopenMsMedian)} / ${Math.round(k.reopenMsMax)}`],
    ]));
  }
  if (report.disk) {
    const d = report.disk;
    lines.push('', `Full disk (${d.method})`, table([
      ['writes acked', 'refused (507)', 'other 5xx', 'hangs', 'lost after restart', 'writes after space returned', 'reopen ms'],
      [d.acked, d.answered507, d.other5xx, d.hangs, d.lost, d.afterOk ? 'ok' : 'FAILED', Math.round(d.reopenMs)],
    ]));
    if (d.note) lines.push(d.note);
  }
  if (report.corruption) {
    const rows: (string | number)[][] = [['trial', 'file', 'outcome', 'acked', 'lost']];
    for (const t of report.corruption.trials) rows.push([t.name, t.file, t.outcome, t.acked, t.lost]);
    lines.push('', 'Corruption', table(rows));
  }
  lines.push('', `VIOLATIONS: ${report.violationCount}`);
  for (const [kind, n] of report.violationsByKind) lines.push(`  ${n} × ${kind}`);
  if (report.examples.length) {
    lines.push('', 'Reproductions (first of each kind):');
    for (const e of report.examples) lines.push(`- [${e.where}] ${e.violation} (${e.kind})`, `    request: ${e.request}`, `    answer:  ${e.answer}`);
  }
  return lines.join('\n');
}
