/**
 * `npm run chaos`: Engram's Node server and browser client attacked from outside, as a hostile
 * client, a crash, a full disk and a damaged file would attack them. Sized by flags; a fixed
 * seed unless `--seed` is given, so any failure can be replayed. Prints a summary table (JSON
 * with `--json`) and exits 1 on any violation.
 */
import { parseArgs } from 'node:util';
import { formatReport } from './chaos/report.js';
import { FULL_RUN, runChaos, type ChaosOptions } from './chaos/run.js';
import { ROUTES, type RouteName } from './chaos/requests.js';

const HELP = `Usage: npm run chaos -- [options]

Runs, in order, against real server processes (node --import tsx src/http/serve-cli.ts):
  1. a seeded fuzz over every HTTP route (EverOS /api/v1/memory/*, /health, Breeth POST /v1/search,
     Tablestore POST /SearchMemories): mutated and malformed JSON, deep nesting, huge strings and
     lists, odd unicode, __proto__ keys, wrong content types, foreign Origin / Host, bad methods and
     URLs, oversized bodies (declared, chunked, exact); then a restart on the same data;
  2. the same requests through the browser client's comlink API (createMemoryClient over a
     MessageChannel to the worker's peer layer and a real engine);
  3. SIGKILL trials during concurrent writes, each followed by a restart and a read-back;
  4. a full disk (a 3 MB tmpfs when root, else a file-size limit), then space returns;
  5. a flipped byte / torn page in the database file.

Options (defaults are the full run):
  --seed N                 seed of every random choice (default 1)
  --requests-per-route N   HTTP fuzz size (default ${FULL_RUN.requestsPerRoute}; 0 skips it)
  --rpc-calls N            comlink calls per method (default ${FULL_RUN.rpcCallsPerMethod}; 0 skips it)
  --kills N                SIGKILL trials (default ${FULL_RUN.kills}; 0 skips them)
  --no-disk                skip the full-disk scenario
  --disk-fault KIND        auto (default: a tmpfs when root can mount one, else fsize), tmpfs or fsize
  --no-corruption          skip the corruption scenario
  --concurrency N          HTTP requests in flight (default ${FULL_RUN.concurrency})
  --timeout-ms N           a request without an answer after this long is a hang (default ${FULL_RUN.timeoutMs})
  --rss-limit-mb N         server RSS above this is a violation (default ${FULL_RUN.rssLimitMb})
  --oversize-mb N          bytes an oversized upload sends at most (default ${FULL_RUN.oversizeCapMb})
  --oversized-routes a,b   routes that get the oversized uploads (default all)
  --max-depth N            deepest nesting generated (default ${FULL_RUN.limits.maxDepth})
  --huge-mb N              largest huge string (default ${FULL_RUN.limits.hugeBytes / 2 ** 20})
  --work-dir DIR           keep data here instead of a temporary directory
  --keep                   keep the temporary directory
  --json                   print the report as JSON instead of the table
  --quiet                  no progress lines on stderr
  --help                   this text

Exit status: 0 when nothing was violated, 1 otherwise, 2 on bad flags.`;

function int(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} must be a whole number, not ${value}`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      'requests-per-route': { type: 'string' },
      'rpc-calls': { type: 'string' },
      kills: { type: 'string' },
      'no-disk': { type: 'boolean', default: false },
      'no-corruption': { type: 'boolean', default: false },
      'disk-fault': { type: 'string', default: 'auto' },
      concurrency: { type: 'string' },
      'timeout-ms': { type: 'string' },
      'rss-limit-mb': { type: 'string' },
      'oversize-mb': { type: 'string' },
      'oversized-routes': { type: 'string' },
      'max-depth': { type: 'string' },
      'huge-mb': { type: 'string' },
      'work-dir': { type: 'string' },
      keep: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const oversizedRoutes = values['oversized-routes']?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = oversizedRoutes?.filter((r) => !ROUTES.some((x) => x.name === r));
  if (unknown?.length) {
    console.error(`unknown routes: ${unknown.join(', ')} (routes: ${ROUTES.map((r) => r.name).join(', ')})`);
    process.exit(2);
  }
  const diskFault = values['disk-fault'];
  if (diskFault !== 'auto' && diskFault !== 'tmpfs' && diskFault !== 'fsize') {
    console.error(`--disk-fault must be auto, tmpfs or fsize, not ${diskFault}`);
    process.exit(2);
  }
  const options: ChaosOptions = {
    ...FULL_RUN,
    seed: int(values.seed, 'seed', 1),
    requestsPerRoute: int(values['requests-per-route'], 'requests-per-route', FULL_RUN.requestsPerRoute),
    rpcCallsPerMethod: int(values['rpc-calls'], 'rpc-calls', FULL_RUN.rpcCallsPerMethod),
    kills: int(values.kills, 'kills', FULL_RUN.kills),
    disk: !values['no-disk'],
    diskFault,
    corruption: !values['no-corruption'],
    concurrency: Math.max(1, int(values.concurrency, 'concurrency', FULL_RUN.concurrency)),
    timeoutMs: int(values['timeout-ms'], 'timeout-ms', FULL_RUN.timeoutMs),
    rssLimitMb: int(values['rss-limit-mb'], 'rss-limit-mb', FULL_RUN.rssLimitMb),
    oversizeCapMb: int(values['oversize-mb'], 'oversize-mb', FULL_RUN.oversizeCapMb),
    ...(oversizedRoutes ? { oversizedRoutes: oversizedRoutes as RouteName[] } : {}),
    limits: {
      ...FULL_RUN.limits,
      maxDepth: int(values['max-depth'], 'max-depth', FULL_RUN.limits.maxDepth),
      hugeBytes: int(values['huge-mb'], 'huge-mb', FULL_RUN.limits.hugeBytes / 2 ** 20) * 2 ** 20 || 1024,
    },
    ...(values['work-dir'] ? { workDir: values['work-dir'] } : {}),
    keep: values.keep,
    ...(values.quiet ? {} : { log: (line: string) => console.error(`[chaos] ${line}`) }),
  };
  const report = await runChaos(options);
  console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
  process.exitCode = report.violationCount ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(2);
});
