import { defineConfig } from 'vite';
import { engramBrowserBuiltins } from './src/bundler/vite.js';

/**
 * `npm run build:bundle`: the library bundled as ES modules in dist/lib — the engine (`index`) and the browser
 * client (`client`, which bundles its Web Worker). Dependencies stay external; the bundled model
 * is not copied (serve models/static-en/ from your own origin). The demo and the Cloudflare Worker
 * have their own builds (`npm run build:demo`, `npm run build:edge`).
 */
export default defineConfig({
  build: {
    outDir: 'dist/lib',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    lib: {
      entry: { index: 'src/index.ts', client: 'src/client.ts' },
      formats: ['es'],
    },
    rollupOptions: {
      external: [/^@orama\//, /^@mlc-ai\//, /^@huggingface\//, 'comlink', 'idb', 'onnxruntime-web', /^node:/],
      // Rolldown's plugin timing report is for whoever tunes the build, not for every build.
      checks: { bundlerTimings: false },
    },
  },
  // The Web Worker runs only in browsers: its `node:fs/promises` (the model loader's Node path)
  // resolves to a stub instead of an externalized module and a warning. The engine (`index`)
  // keeps the real one: it also runs in Node.
  worker: { format: 'es', plugins: () => [engramBrowserBuiltins()], rolldownOptions: { checks: { bundlerTimings: false } } },
});
