/**
 * Builds the offline demo: `vite build --config demo/vite.config.ts` writes it to dist/demo
 * (the app, the memory worker, the service worker, the model and the icons). `npm start` builds
 * and serves it; `npm run dev:demo` runs it under Vite's dev server, without the service worker.
 */
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { demoPwa } from './build/pwa-plugin.js';

const demoRoot = import.meta.dirname;
const repoRoot = resolve(demoRoot, '..');

export default defineConfig(({ command }) => ({
  root: demoRoot,
  // Relative URLs: the built app works from any path it is served under.
  base: './',
  publicDir: resolve(demoRoot, 'public'),
  define: { __SERVICE_WORKER__: JSON.stringify(command === 'build') },
  // Module workers, so the memory worker may `await import()` like the page does.
  worker: { format: 'es' },
  server: { host: '127.0.0.1', port: 5173, strictPort: true, fs: { allow: [repoRoot] } },
  preview: { host: '127.0.0.1', port: 5173, strictPort: true },
  build: {
    outDir: resolve(repoRoot, 'dist', 'demo'),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    // WebLLM is several MB; it is loaded only when a person asks for an LLM.
    chunkSizeWarningLimit: 8_000,
  },
  plugins: [demoPwa({ repoRoot, serviceWorker: resolve(demoRoot, 'sw.ts') })],
}));
