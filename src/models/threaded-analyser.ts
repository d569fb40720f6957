/**
 * The rules extractor with its tagging on worker threads (Node). Tagging (wink-nlp: tokens,
 * sentence boundaries, part of speech) is about a quarter of the write path's CPU; on a thread
 * of its own it runs beside the rules, which read message k while message k + 1 is tagged, and
 * the event loop that serves requests is not held by it. What is extracted is the same: the
 * same model tags the same texts, and a text a thread could not tag is tagged on the calling
 * thread instead. Node only: the engine's core, the browser and workerd use `createRulesExtractor`.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Extractor } from '../write/extraction.js';
import { createRulesExtractor, type Analyser } from '../write/rules-extractor.js';
import type { Sentence } from '../write/sentences.js';
import { unpackSentences } from '../write/sentence-wire.js';
import type { AnalyserReply, AnalyserRequest } from './analyser-worker.js';

export interface ThreadedAnalyserOptions {
  /** Worker threads (default: one per core beyond the first, between 1 and 4). */
  threads?: number;
}

export interface ThreadedAnalyser {
  analyse: Analyser;
  /** Stops the threads (a later `analyse` starts them again). */
  close(): Promise<void>;
}

interface Slot {
  resolve: (sentences: Sentence[]) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  /** Unanswered texts by batch id. */
  batches: Map<number, (Slot | undefined)[]>;
  /** Texts sent and not answered yet. */
  load: number;
}

const MAX_FAILURES = 3;

/** A worker running `analyser-worker`; from TypeScript sources (tests, benches) it loads them through tsx, as this thread does. */
function spawn(): Worker {
  const self = import.meta.url;
  if (!self.endsWith('.ts')) return new Worker(new URL('./analyser-worker.js', self));
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(new URL('./analyser-worker.ts', self).href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
}

/** Starts nothing until the first texts come; idle threads do not keep the process alive. */
export function createThreadedAnalyser(options: ThreadedAnalyserOptions = {}): ThreadedAnalyser {
  const size = Math.max(1, Math.floor(options.threads ?? Math.min(4, availableParallelism() - 1)));
  const threads: Thread[] = [];
  let nextId = 0;
  // Threads that fail again and again (a worker that cannot start here) are given up: tagging
  // then stays on the calling thread, where it always works, instead of paying a start per write.
  let failures = 0;

  const settle = (thread: Thread, answered: number) => {
    thread.load -= answered;
    if (thread.load === 0) thread.worker.unref();
  };

  const fail = (thread: Thread, error: Error) => {
    const at = threads.indexOf(thread);
    if (at < 0) return;
    threads.splice(at, 1);
    failures++;
    for (const batch of thread.batches.values()) for (const slot of batch) slot?.reject(error);
    thread.batches.clear();
  };

  const start = (): Thread => {
    const thread: Thread = { worker: spawn(), batches: new Map(), load: 0 };
    thread.worker.unref();
    thread.worker.on('message', (reply: AnalyserReply) => {
      const batch = thread.batches.get(reply.id);
      if (!batch) return;
      if ('error' in reply) {
        let answered = 0;
        for (const slot of batch) if (slot) (answered++, slot.reject(new Error(reply.error)));
        thread.batches.delete(reply.id);
        settle(thread, answered);
        return;
      }
      const slot = batch[reply.i];
      if (!slot) return;
      batch[reply.i] = undefined;
      if (reply.i === batch.length - 1) thread.batches.delete(reply.id);
      settle(thread, 1);
      slot.resolve('packed' in reply ? unpackSentences(reply.packed) : (reply.sentences as Sentence[]));
    });
    thread.worker.on('error', (error) => fail(thread, error));
    thread.worker.on('exit', (code) => fail(thread, new Error(`the tagging thread stopped (exit code ${code})`)));
    threads.push(thread);
    return thread;
  };

  /** The least loaded thread, or a new one while the pool is not full and every thread is busy. */
  const pick = (): Thread => {
    let best: Thread | undefined;
    for (const t of threads) if (!best || t.load < best.load) best = t;
    return best && (best.load === 0 || threads.length >= size) ? best : start();
  };

  return {
    analyse(texts) {
      if (failures >= MAX_FAILURES) throw new Error('the tagging threads failed; tagging stays on this thread');
      if (texts.length === 0) return [];
      const thread = pick();
      const id = nextId++;
      const slots: Slot[] = [];
      const promises = texts.map(() => new Promise<Sentence[]>((resolve, reject) => slots.push({ resolve, reject })));
      thread.batches.set(id, slots);
      if (thread.load === 0) thread.worker.ref();
      thread.load += texts.length;
      thread.worker.postMessage({ id, texts: [...texts] } satisfies AnalyserRequest);
      return promises;
    },
    async close() {
      const stopping = threads.splice(0);
      for (const t of stopping) t.worker.removeAllListeners('exit');
      for (const t of stopping) for (const batch of t.batches.values()) for (const slot of batch) slot?.reject(new Error('the tagging threads were stopped'));
      await Promise.all(stopping.map((t) => t.worker.terminate()));
    },
  };
}

/** The rules extractor tagging on worker threads; `close` stops them. */
export function createThreadedRulesExtractor(options: ThreadedAnalyserOptions = {}): Extractor & { close(): Promise<void> } {
  const analyser = createThreadedAnalyser(options);
  return { ...createRulesExtractor({ analyser: analyser.analyse }), close: () => analyser.close() };
}
