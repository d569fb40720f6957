import { defineConfig } from 'vitest/config';

/**
 * One `vitest run` runs every suite: Node unit tests, browser tests (real Chromium driven from
 * Node) and, through their own config, the edge tests inside workerd.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Each file launches its own Chromium; two at once on a 2-core machine only slows both.
          fileParallelism: false,
        },
      },
      {
        test: {
          // npm pack, then the tarball installed and used in a fresh project (test/pack/).
          name: 'pack',
          include: ['test/pack/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 900_000,
        },
      },
      'test/edge/vitest.config.ts',
    ],
  },
});
