/**
 * Runs in Node before the edge suite: builds the Worker bundle exactly as a deploy would
 * (`wrangler deploy --dry-run`) into a temporary directory and hands it to the tests, which run
 * inside workerd and cannot read files themselves.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const wrangler = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
  const outdir = mkdtempSync(join(tmpdir(), 'engram-edge-bundle-'));
  try {
    execFileSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outdir], {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
      stdio: 'pipe',
    });
    const file = 'cloudflare.js';
    const bytes = readFileSync(join(outdir, file));
    project.provide('edgeBundle', { file, text: bytes.toString('utf8'), bytes: bytes.length, gzipBytes: gzipSync(bytes).length });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
