/**
 * `npm run bench:fact-scan`: what the rules write for every LongMemEval-S session, as one hash per
 * session and protocol, and two such scans compared. A change to the write path moves the README's
 * LongMemEval tables only through the sessions whose episodes, facts, profiles or entity graph it
 * changes; a scan before and after says which those are (none: no table built on the rules can
 * move) and which questions' haystacks hold them, before any of `npm run bench:lanes`' hours are spent.
 *
 *   npm run bench:fact-scan -- --out FILE [--jobs 2] [--data PATH] [--searchable]
 *   npm run bench:fact-scan -- --compare OLD_FILE --with NEW_FILE [--data PATH]
 *
 * Each session is extracted as `bench:quality` adds it (fillHaystack: its own session, sender ids
 * "user" and "assistant", no names, each turn a second apart) under the three protocols (`user`:
 * the user's turns; `all`: both sides; `other`: both, roles swapped), with a fresh extractor per
 * scan process. The extractor's whole answer is hashed (episodes with subject, summary, narrative,
 * facts with evidence and dates, foresight, profiles, cases, the entity graph; `--searchable`: all
 * but the graph, which no search reads, so two such scans say which sessions search sees
 * change; compare scans made the same way). About nine minutes
 * on two cores for 19,133 sessions. Named sessions (`--names`), days haystacks (three sessions as
 * one) and `--haystack few` are not scanned: a change they would see and these do not is one
 * about names or about text across sessions.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BufferedMessage } from '../src/records.js';
import { createRulesExtractor } from '../src/write/rules-extractor.js';
import { loadDataset, parseHaystackDate, protocolTurns, questionHalf, sideOf, type Dataset, type Protocol } from './longmemeval.js';

const PROTOCOLS: Protocol[] = ['user', 'all', 'other'];

/** Every session once, in the dataset's order, with the date it was first held. */
function sessionsOf(dataset: Dataset): [string, string][] {
  const dates = new Map<string, string>();
  for (const q of dataset.questions) q.haystack_session_ids.forEach((id, i) => dates.has(id) || dates.set(id, q.haystack_dates[i]!));
  return [...dates];
}

/**
 * `id protocol hash length` lines for the sessions whose index is `part` modulo `parts`. With
 * `searchable`, the hash leaves out the entity graph, which search never reads (the graph API
 * does): a change that only retypes who or what a name is moves no retrieval table.
 */
async function scanPart(dataset: Dataset, part: number, parts: number, searchable = false): Promise<string[]> {
  const extractor = createRulesExtractor();
  const lines: string[] = [];
  for (const [n, [id, date]] of sessionsOf(dataset).entries()) {
    if (n % parts !== part) continue;
    const at = parseHaystackDate(date);
    for (const protocol of PROTOCOLS) {
      const turns = protocolTurns(dataset, id, protocol);
      if (turns.length === 0) continue;
      const messages = turns.map(({ turn, index }, seq) => {
        const side = sideOf(turn, protocol);
        return { kind: 'message', id: `s0t${index}`, app_id: 'default', project_id: 'default', session_id: 's0', seq, sender_id: side, sender_name: null, role: side, timestamp: at + index * 1000, content: turn.content, tool_calls: null, tool_call_id: null, message_id: `m${index}` } as BufferedMessage;
      });
      const out = await extractor.extract({ id: 'scan', app_id: 'default', project_id: 'default', session_id: 's0', messages });
      const text = JSON.stringify(searchable ? { ...out, graph: undefined } : out);
      lines.push(`${id}\t${protocol}\t${createHash('sha1').update(text).digest('hex').slice(0, 16)}\t${text.length}`);
    }
  }
  return lines;
}

/** Runs `jobs` scan processes (this file with --part) and joins their lines, sorted. */
async function scan(out: string, jobs: number, data: string | undefined, searchable: boolean): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const parts = await Promise.all(Array.from({ length: jobs }, (_, part) => new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', self, '--part', String(part), '--parts', String(jobs), ...(data ? ['--data', data] : []), ...(searchable ? ['--searchable'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`scan part ${part} exited with ${code}`))));
  })));
  const lines = parts.flatMap((p) => p.split('\n').filter(Boolean)).sort();
  writeFileSync(out, `${lines.join('\n')}\n`);
  console.log(`${lines.length} session × protocol hashes into ${out}`);
}

/** The sessions whose hash differs between two scans, by protocol, and the questions that hold them. */
export function compareScans(old: string, now: string): { changed: Map<Protocol, Set<string>>; missing: number } {
  const read = (text: string) => new Map(text.split('\n').filter(Boolean).map((l) => { const [id, protocol, hash] = l.split('\t'); return [`${id}\t${protocol}`, hash!]; }));
  const a = read(old);
  const b = read(now);
  const changed = new Map<Protocol, Set<string>>(PROTOCOLS.map((p) => [p, new Set()]));
  let missing = 0;
  for (const [key, hash] of a) {
    if (!b.has(key)) missing++;
    else if (b.get(key) !== hash) {
      const [id, protocol] = key.split('\t') as [string, Protocol];
      changed.get(protocol)!.add(id);
    }
  }
  return { changed, missing: missing + [...b.keys()].filter((k) => !a.has(k)).length };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' }, jobs: { type: 'string', default: '2' }, data: { type: 'string' }, compare: { type: 'string' }, with: { type: 'string' }, part: { type: 'string' }, parts: { type: 'string' }, searchable: { type: 'boolean', default: false } } });
  if (values.part !== undefined) {
    const dataset = await loadDataset(values.data);
    process.stdout.write(`${(await scanPart(dataset, Number(values.part), Number(values.parts), values.searchable)).join('\n')}\n`);
    return;
  }
  if (values.compare) {
    if (!values.with) throw new Error('--compare OLD_FILE needs --with NEW_FILE');
    const { changed, missing } = compareScans(readFileSync(values.compare, 'utf8'), readFileSync(values.with, 'utf8'));
    if (missing) console.log(`${missing} session × protocol lines are in one scan only: were both scans of the same data?`);
    const dataset = await loadDataset(values.data);
    for (const protocol of PROTOCOLS) {
      const ids = changed.get(protocol)!;
      const questions = dataset.questions.filter((q) => q.haystack_session_ids.some((s) => ids.has(s)));
      const half = (h: string) => questions.filter((q) => questionHalf(q.question_id) === h).length;
      console.log(`${protocol}: ${ids.size} sessions changed; ${questions.length} questions hold one (report half ${half('report')}, fit half ${half('fit')})`);
    }
    const all = new Set(PROTOCOLS.flatMap((p) => [...changed.get(p)!]));
    console.log(all.size === 0 ? 'No session changed: no table built on the rules can move.' : `${all.size} sessions changed in all: ${[...all].slice(0, 10).join(', ')}${all.size > 10 ? ', …' : ''}`);
    return;
  }
  if (!values.out) throw new Error('--out FILE (scan) or --compare OLD_FILE --with NEW_FILE');
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs must be a whole number of 1 or more, not ${values.jobs}`);
  await scan(values.out, jobs, values.data, values.searchable);
}

// Run as a script (`npm run bench:fact-scan`), not when a test imports `compareScans`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
