/** `npm run bench:edge`: the search-latency benchmark, inside workerd like the edge suite. */
import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';
import { edgePool, quietSourcemapWarnings } from '../../test/edge/pool-options.js';

export default defineProject({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [edgePool(), quietSourcemapWarnings()],
  test: {
    name: 'edge-bench',
    include: ['*.bench-test.ts'],
    testTimeout: 600_000,
  },
});
