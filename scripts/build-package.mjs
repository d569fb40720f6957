/**
 * `npm run build`: the package's dist/ — every module of src/ and worker/ as ES modules with
 * .d.ts beside them (tsc, tsconfig.build.json), and the bundled model copied to dist/models/, so
 * that dist/ has the repository's own layout and each module finds the model at the same relative
 * URL from both places. Stale output is removed first: a deleted source must not ship.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const dir of ['dist/src', 'dist/worker', 'dist/models', 'dist/.tsbuildinfo']) rmSync(root + dir, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [root + 'node_modules/typescript/bin/tsc', '-p', root + 'tsconfig.build.json'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
cpSync(root + 'models/static-en', root + 'dist/models/static-en', { recursive: true });
chmodSync(root + 'dist/src/cli/main.js', 0o755);
