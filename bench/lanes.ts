/**
 * `npm run bench:lanes`: every benchmark run whose output a number in the README comes from, as one
 * list (`lanes-list.ts`), run in parallel into a folder, and two such folders compared. A change to
 * the write path or to search moves numbers in many tables at once; with this, rerunning them all is
 * one command, and what moved is a diff of the two folders rather than a reading of each table.
 *
 *   npm run bench:lanes -- --out DIR [--jobs 2] [--only REGEX] [--skip-teacher] [--durations OLD_DIR]
 *   npm run bench:lanes -- --compare OLD_DIR --with NEW_DIR
 *   npm run bench:lanes -- --list
 *
 * Each lane's standard output and error go to `DIR/<id>.txt`, its exit status and seconds to
 * `DIR/<id>.status`. All of them take hours on two cores, more than one sitting may hold: run again
 * into the same DIR, a lane that already ended with status 0 is kept and the rest run, as long as
 * the source is the one the folder was started from (`DIR/SOURCE`: the commit and a hash of any
 * change to it); from any other source the run stops before it starts. Lines that only report
 * time (ms per search, seconds taken, messages per second) are left out of the comparison: they
 * move from run to run on a shared machine.
 *
 * The lanes start longest first, so the short ones fill in around the long ones and the run ends
 * soon after the longest lane. Without `--durations`, "longest" is a guess: teacher lanes, then the
 * others in list order; with it, the seconds each lane took in OLD_DIR (an earlier run, of any
 * source) order them. A lane that reads another's file always waits for it and goes last.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LANES, type Lane } from './lanes-list.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A line that only says how long something took, or how fast it went. */
const TIMING = /\bms\/search\b|\b\d+(?:\.\d+)? ?ms\b|\b\d+ s\b|\bper (?:CPU )?second\b|messages\/s\b|\btook\b/i;

/** The lines of a lane's output that carry its results, in order. */
export function resultLines(text: string): string[] {
  return text.split('\n').map((l) => l.trimEnd()).filter((l) => l && !TIMING.test(l));
}

/** The result lines two outputs do not share, as `-` (old only) and `+` (new only), in each one's order. */
export function changedLines(old: string, now: string): string[] {
  const a = resultLines(old);
  const b = resultLines(now);
  const inA = new Map<string, number>();
  for (const l of a) inA.set(l, (inA.get(l) ?? 0) + 1);
  const inB = new Map<string, number>();
  for (const l of b) inB.set(l, (inB.get(l) ?? 0) + 1);
  const only = (lines: string[], other: Map<string, number>, mark: string) => {
    const left = new Map(other);
    return lines.flatMap((l) => {
      const n = left.get(l) ?? 0;
      if (n > 0) {
        left.set(l, n - 1);
        return [];
      }
      return [`${mark} ${l}`];
    });
  };
  return [...only(a, inB, '-'), ...only(b, inA, '+')];
}

async function runLane(lane: Lane, out: string): Promise<{ rc: number | null; seconds: number }> {
  const started = performance.now();
  const file = createWriteStream(join(out, `${lane.id}.txt`));
  const argv = lane.argv.map((a) => a.replaceAll('{out}', out));
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(file, { end: false });
  child.stderr.pipe(file, { end: false });
  const rc = await new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve) => file.end(resolve));
  const seconds = Math.round((performance.now() - started) / 1000);
  writeFileSync(join(out, `${lane.id}.status`), `rc ${rc}\nseconds ${seconds}\n`);
  return { rc, seconds };
}

/** The commit checked out here and a hash of what differs from it (tracked changes and new files). */
export function sourceIdentity(cwd = ROOT): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });
  const head = git('rev-parse', 'HEAD').trim();
  const changes = git('diff', 'HEAD', '--binary') + git('ls-files', '--others', '--exclude-standard');
  return changes ? `${head} with changes ${createHash('sha256').update(changes).digest('hex').slice(0, 16)}` : head;
}

/** Each lane's `.status` file in `dir` (its exit status and seconds), by lane id. */
function statusFiles(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const f of readdirSync(dir)) if (f.endsWith('.status')) found.set(f.slice(0, -'.status'.length), readFileSync(join(dir, f), 'utf8'));
  return found;
}

/** The lanes of `out` that ended with status 0, when `out` was started from `source`; an error when from another. */
export function keptLanes(out: string, source: string): Set<string> {
  const file = join(out, 'SOURCE');
  if (!existsSync(file)) {
    const earlier = existsSync(out) && readdirSync(out).some((f) => f.endsWith('.status'));
    if (earlier) throw new Error(`${out} holds lanes but no SOURCE to say what they ran: use another folder`);
    return new Set();
  }
  const was = readFileSync(file, 'utf8').trim();
  if (was !== source) throw new Error(`${out} holds lanes of ${was}; this tree is ${source}: use another folder`);
  const kept = new Set<string>();
  for (const [id, status] of statusFiles(out)) if (/^rc 0$/m.test(status)) kept.add(id);
  return kept;
}

/** The seconds each lane took in an earlier run's folder (its `.status` files). */
export function laneSeconds(dir: string): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const [id, status] of statusFiles(dir)) {
    const match = /^seconds (\d+)$/m.exec(status);
    if (match) seconds.set(id, Number(match[1]));
  }
  return seconds;
}

/**
 * The order lanes start in: longest first (by `seconds` where a lane has a time; one without is
 * taken as longer than any timed one, as a new lane may be), teacher lanes before the others when
 * nothing is timed, list order among equals; a lane that reads another's file last.
 */
export function laneOrder(lanes: readonly Lane[], seconds: ReadonlyMap<string, number> = new Map()): Lane[] {
  const weight = (l: Lane) => (l.after ? -1 : seconds.size ? (seconds.get(l.id) ?? Infinity) : l.teacher ? 2 : 1);
  // Array.prototype.sort is stable: equal weights keep the list's order.
  return [...lanes].sort((a, b) => {
    const wa = weight(a);
    const wb = weight(b);
    // Not wb - wa: two untimed lanes (Infinity) would give NaN.
    return wa === wb ? 0 : wb > wa ? 1 : -1;
  });
}

async function run(out: string, jobs: number, all: readonly Lane[], seconds?: ReadonlyMap<string, number>): Promise<void> {
  const source = sourceIdentity();
  const kept = keptLanes(out, source);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'SOURCE'), `${source}\n`);
  const lanes = all.filter((l) => !kept.has(l.id));
  if (kept.size) console.log(`${all.length - lanes.length} lanes kept from an earlier run of ${source}`);
  // A lane that reads another's file goes after it (it then waits for that lane, which has started
  // by the time it is picked).
  const queue = laneOrder(lanes, seconds);
  const started = new Map<string, Promise<number | null>>(all.filter((l) => kept.has(l.id)).map((l) => [l.id, Promise.resolve(0)]));
  let failed = 0;
  const worker = async () => {
    for (let lane = queue.shift(); lane; lane = queue.shift()) {
      const before = lane.after ? started.get(lane.after) : undefined;
      if (lane.after && !before && all.some((l) => l.id === lane!.after)) throw new Error(`${lane.id} reads ${lane.after}, which has not started`);
      const done = (async () => {
        if (before && (await before) !== 0) return null;
        const { rc, seconds } = await runLane(lane!, out);
        console.log(`${lane!.id}: ${rc === 0 ? 'done' : `exit ${rc}`} in ${seconds} s`);
        return rc;
      })();
      started.set(lane.id, done);
      const rc = await done;
      if (rc !== 0) failed++;
      if (rc === null && before) console.log(`${lane.id}: not run, ${lane.after} failed`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  console.log(`${lanes.length} lanes into ${out}${failed ? `; ${failed} failed` : ''}`);
  if (failed) process.exitCode = 1;
}

function compare(old: string, now: string): void {
  const ids = readdirSync(now).filter((f) => f.endsWith('.txt')).map((f) => f.slice(0, -4)).sort();
  let moved = 0;
  for (const id of ids) {
    const before = join(old, `${id}.txt`);
    if (!existsSync(before)) {
      console.log(`${id}: only in ${now}`);
      continue;
    }
    const lines = changedLines(readFileSync(before, 'utf8'), readFileSync(join(now, `${id}.txt`), 'utf8'));
    if (lines.length === 0) continue;
    moved++;
    const lane = LANES.find((l) => l.id === id);
    console.log(`\n${id}${lane ? ` (README: ${lane.readme})` : ''}:\n${lines.join('\n')}`);
  }
  console.log(`\n${moved} of ${ids.length} lanes moved`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      jobs: { type: 'string', default: '2' },
      only: { type: 'string' },
      'skip-teacher': { type: 'boolean', default: false },
      durations: { type: 'string' },
      compare: { type: 'string' },
      with: { type: 'string' },
      list: { type: 'boolean', default: false },
    },
  });
  const only = values.only ? new RegExp(values.only) : null;
  const lanes = LANES.filter((l) => (!only || only.test(l.id)) && !(values['skip-teacher'] && l.teacher));
  if (values.list) {
    for (const l of lanes) console.log(`${l.id}${l.teacher ? ' (teacher)' : ''}${l.after ? ` (after ${l.after})` : ''}: ${l.argv.join(' ')}\n    README: ${l.readme}`);
    return;
  }
  if (values.compare) {
    if (!values.with) throw new Error('--compare OLD_DIR needs --with NEW_DIR');
    compare(values.compare, values.with);
    return;
  }
  if (!values.out) throw new Error('--out DIR (run the lanes), --compare OLD_DIR --with NEW_DIR, or --list');
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs must be a whole number of 1 or more, not ${values.jobs}`);
  await run(values.out, jobs, lanes, values.durations ? laneSeconds(values.durations) : undefined);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
