/**
 * A sentence encoder that runs on a thread of its own: a Node worker thread (teacher-thread.ts) or
 * a Web Worker beside the memory worker (teacher-browser.ts). TensorFlow.js runs each model call
 * to its end without yielding, so on the caller's thread one cold rerank (about 100 unseen lines,
 * over a second) would hold every other call of that thread.
 *
 * Both threads speak one protocol: first `{ ready: true }` or `{ ready: false, error }`, then each
 * `{ id, texts }` is answered `{ id, dims, flat }` (the vectors row after row, transferred) or
 * `{ id, error }`. A thread that dies fails the calls waiting on it; the next call starts a new one.
 */

/** What the caller's side needs of a thread, whatever the platform. */
export interface EncoderThread {
  post(message: { id: number; texts: string[] }): void;
  /** Every message the thread posts. */
  onMessage(listener: (message: ThreadMessage) => void): void;
  /** The thread died (an error, an exit); called at most once per cause, maybe more than once. */
  onGone(listener: (why: string) => void): void;
  terminate(): Promise<unknown> | void;
  /** Node only: whether the thread keeps the process alive (held while a call waits). */
  hold?(held: boolean): void;
}

/** A message from the thread. */
export interface ThreadMessage {
  ready?: boolean;
  id?: number;
  dims?: number;
  flat?: Float32Array;
  error?: string;
}

/** A sentence encoder on its own thread, with a way to stop the thread. */
export interface RemoteEncoder {
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Stops the thread; calls waiting on it fail, a later call starts a new one. */
  close(): Promise<void>;
}

/**
 * Starts a thread with `spawn` and waits until its model has loaded; a model that cannot load
 * rejects here with the thread's message (the caller maps it to MODEL_UNAVAILABLE).
 */
export async function startRemoteEncoder(spawn: () => EncoderThread, label = 'The encoder thread'): Promise<RemoteEncoder> {
  let thread: EncoderThread | null = null;
  let starting: Promise<EncoderThread> | null = null;
  let nextId = 0;
  const waiting = new Map<number, { resolve: (rows: Float32Array[]) => void; reject: (error: Error) => void }>();

  const failAll = (message: string) => {
    for (const { reject } of waiting.values()) reject(new Error(message));
    waiting.clear();
  };

  const start = () => new Promise<EncoderThread>((resolve, reject) => {
    const t = spawn();
    let loaded = false;
    t.onMessage((message) => {
      if (!loaded) {
        if (message.ready) {
          loaded = true;
          thread = t;
          t.hold?.(waiting.size > 0);
          resolve(t);
        } else {
          void t.terminate();
          reject(new Error(message.error ?? `${label} did not start.`));
        }
        return;
      }
      const call = message.id === undefined ? undefined : waiting.get(message.id);
      if (!call) return;
      waiting.delete(message.id!);
      if (waiting.size === 0) t.hold?.(false);
      if (message.error !== undefined || !message.flat) return call.reject(new Error(message.error ?? `${label} returned no vectors.`));
      const dims = message.dims ?? 0;
      const rows: Float32Array[] = [];
      for (let i = 0; dims > 0 && i < message.flat.length / dims; i++) rows.push(message.flat.subarray(i * dims, (i + 1) * dims));
      call.resolve(rows);
    });
    t.onGone((why) => {
      if (thread === t) thread = null;
      if (!loaded) reject(new Error(why));
      else failAll(why);
    });
  });

  const running = async (): Promise<EncoderThread> => {
    if (thread) return thread;
    starting ??= start().finally(() => {
      starting = null;
    });
    return starting;
  };

  await running();
  return {
    async embed(texts) {
      if (texts.length === 0) return [];
      const t = await running();
      const id = nextId++;
      const rows = new Promise<Float32Array[]>((resolve, reject) => waiting.set(id, { resolve, reject }));
      t.hold?.(true);
      t.post({ id, texts });
      return rows;
    },
    async close() {
      const t = thread;
      thread = null;
      if (!t) return;
      failAll(`${label} was closed.`);
      await t.terminate();
    },
  };
}

/**
 * The thread's side of the protocol: loads with `load`, says whether it is ready, then answers
 * each `{ id, texts }` with the rows `embed` gives (flattened and transferred) or the error.
 */
export function serveEncoder(port: { postMessage(message: unknown, transfer?: Transferable[]): void }, load: Promise<{ embed(texts: string[]): Promise<ArrayLike<number>[]> }>): (message: { id: number; texts: string[] }) => Promise<void> {
  const describe = (error: unknown) => String((error as Error | undefined)?.message ?? error);
  load.then(
    () => port.postMessage({ ready: true }),
    (error: unknown) => port.postMessage({ ready: false, error: describe(error) }),
  );
  return async ({ id, texts }) => {
    try {
      const model = await load;
      const rows = await model.embed(texts);
      const dims = rows[0]?.length ?? 0;
      const flat = new Float32Array(rows.length * dims);
      rows.forEach((row, i) => flat.set(row, i * dims));
      port.postMessage({ id, dims, flat }, [flat.buffer]);
    } catch (error) {
      port.postMessage({ id, error: describe(error) });
    }
  };
}
