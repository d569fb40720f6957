import { defineConfig } from 'vite';

/**
 * `npm run build`: the library as ES modules in dist/lib — the engine (`index`) and the browser
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
    },
  },
  worker: { format: 'es' },
});
