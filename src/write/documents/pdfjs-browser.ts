/**
 * The pdfjs loader for a bundled browser host (the memory worker): literal imports of the modern
 * build, which Vite splits into a chunk fetched the first time a PDF arrives. The parser runs on
 * the calling thread, which is already a worker: pdfjs picks up a `pdfjsWorker` it finds on the
 * global object instead of spawning one of its own (its documented "fake worker" path).
 */
import type { PdfjsApi } from './pdf.js';

/** Loads pdfjs and its parser for use inside a worker. */
export async function loadBrowserPdfjs(): Promise<PdfjsApi> {
  const worker = await import('pdfjs-dist/build/pdf.worker.mjs');
  (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= worker;
  // `pdfjs-dist` is the modern build (its package `main`).
  return (await import('pdfjs-dist')) as unknown as PdfjsApi;
}
