/**
 * The in-browser half of test/browser/webllm.test.ts. It runs the WebLLM provider where it is
 * meant to run and reports outcomes as plain data: a MemoryError does not survive
 * `page.evaluate` or `postMessage` with its `code`, so errors are flattened to `{name, code, …}`.
 * The same module is the page script and the Web Worker script.
 */

import { isMemoryError } from '../../src/errors.js';
import { createWebLlm, detectWebGpu } from '../../src/models/webllm-llm.js';
import type { LlmLoadProgress, WebGpuAdapterSummary } from '../../src/models/webllm-llm.js';

/** An error as it crosses back to the test. */
export interface ProbeError {
  name: string;
  code?: string;
  status?: number;
  message: string;
  details?: unknown;
}

/** The result of one probe: a value or an error, and how long it took. */
export type ProbeOutcome<T> = ({ ok: true; value: T } | { ok: false; error: ProbeError }) & { elapsedMs: number };

/** A model record pointing at URLs of the test server. */
export interface ProbeModel {
  /** Base URL of the weights (WebLLM appends `resolve/main/…`). */
  modelUrl: string;
  modelLibUrl: string;
  loadTimeoutMs: number;
}

/** What the page exposes as `globalThis.webllmProbe`. */
export interface WebLlmProbe {
  detect(): Promise<ProbeOutcome<WebGpuAdapterSummary>>;
  load(model: ProbeModel): Promise<ProbeOutcome<{ progress: LlmLoadProgress[] }>>;
  /** Removes `navigator.gpu` from this page, as a browser without WebGPU would. */
  hideWebGpu(): void;
  /** Runs `detect` and then `load` inside a dedicated module worker. */
  inWorker(model: ProbeModel): Promise<{ detect: ProbeOutcome<WebGpuAdapterSummary>; load: ProbeOutcome<{ progress: LlmLoadProgress[] }> }>;
}

function flatten(error: unknown): ProbeError {
  if (isMemoryError(error)) return { name: error.name, code: error.code, status: error.status, message: error.message, details: error.details };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: typeof error, message: String(error) };
}

async function timed<T>(work: () => Promise<T>): Promise<ProbeOutcome<T>> {
  const started = performance.now();
  try {
    const value = await work();
    return { ok: true, value, elapsedMs: performance.now() - started };
  } catch (error) {
    return { ok: false, error: flatten(error), elapsedMs: performance.now() - started };
  }
}

const detect = (): Promise<ProbeOutcome<WebGpuAdapterSummary>> => timed(detectWebGpu);

const load = (model: ProbeModel): Promise<ProbeOutcome<{ progress: LlmLoadProgress[] }>> => {
  const progress: LlmLoadProgress[] = [];
  return timed(async () => {
    const modelId = 'engram-probe-q4f16_1-MLC';
    const llm = await createWebLlm({
      model: modelId,
      appConfig: { model_list: [{ model: model.modelUrl, model_id: modelId, model_lib: model.modelLibUrl }] },
      loadTimeoutMs: model.loadTimeoutMs,
      onProgress: (p) => progress.push(p),
    });
    await llm.close();
    return { progress };
  });
};

const inWorkerScope = typeof document === 'undefined';

if (inWorkerScope) {
  const scope = globalThis as unknown as { onmessage: ((event: MessageEvent<ProbeModel>) => void) | null; postMessage(message: unknown): void };
  scope.onmessage = (event) => {
    void (async () => {
      const detected = await detect();
      const loaded = await load(event.data);
      scope.postMessage({ detect: detected, load: loaded });
    })();
  };
} else {
  const probe: WebLlmProbe = {
    detect,
    load,
    hideWebGpu: () => {
      Object.defineProperty(navigator, 'gpu', { value: undefined, configurable: true });
    },
    inWorker: (model) =>
      new Promise((resolve, reject) => {
        const worker = new Worker(new URL('./webllm-probe.ts', import.meta.url), { type: 'module' });
        worker.onmessage = (event: MessageEvent<Awaited<ReturnType<WebLlmProbe['inWorker']>>>) => {
          worker.terminate();
          resolve(event.data);
        };
        worker.onerror = (event) => {
          worker.terminate();
          reject(new Error(`worker failed: ${event.message}`));
        };
        worker.postMessage(model);
      }),
  };
  (globalThis as unknown as { webllmProbe: WebLlmProbe }).webllmProbe = probe;
}
