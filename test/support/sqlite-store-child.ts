/**
 * A second process for the SQLite store's tests (run with `node --import tsx`): `hold DIR` opens
 * the store, writes one item and keeps the directory until killed; `write DIR` commits batches in
 * a loop and prints `ACK <id>` after each commit resolves, until it is killed. Only a real process
 * can hold an OS lock against the test or die half-way through a write.
 */
import { createSqliteStore } from '../../src/store/sqlite-store.js';
import { fact } from './storage-contract-cases.js';

const [mode, dir] = process.argv.slice(2);
if (!dir || (mode !== 'hold' && mode !== 'write')) throw new Error('usage: sqlite-store-child.ts hold|write DIR');
const store = await createSqliteStore(dir);
if (mode === 'hold') {
  await store.commit({ put: [fact('held-by-child')], delete: [] });
  process.stdout.write('READY\n');
  setInterval(() => undefined, 1 << 30);
} else {
  for (let i = 0; ; i++) {
    const id = `w${String(i).padStart(6, '0')}`;
    // Each batch also deletes the item two batches back, so acknowledged deletes are checked too.
    const gone = i >= 2 ? [`w${String(i - 2).padStart(6, '0')}`] : [];
    await store.commit({ put: [fact(id, `written by the child ${'x'.repeat(2000)}`)], delete: i % 2 === 0 ? gone : [] });
    process.stdout.write(`ACK ${id}${i % 2 === 0 && gone.length ? ` DEL ${gone[0]}` : ''}\n`);
  }
}
