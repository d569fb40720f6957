/**
 * `npm run repair -- --data ./.engram`: rebuilds a Node store that opens with STORAGE_CORRUPT from
 * its intact rows (see src/store/sqlite-repair.ts). Run it with the server stopped. It prints what
 * it kept and what it could not, and where the damaged file and the full report now are.
 */
import { parseArgs } from 'node:util';
import { repairSqliteStore } from '../src/store/sqlite-repair.js';

const { values } = parseArgs({ options: { data: { type: 'string', default: './.engram' } } });
try {
  const report = await repairSqliteStore(values.data!);
  console.log(`kept ${report.kept} items and ${report.meta_kept.length} metadata keys`);
  for (const d of report.damaged) console.log(`damaged, not kept: ${d.id} (${d.problem})`);
  for (const u of report.unreadable) console.log(`unreadable rows between rowid ${u.after_rowid ?? 'start'} and ${u.before_rowid ?? 'end'}: ${u.error}`);
  for (const key of report.meta_damaged) console.log(`damaged metadata, not kept: ${key}`);
  console.log(`damaged database kept as ${report.damaged_file}; report in ${report.report_file}${report.damaged_rows_file ? `; damaged rows' text in ${report.damaged_rows_file}` : ''}`);
  process.exitCode = report.damaged.length || report.unreadable.length || report.meta_damaged.length ? 2 : 0;
} catch (error) {
  const code = (error as { code?: unknown }).code;
  console.error(`${typeof code === 'string' ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
