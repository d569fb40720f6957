/**
 * The Workers pool options shared by the edge suite and the edge benchmark: the repository's
 * wrangler.toml, nothing remote (runs offline, no Cloudflare login), and API_KEYS made from the
 * test keys of keys.ts. Runs in Node, when vitest loads a config.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import type { Plugin } from 'vite';
import { TEST_TENANCIES } from './keys.js';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The pool plugin configured for this repository's Worker. */
export function edgePool(): ReturnType<typeof cloudflareTest> {
  const apiKeys = Object.fromEntries(
    Object.values(TEST_TENANCIES).map(({ key, app_id, project_id }) => [createHash('sha256').update(key).digest('hex'), { app_id, project_id }]),
  );
  return cloudflareTest({
    wrangler: { configPath: `${ROOT}/wrangler.toml` },
    remoteBindings: false,
    miniflare: { bindings: { API_KEYS: JSON.stringify(apiKeys), EMBEDDER: 'static' } },
  });
}

/**
 * A plugin that drops Vite's warnings about dependency sourcemaps naming missing sources: the pool
 * transforms @orama/orama, whose published maps point at files it does not ship. (Vitest replaces
 * `customLogger`, so the resolved logger is patched instead.)
 */
export function quietSourcemapWarnings(): Plugin {
  const noise = /^Sourcemap for .* points to missing source files/;
  return {
    name: 'engram:quiet-sourcemap-warnings',
    configResolved(config) {
      const { logger } = config;
      const warnOnce = logger.warnOnce.bind(logger);
      logger.warnOnce = (message, options) => void (noise.test(message) || warnOnce(message, options));
    },
  };
}
