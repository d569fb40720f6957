/**
 * What encryption at rest costs: one commit of N records and one loadAll of them, sealed and
 * plain, over the memory store (the cost of sealing alone) and the Node SQLite store (what a
 * server sees: sealing plus the larger rows). Also the one-off open cost (header check: HKDF for
 * a key, PBKDF2 600 000 rounds for a passphrase). Each figure is the median of --runs runs.
 * `--webcrypto` seals through crypto.subtle, as browsers and workerd do, instead of node:crypto.
 *
 *   npx tsx bench/sealed-store.ts [--records 10000] [--dim 256] [--runs 5] [--webcrypto] [--json]
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { EpisodeRecord } from '../src/records.js';
import { createMemoryStore } from '../src/store/memory-store.js';
import type { StorageAdapter } from '../src/store/port.js';
import { cipherPath, useWebCryptoOnly } from '../src/store/seal-cipher.js';
import { createSealedStore, type EncryptionOptions } from '../src/store/sealed-store.js';
import { SQLITE_FILE, createSqliteStore } from '../src/store/sqlite-store.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    dim: { type: 'string', default: '256' },
    runs: { type: 'string', default: '5' },
    webcrypto: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
process.stderr.write('data: none to fetch: records are generated here\n');
const N = Number(values.records);
const DIM = Number(values.dim);
const RUNS = Number(values.runs);
useWebCryptoOnly(values.webcrypto!);
const KEY: EncryptionOptions = { key: crypto.getRandomValues(new Uint8Array(32)) };

/** Episodes of about 400 characters of text and a DIM-float vector, like the engine writes. */
function records(): EpisodeRecord[] {
  const words = 'garden tomatoes violin lessons flight Tokyo bicycle tyre invoice recipe quince'.split(' ');
  return Array.from({ length: N }, (_, i) => {
    const vector = new Float32Array(DIM);
    for (let d = 0; d < DIM; d++) vector[d] = Math.sin(i * 31 + d);
    const text = Array.from({ length: 60 }, (_, w) => words[(i + w * 7) % words.length]).join(' ');
    return {
      id: `ep_${i.toString(16).padStart(8, '0')}`, kind: 'episode', app_id: 'default', project_id: 'default', owner_type: 'user', owner_id: `u${i % 50}`,
      session_id: `s${i % 400}`, timestamp: 1_700_000_000_000 + i, created_at: 1_700_000_000_000 + i, updated_at: 1_700_000_000_000 + i,
      sender_ids: [`u${i % 50}`], source_message_ids: [`m${i}`], parent_type: null, parent_id: null, vector, vector_model: 'bench@1',
      subject: `Subject ${i}`, summary: text.slice(0, 120), episode: text,
    };
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Row {
  store: string;
  sealed: boolean;
  commitMs: number;
  loadAllMs: number;
  /** CPU time of the process (every thread) during the phase: steadier than wall time on a shared machine. */
  commitCpuMs: number;
  loadAllCpuMs: number;
  bytes?: number;
}

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function measure(label: string, sealed: boolean, open: () => Promise<{ store: StorageAdapter; size?: () => Promise<number>; dispose: () => Promise<void> }>): Promise<Row> {
  const items = records();
  const commits: number[] = [];
  const loads: number[] = [];
  const commitCpu: number[] = [];
  const loadCpu: number[] = [];
  let bytes: number | undefined;
  for (let run = 0; run < RUNS; run++) {
    const { store, size, dispose } = await open();
    const [t0, c0] = [performance.now(), cpu()];
    await store.commit({ put: items, delete: [] });
    commits.push(performance.now() - t0);
    commitCpu.push(cpu() - c0);
    const [t1, c1] = [performance.now(), cpu()];
    const loaded = await store.loadAll();
    loads.push(performance.now() - t1);
    loadCpu.push(cpu() - c1);
    if (loaded.length !== N) throw new Error(`${label}: loaded ${loaded.length} of ${N}`);
    await store.close();
    if (size) bytes = await size();
    await dispose();
  }
  return { store: label, sealed, commitMs: median(commits), loadAllMs: median(loads), commitCpuMs: median(commitCpu), loadAllCpuMs: median(loadCpu), ...(bytes === undefined ? {} : { bytes }) };
}

async function sqlite(sealed: boolean) {
  const dir = await mkdtemp(join(tmpdir(), 'engram-bench-sealed-'));
  const inner = await createSqliteStore(dir);
  return {
    store: sealed ? await createSealedStore(inner, KEY) : inner,
    size: async () => (await stat(join(dir, SQLITE_FILE))).size,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

async function openCost(encryption: EncryptionOptions): Promise<number> {
  const samples: number[] = [];
  for (let run = 0; run < 3; run++) {
    const inner = createMemoryStore();
    await createSealedStore(inner, encryption);
    const t0 = performance.now();
    await createSealedStore(inner, encryption);
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

const rows: Row[] = [];
for (const sealed of [false, true]) {
  rows.push(await measure('memory', sealed, async () => {
    const inner = createMemoryStore();
    return { store: sealed ? await createSealedStore(inner, KEY) : inner, dispose: async () => {} };
  }));
  rows.push(await measure('sqlite', sealed, () => sqlite(sealed)));
}
const open = { keyMs: await openCost(KEY), passphraseMs: await openCost({ passphrase: 'correct horse battery staple' }) };

if (values.json) {
  console.log(JSON.stringify({ records: N, dim: DIM, runs: RUNS, cipher: cipherPath(), rows, open }, null, 2));
} else {
  console.log(`${N} episodes (~400 chars, ${DIM}-dim vectors), median of ${RUNS} runs, Node ${process.version}, sealed through ${cipherPath()}`);
  console.log('store   | sealed | commit ms (cpu) | loadAll ms (cpu) | db bytes');
  const ms = (wall: number, cpuMs: number) => `${wall.toFixed(0)} (${cpuMs.toFixed(0)})`;
  for (const r of rows) console.log(`${r.store.padEnd(7)} | ${String(r.sealed).padEnd(6)} | ${ms(r.commitMs, r.commitCpuMs).padStart(15)} | ${ms(r.loadAllMs, r.loadAllCpuMs).padStart(16)} | ${r.bytes ?? ''}`);
  console.log(`open an existing sealed store: key ${open.keyMs.toFixed(1)} ms, passphrase (PBKDF2 600k) ${open.passphraseMs.toFixed(0)} ms`);
}
