/**
 * The deployable Worker bundle (built by global-setup.ts with `wrangler deploy --dry-run`) holds
 * the engine and none of the browser-only model runtimes, and stays far below the size limits
 * because the embedding model ships as a static asset.
 */
import { describe, expect, inject, it } from 'vitest';

describe('the Worker bundle', () => {
  const bundle = inject('edgeBundle');

  it('is the real bundle: it holds the engine, the store and the Worker', () => {
    // esbuild marks every bundled module with a `// path` comment: the checks below rely on it.
    for (const module of ['src/engine.ts', 'src/store/durable-object-store.ts', 'src/models/static-embedder.ts', 'worker/cloudflare.ts', 'node_modules/@orama/orama/']) {
      expect(bundle.text).toContain(`// ${module}`);
    }
  });

  it('contains no onnxruntime-web and no WebLLM', () => {
    expect(bundle.text).not.toMatch(/node_modules\/onnxruntime-web|node_modules\/onnxruntime-common/);
    expect(bundle.text).not.toMatch(/InferenceSession|ort-wasm|ortWasm/);
    expect(bundle.text).not.toMatch(/node_modules\/@mlc-ai\/web-llm|CreateMLCEngine|MLCEngine/);
    expect(bundle.text).not.toMatch(/src\/models\/(onnx-static-embedder|webllm-llm|load-static-model)\.ts/);
  });

  it('contains no pdfjs: PDFs are kept by reference at the edge (docs/multimodal.md)', () => {
    expect(bundle.text).not.toMatch(/node_modules\/pdfjs-dist|src\/write\/documents\/pdfjs-browser\.ts/);
  });

  it('does not carry the model weights and fits the Free plan', () => {
    // The rules extractor's English model (wink, ~3 MB of tables) and its first-name lists (~1 MB)
    // are in the bundle; the 9.5 MB embedding model must not be. Cloudflare limits the compressed
    // size (Free plan: 3 MiB).
    expect(bundle.bytes).toBeLessThan(7 * 1024 * 1024);
    expect(bundle.gzipBytes).toBeLessThan(3 * 1024 * 1024);
    console.log(`${bundle.file}: ${(bundle.bytes / 1024).toFixed(1)} KiB raw, ${(bundle.gzipBytes / 1024).toFixed(1)} KiB gzip`);
  });
});
