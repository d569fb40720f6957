/**
 * The Vite plugin that makes the built demo an installable, offline PWA:
 * - emits the icons (SVG and PNG, drawn in ./icons.ts);
 * - copies the bundled embedding model into `models/static-en/`, so the app fetches it from its
 *   own origin (the teacher reranker's files come from `engramTeacherFiles()`; its 28 MB model is
 *   kept in the Cache API as the memory opens, not precached at install);
 * - after the app is written, builds `sw.ts` as one classic script (`sw.js`) that knows the exact
 *   list of files to precache and a cache version derived from their contents.
 * In `vite dev` it serves the model and icons from memory instead (no service worker there).
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { build, type Plugin, type ResolvedConfig } from 'vite';
import { MODEL_PATH, TEACHER_DIR } from '../config.js';
import { engramBrowserBuiltins, teacherFiles } from '../../src/bundler/vite.js';
import { iconPng, iconSvg } from './icons.js';

/** Where the model lives in the repository (it keeps the same path in the built app). */
const MODEL_SOURCE = 'models/static-en/model.bin';

/** Files generated for the icons, by path in the built app. */
function iconFiles(): Record<string, Uint8Array | string> {
  return {
    'icons/icon.svg': iconSvg(),
    'icons/icon-192.png': iconPng(192),
    'icons/icon-512.png': iconPng(512),
    'icons/icon-maskable-512.png': iconPng(512, true),
  };
}

/** Resolves `@mlc-ai/web-llm` to a stand-in (see no-webllm.ts): for the bundles that never run WebLLM. */
export function withoutWebLlm(): Plugin {
  const stub = resolve(import.meta.dirname, 'no-webllm.ts');
  return {
    name: 'engram-demo-without-webllm',
    enforce: 'pre',
    resolveId: (source) => (source === '@mlc-ai/web-llm' ? stub : null),
  };
}

/** Options of `demoPwa`. */
export interface DemoPwaOptions {
  /** Repository root (where `models/` is). */
  repoRoot: string;
  /** The service worker's source. */
  serviceWorker: string;
}

/**
 * Whether a chunk holds WebLLM, loaded only when a person asks for an LLM. The teacher's
 * TensorFlow.js chunk (0.8 MB) is precached with its WebAssembly: the memory worker loads it as it
 * opens, offline too.
 */
const isLazyChunk = (moduleIds: readonly string[]) => moduleIds.some((id) => id.includes('/@mlc-ai/web-llm/'));

/** The demo's PWA build step (see the file comment). */
export function demoPwa(options: DemoPwaOptions): Plugin {
  let config: ResolvedConfig;
  /** Chunks only loaded on demand (WebLLM, several MB): cached on first use, not precached. */
  const lazyChunks = new Set<string>();

  return {
    name: 'engram-demo-pwa',

    configResolved(resolved) {
      config = resolved;
    },

    configureServer(server) {
      const icons = iconFiles();
      server.middlewares.use((request, response, next) => {
        const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/^\//, '');
        if (path === MODEL_PATH) {
          void readFile(resolve(options.repoRoot, MODEL_SOURCE)).then((body) => {
            response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
          }, next);
          return;
        }
        const icon = icons[path];
        if (icon === undefined) return next();
        response.writeHead(200, { 'content-type': path.endsWith('.svg') ? 'image/svg+xml' : 'image/png' }).end(icon);
      });
    },

    generateBundle(_options, bundle) {
      for (const [fileName, source] of Object.entries(iconFiles())) this.emitFile({ type: 'asset', fileName, source });
      for (const output of Object.values(bundle)) {
        if (output.type === 'chunk' && isLazyChunk(output.moduleIds)) lazyChunks.add(output.fileName);
      }
    },

    async closeBundle() {
      if (config.command !== 'build') return;
      const outDir = resolve(config.root, config.build.outDir);
      await mkdir(join(outDir, 'models', 'static-en'), { recursive: true });
      await copyFile(resolve(options.repoRoot, MODEL_SOURCE), join(outDir, MODEL_PATH));
      // The teacher's files were emitted by engramTeacherFiles() (demo/vite.config.ts); its model is
      // kept by the memory worker in the Cache API (demo/main.ts), not precached.
      const teacher = teacherFiles(config.build.assetsDir, TEACHER_DIR);
      const lazyFiles = new Set([...lazyChunks, ...teacher.map(([path]) => path).filter((path) => path.startsWith(TEACHER_DIR))]);

      const removed = await removeOrphans(outDir, new Set(teacher.map(([path]) => path)));
      const files = (await listFiles(outDir)).filter((file) => file !== 'sw.js' && !file.endsWith('.map') && !lazyFiles.has(file)).sort();
      const hash = createHash('sha256');
      let bytes = 0;
      for (const file of files) {
        const content = await readFile(join(outDir, file));
        bytes += content.byteLength;
        hash.update(file).update('\0').update(content);
      }
      const version = hash.digest('hex').slice(0, 12);

      await build({
        configFile: false,
        root: config.root,
        logLevel: config.logLevel === 'error' || config.logLevel === 'silent' ? config.logLevel : 'warn',
        publicDir: false,
        plugins: [engramBrowserBuiltins(), withoutWebLlm()],
        // The language model stays out of sw.js (see sw-no-language-model.ts for why and what follows).
        // So does the teacher reranker's loader, TensorFlow.js (see sw-no-teacher.ts).
        resolve: {
          alias: [
            { find: 'wink-eng-lite-web-model', replacement: resolve(import.meta.dirname, 'sw-no-language-model.ts') },
            { find: /^.*\/models\/teacher-browser\.js$/, replacement: resolve(import.meta.dirname, 'sw-no-teacher.ts') },
          ],
        },
        define: {
          __PRECACHE_FILES__: JSON.stringify(files),
          __CACHE_VERSION__: JSON.stringify(version),
        },
        build: {
          outDir,
          emptyOutDir: false,
          copyPublicDir: false,
          target: 'es2022',
          minify: config.build.minify !== false,
          reportCompressedSize: false,
          rolldownOptions: { checks: { bundlerTimings: false } },
          lib: { entry: options.serviceWorker, formats: ['iife'], name: 'engramServiceWorker', fileName: () => 'sw.js' },
        },
      });
      // The build's one line. Printed at the `warn` level the demo's config sets (Vite's own
      // report is silenced there); a caller that asks for `error` or `silent` gets nothing.
      if (config.logLevel === 'info' || config.logLevel === 'warn') {
        const dropped = removed.length ? `; dropped ${removed.join(', ')} (no built file refers to ${removed.length === 1 ? 'it' : 'them'})` : '';
        const sw = (await stat(join(outDir, 'sw.js'))).size;
        console.log(`demo built in ${relative(process.cwd(), outDir) || '.'}: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB, precached by sw.js (${(sw / 1e6).toFixed(2)} MB, cache version ${version})${dropped}`);
      }
    },
  };
}

/**
 * Deletes emitted assets that no built file names (`kept`: files copied on purpose). The memory worker imports the model loader,
 * whose unused ONNX path makes the bundler emit onnxruntime's 28 MB wasm even though the code
 * that would load it was tree-shaken away; precaching it would cost every visitor 28 MB for nothing.
 */
async function removeOrphans(outDir: string, kept: ReadonlySet<string>): Promise<string[]> {
  const files = (await listFiles(outDir)).filter((file) => !kept.has(file));
  const texts = await Promise.all(files.filter((f) => /\.(html|js|css|webmanifest)$/.test(f)).map((f) => readFile(join(outDir, f), 'utf8')));
  const removed: string[] = [];
  for (const file of files) {
    if (!file.startsWith('assets/')) continue;
    const name = file.slice('assets/'.length);
    if (texts.some((text) => text.includes(name))) continue;
    await rm(join(outDir, file));
    removed.push(file);
  }
  return removed;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'));
}
