/**
 * The edge suite: tests that run inside workerd through @cloudflare/vitest-pool-workers, against
 * the Worker and Durable Object configured by the repository's wrangler.toml, with API_KEYS made
 * from keys.ts. Storage is isolated per test file.
 *
 * The root is this directory whether the config runs alone (`npm run test:edge`) or as a project
 * of the root config, which always roots a project at its config's directory.
 */
import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';
import { edgePool, quietSourcemapWarnings } from './pool-options.js';

export default defineProject({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [edgePool(), quietSourcemapWarnings()],
  test: {
    name: 'edge',
    include: ['*.test.ts'],
    globalSetup: ['global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
