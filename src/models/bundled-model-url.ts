/**
 * The URL of the bundled static embedding model inside the installed package, for browser apps
 * (`engram-memory/model`). The literal `new URL('…', import.meta.url)` is what bundlers (Vite,
 * webpack 5, Rollup with its URL plugin) recognise: they copy model.bin into the build and
 * rewrite the URL, so nobody copies model files by hand. Only apps that import this module get
 * the 9.5 MB file; the engine itself never names it this way (load-static-model.ts).
 *
 * @example
 * import { createMemoryClient } from 'engram-memory/client';
 * import { modelUrl } from 'engram-memory/model';
 * const memory = await createMemoryClient({ name: 'notes', modelUrl });
 */

/** model.bin of the bundled English static model. */
export const modelUrl: URL = new URL('../../models/static-en/model.bin', import.meta.url);
