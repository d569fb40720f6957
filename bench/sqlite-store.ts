/**
 * The Node SQLite store at size and under damage, as figures rather than timed assertions:
 *
 * - `--mb 100`: writes a store of about that many MB (episodes with 1.5 KB of text and a
 *   384-float vector, 1 000 per batch), closes it, and times the reopen (open with its
 *   integrity_check and schema check, then `loadAll` with every row's checksum) and one forgetting
 *   delete (row delete, then a WAL checkpoint).
 * - `--profile-rounds 60`: upserts one 9 MB profile that many times, then reports the files' size
 *   and the reopen time (an append-only log grew by 9 MB a round).
 * - `--flips`: flips one bit of every byte of a small database in turn and counts what reopening
 *   gave: STORAGE_CORRUPT, or everything back unchanged. Anything else is printed and fails the run.
 *
 *   npx tsx bench/sqlite-store.ts [--mb 100] [--profile-rounds 60] [--flips [--stride 1]] [--json]
 */
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isMemoryError } from '../src/errors.js';
import type { EpisodeRecord, ProfileRecord, StoredItem } from '../src/records.js';
import { itemToJson } from '../src/store/serialize.js';
import { SQLITE_FILE, createSqliteStore } from '../src/store/sqlite-store.js';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '100' },
    'profile-rounds': { type: 'string', default: '60' },
    flips: { type: 'boolean', default: false },
    stride: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
process.stderr.write('data: none to fetch: records are generated here (1.5 KB of text and a 384-float vector each)\n');
const figures: Record<string, unknown> = {};
const say = (line: string) => {
  if (!values.json) console.log(line);
};

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

const MB = 1024 * 1024;
const ms = (start: number) => Math.round(performance.now() - start);

function episode(i: number): EpisodeRecord {
  const words = 'garden tomatoes violin lessons flight Tokyo bicycle tyre invoice recipe quince harbour'.split(' ');
  const vector = new Float32Array(384);
  for (let d = 0; d < vector.length; d++) vector[d] = Math.sin(i * 31 + d);
  const text = Array.from({ length: 240 }, (_, w) => words[(i + w * 7) % words.length]).join(' ');
  return {
    id: `ep_${i.toString(16).padStart(8, '0')}`, kind: 'episode', app_id: 'default', project_id: 'default', owner_type: 'user', owner_id: `u${i % 50}`,
    session_id: `s${i}`, timestamp: 1_700_000_000_000 + i, created_at: 1_700_000_000_000 + i, updated_at: 1_700_000_000_000 + i,
    sender_ids: [`u${i % 50}`], source_message_ids: [`m${i}`], parent_type: null, parent_id: null, vector, vector_model: 'bench@384',
    subject: text.slice(0, 80), summary: text.slice(0, 300), episode: text,
  };
}

async function bigStore(targetMb: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'engram-bench-sqlite-'));
  try {
    const store = await createSqliteStore(dir);
    let i = 0;
    const start = performance.now();
    while ((await dirBytes(dir)) < targetMb * MB) {
      await store.commit({ put: Array.from({ length: 1000 }, () => episode(i++)), delete: [] });
    }
    const writeMs = ms(start);
    await store.close();
    const bytes = (await stat(join(dir, SQLITE_FILE))).size;
    const openStart = performance.now();
    const again = await createSqliteStore(dir);
    const openMs = ms(openStart);
    const loadStart = performance.now();
    const items = await again.loadAll();
    const loadMs = ms(loadStart);
    // A forgetting delete of one record: a row delete and a WAL checkpoint, not a rewrite of the store.
    const purgeStart = performance.now();
    await again.commit({ put: [], delete: [items[items.length >> 1]!.id], purge: true });
    const purgeMs = ms(purgeStart);
    await again.close();
    Object.assign(figures, { big_store: { records: items.length, db_mb: +(bytes / MB).toFixed(1), write_ms: writeMs, open_ms: openMs, load_all_ms: loadMs, reopen_ms: openMs + loadMs, purge_one_ms: purgeMs } });
    say(`${items.length} records, ${(bytes / MB).toFixed(1)} MB database: written in ${writeMs} ms; reopen ${openMs} ms (open, integrity_check, schema) + ${loadMs} ms (loadAll, checksums) = ${openMs + loadMs} ms; a forgetting delete of one record ${purgeMs} ms`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function profileRounds(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'engram-bench-sqlite-'));
  try {
    const store = await createSqliteStore(dir);
    const base = episode(0);
    const profile = (round: number) => ({
      ...base, kind: 'profile', id: 'pf:default/default/u0', vector: null, vector_model: null,
      profile_data: { round, likes: Array.from({ length: 9000 }, (_, i) => `${round}-${i}-${'l'.repeat(1000)}`) },
    }) as unknown as ProfileRecord;
    const start = performance.now();
    let peak = 0;
    for (let round = 0; round < rounds; round++) {
      await store.commit({ put: [profile(round)], delete: [] });
      peak = Math.max(peak, await dirBytes(dir));
    }
    const writeMs = ms(start);
    await store.close();
    const bytes = await dirBytes(dir);
    const reopenStart = performance.now();
    const again = await createSqliteStore(dir);
    const [loaded] = (await again.loadAll()) as StoredItem[] as ProfileRecord[];
    const reopenMs = ms(reopenStart);
    await again.close();
    if (loaded?.profile_data['round'] !== rounds - 1) throw new Error('the last round did not come back');
    Object.assign(figures, { profile_rounds: { rounds, profile_mb: 9, write_ms: writeMs, peak_dir_mb: +(peak / MB).toFixed(1), closed_dir_mb: +(bytes / MB).toFixed(1), reopen_ms: reopenMs } });
    say(`${rounds} upserts of a 9 MB profile in ${writeMs} ms; directory peak ${(peak / MB).toFixed(1)} MB, ${(bytes / MB).toFixed(1)} MB once closed; reopen ${reopenMs} ms`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function flips(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'engram-bench-sqlite-'));
  try {
    const source = join(dir, 'source');
    const store = await createSqliteStore(source);
    await store.commit({ put: Array.from({ length: 30 }, (_, i) => episode(i)), delete: [] });
    await store.commit({ put: [], delete: ['ep_00000003', 'ep_00000011'] });
    await store.setMeta('embedder', { id: 'bench@384', dim: 384 });
    const want = (await store.loadAll()).map(itemToJson).sort().join('\n');
    await store.close();
    const clean = await readFile(join(source, SQLITE_FILE));
    const counts = { corrupt: 0, intact: 0 };
    const violations: string[] = [];
    const copy = join(dir, 'copy');
    const stride = Math.max(1, Number(values.stride));
    for (let offset = 0; offset < clean.length; offset += stride) {
      const damaged = Buffer.from(clean);
      damaged[offset] = damaged[offset]! ^ (1 << offset % 8);
      await rm(copy, { recursive: true, force: true });
      await mkdir(copy);
      await writeFile(join(copy, SQLITE_FILE), damaged);
      try {
        const reopened = await createSqliteStore(copy);
        try {
          const got = (await reopened.loadAll()).map(itemToJson).sort().join('\n');
          const meta = await reopened.getMeta('embedder');
          if (got !== want || JSON.stringify(meta) !== '{"id":"bench@384","dim":384}') violations.push(`byte ${offset}: opened with different data`);
          else counts.intact++;
        } finally {
          await reopened.close();
        }
      } catch (error) {
        if (isMemoryError(error) && error.code === 'STORAGE_CORRUPT') counts.corrupt++;
        else violations.push(`byte ${offset}: ${isMemoryError(error) ? error.code : 'untyped'} ${String(error)}`);
      }
    }
    Object.assign(figures, { flips: { bytes: clean.length, stride, ...counts, violations: violations.length } });
    say(`${clean.length}-byte database, a single-bit flip every ${stride} byte(s): ${counts.corrupt} STORAGE_CORRUPT, ${counts.intact} opened with everything intact, ${violations.length} violations`);
    for (const v of violations.slice(0, 20)) say(`  ${v}`);
    if (violations.length) process.exitCode = 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (Number(values.mb) > 0) await bigStore(Number(values.mb));
if (Number(values['profile-rounds']) > 0) await profileRounds(Number(values['profile-rounds']));
if (values.flips) await flips();
if (values.json) console.log(JSON.stringify(figures));
