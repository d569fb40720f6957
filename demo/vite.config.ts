/**
 * Builds the offline demo: `vite build --config demo/vite.config.ts` writes it to dist/demo
 * (the app, the memory worker, the service worker, the model and the icons). `npm start` builds
 * and serves it; `npm run dev:demo` runs it under Vite's dev server, without the service worker.
 *
 * A build prints one line (the PWA plugin's summary) and real warnings, nothing else: `npm start`
 * is the first command a newcomer runs, and a page of asset sizes and bundler timings reads as
 * trouble. `vite build --config demo/vite.config.ts --logLevel info` shows Vite's full report.
 */
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { engramBrowserBuiltins, engramTeacherFiles } from '../src/bundler/vite.js';
import { demoPwa, withoutWebLlm } from './build/pwa-plugin.js';
import { TEACHER_DIR } from './config.js';

const demoRoot = import.meta.dirname;
const repoRoot = resolve(demoRoot, '..');

export default defineConfig(({ command }) => ({
  root: demoRoot,
  // Quiet builds only: the dev server's banner (its URL) is printed at the info level.
  logLevel: command === 'build' ? 'warn' : 'info',
  // Relative URLs: the built app works from any path it is served under.
  base: './',
  publicDir: resolve(demoRoot, 'public'),
  define: { __SERVICE_WORKER__: JSON.stringify(command === 'build') },
  // Module workers, so the memory worker may `await import()` like the page does. WebLLM runs in
  // the page only: the worker gets a stand-in, so the build ships WebLLM's runtime once.
  worker: { format: 'es', plugins: () => [engramBrowserBuiltins(), withoutWebLlm()], rolldownOptions: { checks: { bundlerTimings: false } } },
  server: { host: '127.0.0.1', port: 5173, strictPort: true, fs: { allow: [repoRoot] } },
  preview: { host: '127.0.0.1', port: 5173, strictPort: true },
  build: {
    outDir: resolve(repoRoot, 'dist', 'demo'),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    // WebLLM is several MB; it is loaded only when a person asks for an LLM.
    chunkSizeWarningLimit: 8_000,
    // Rolldown's plugin timing report is for whoever tunes the build, not for every build.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  plugins: [engramBrowserBuiltins(), engramTeacherFiles({ dir: TEACHER_DIR }), demoPwa({ repoRoot, serviceWorker: resolve(demoRoot, 'sw.ts') })],
}));
