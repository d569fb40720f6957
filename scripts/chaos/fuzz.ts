/**
 * The HTTP fuzz: seeded cases over every route against a running server, a few at a time,
 * judged one by one, the server's RSS sampled throughout; afterwards the server is restarted
 * on the same data directory and must open and answer. A server that dies mid-run is recorded
 * (with the case that was in flight) and started again so the other routes are still covered.
 */
import { Agent } from 'node:http';
import { generateCase, oversizedCases, type CaseLimits, type HttpCase } from './cases.js';
import { send, type HttpAnswer } from './http.js';
import { ROUTES, type RouteName } from './requests.js';
import type { Rng } from './rng.js';
import { sampleRss, startServer, StartFailure, type ServerProcess } from './server.js';
import { judge } from './shapes.js';
import { emptyTally, preview, Violations, type RouteTally } from './tally.js';

export interface FuzzOptions {
  dataDir: string;
  requestsPerRoute: number;
  concurrency: number;
  timeoutMs: number;
  maxResponseBytes: number;
  limits: CaseLimits;
  /** Bytes an oversized streaming case sends at most. */
  oversizeCap: number;
  /** Routes whose oversized cases run (all by default). */
  oversizedRoutes?: readonly RouteName[];
  rssLimitBytes: number;
  log?: (line: string) => void;
}

export interface FuzzResult {
  routes: Record<string, RouteTally>;
  rssPeakBytes: number;
  rssBaselineBytes: number;
  serverExits: number;
  restartOk: boolean;
  restartMs: number;
  violations: Violations;
}

function describeRequest(c: HttpCase): string {
  const body = c.oversize ? `<oversized ${JSON.stringify(c.oversize)}>` : c.body === null ? '' : typeof c.body === 'string' ? c.body : `<bytes ${c.body.toString('base64').slice(0, 200)}>`;
  return `${c.method} ${preview(c.path, 120)} ${JSON.stringify(c.headers)} ${preview(body)}`;
}

const describeAnswer = (a: HttpAnswer): string => `${a.status ?? a.failure} ${a.detail ?? ''} ${preview(a.body.toString('utf8'), 300)}`.trim();

/** Runs the fuzz; `rng` decides every case. */
export async function runHttpFuzz(rng: Rng, options: FuzzOptions): Promise<FuzzResult> {
  const log = options.log ?? (() => undefined);
  const violations = new Violations();
  const routes: Record<string, RouteTally> = {};
  for (const r of ROUTES) routes[r.name] = emptyTally();
  let server = await startServer({ dataDir: options.dataDir });
  const rssBaselineBytes = server.rss();
  const rss = sampleRss(() => server.pid);
  let serverExits = 0;
  let agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });

  // The queue: every route's share shuffled together, the oversized cases spread through it.
  const queue: { route: RouteName; index: number; oversized?: HttpCase }[] = [];
  for (const r of ROUTES) for (let i = 0; i < options.requestsPerRoute; i++) queue.push({ route: r.name, index: i });
  for (let i = queue.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [queue[i], queue[j]] = [queue[j]!, queue[i]!];
  }
  for (const r of options.oversizedRoutes ?? ROUTES.map((x) => x.name)) {
    for (const c of oversizedCases(r, options.oversizeCap)) queue.splice(rng.int(0, queue.length), 0, { route: r, index: -1, oversized: c });
  }
  const caseRngs = new Map(ROUTES.map((r) => [r.name, rng.fork(`http:${r.name}`)]));

  let next = 0;
  let done = 0;
  let restarting: Promise<void> | null = null;
  const restart = async (c: HttpCase) => {
    serverExits++;
    const exit = await server.exited;
    violations.add({ where: c.route, kind: c.kind, violation: `server-exited(code ${exit.code}, signal ${exit.signal})`, request: describeRequest(c), answer: preview(server.output().slice(-2000), 2000) });
    log(`server exited during ${c.route} ${c.kind}; restarting`);
    agent.destroy();
    agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
    try {
      server = await startServer({ dataDir: options.dataDir });
    } catch (error) {
      const out = error instanceof StartFailure ? error.output : String(error);
      violations.add({ where: 'restart', kind: 'after-crash', violation: 'cannot-reopen', request: '', answer: preview(out.slice(-2000), 2000) });
      throw error;
    }
  };

  const worker = async () => {
    while (next < queue.length) {
      const item = queue[next++]!;
      // Each route's cases come from its own stream, so a route's Nth case does not depend on the others.
      const c = item.oversized ?? generateCase(item.route, caseRngs.get(item.route)!, options.limits);
      if (restarting) await restarting;
      const answer = await send(c, { port: server.port, timeoutMs: options.timeoutMs, maxResponseBytes: options.maxResponseBytes, agent });
      const tally = routes[c.route]!;
      tally.requests++;
      tally.slowestMs = Math.max(tally.slowestMs, answer.ms);
      const status = answer.status ?? 0;
      if (status >= 200 && status < 300) tally.s2xx++;
      else if (status >= 400 && status < 500) tally.s4xx++;
      else if (status >= 500) tally.s5xx++;
      const verdict = judge(c, answer);
      if (!verdict.ok) {
        tally.violations++;
        if (verdict.violation === 'hang') tally.hangs++;
        else if (verdict.violation.startsWith('forgeable')) tally.forgeableAccepted++;
        else if (!verdict.violation.startsWith('5xx')) tally.malformed++;
        violations.add({ where: c.route, kind: c.kind, violation: verdict.violation, request: describeRequest(c), answer: describeAnswer(answer) });
      }
      if (server.child.exitCode !== null || server.child.signalCode !== null) {
        restarting ??= restart(c).finally(() => (restarting = null));
        await restarting;
      }
      if (++done % 1000 === 0) log(`http fuzz: ${done}/${queue.length} requests, ${violations.total} violations, RSS ${(server.rss() / 2 ** 20).toFixed(0)} MB`);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  const rssPeakBytes = rss.peak();
  rss.stop();
  if (rssPeakBytes > options.rssLimitBytes) {
    violations.add({ where: 'server', kind: 'rss', violation: 'rss-over-limit', request: `peak ${(rssPeakBytes / 2 ** 20).toFixed(0)} MB`, answer: `limit ${(options.rssLimitBytes / 2 ** 20).toFixed(0)} MB` });
  }

  // The data the fuzz left must open again and answer.
  await server.stop();
  let restartOk = false;
  let restartMs = 0;
  try {
    const again = await startServer({ dataDir: options.dataDir });
    restartMs = again.startMs;
    const probe: HttpCase = { route: 'search', family: 'everos', mayLeaveRoute: false, kind: 'probe', method: 'POST', path: '/api/v1/memory/search', headers: { 'content-type': 'application/json' }, body: '{"user_id":"chaos-u0","query":"kayak"}', oversize: null, forgeable: null };
    const health: HttpCase = { ...probe, route: 'health', family: 'health', method: 'GET', path: '/health', body: null, headers: {} };
    const answers = [await send(health, { port: again.port, timeoutMs: options.timeoutMs, maxResponseBytes: options.maxResponseBytes }), await send(probe, { port: again.port, timeoutMs: options.timeoutMs, maxResponseBytes: options.maxResponseBytes })];
    restartOk = answers.every((a) => a.status === 200);
    if (!restartOk) violations.add({ where: 'restart', kind: 'after-fuzz', violation: 'reopened-but-not-answering', request: 'GET /health; POST search', answer: `${answers.map(describeAnswer).join(' | ')} | server log: ${preview(again.output().split('\n').filter((l) => l.includes('unexpected') || l.includes('    at ')).slice(0, 12).join('\n'), 1500)}` });
    await again.stop();
  } catch (error) {
    const out = error instanceof StartFailure ? error.output : String(error);
    violations.add({ where: 'restart', kind: 'after-fuzz', violation: 'cannot-reopen', request: `serve-cli --data ${options.dataDir}`, answer: preview(out.slice(-2000), 2000) });
  }
  return { routes, rssPeakBytes, rssBaselineBytes, serverExits, restartOk, restartMs, violations };
}
