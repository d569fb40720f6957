/**
 * The in-page half of the worker tests: opens memories through `createMemoryClient` (the real
 * worker, comlink and IndexedDB) and answers the Node side as plain data. Errors are flattened to
 * `{ name, code, status, details, … }` here, after they crossed comlink, because `page.evaluate`
 * would keep only their message.
 */
import { createMemoryClient, type MemoryChange, type MemoryClient, type MemoryClientOptions } from '../../../src/client.js';
import type { Notice } from '../../../src/search/search.js';
import type { Progress } from '../../../src/engine.js';
import { isMemoryError, MemoryError } from '../../../src/errors.js';
import type { WorkerStatus } from '../../../worker/memory.worker.js';

/** An error after it crossed the worker boundary, as the test sees it. */
export interface PageError {
  name: string;
  message: string;
  code?: string;
  status?: number;
  details?: unknown;
  isMemoryError: boolean;
  isMemoryErrorInstance: boolean;
}

/** `createMemoryClient`'s encryption option as page.evaluate can carry it (key bytes as numbers). */
export type PageEncryption = { key: number[] } | { passphrase: string };

export type Outcome<T = unknown> = { ok: true; value: T } | { ok: false; error: PageError };

export interface MemoryPage {
  /** Opens a memory through createMemoryClient (the bundled model unless `modelUrl` is given). */
  open(name: string, modelUrl?: string, llm?: MemoryClientOptions['llm'], encryption?: PageEncryption, reranker?: MemoryClientOptions['reranker']): Promise<Outcome<WorkerStatus>>;
  /** The engine's notices of degraded paths, in order. */
  notices(name: string): Notice[];
  status(name: string): Promise<WorkerStatus>;
  call(name: string, method: keyof MemoryClient, request?: unknown): Promise<Outcome>;
  /** Calls `method` with a signal that aborts after `afterMs`. */
  callWithAbort(name: string, method: keyof MemoryClient, request: unknown, afterMs: number): Promise<Outcome>;
  changes(name: string): MemoryChange[];
  progress(name: string): Progress[];
  /** Writes knowledge items `Record <i>` for i in [from, to), `concurrency` calls in flight; each resolved write is reported to `reportWrite` if the test exposed it. */
  /**
   * Writes records `from`..`to` with `concurrency` lanes. With `holdAfter`, once that many writes
   * resolved each lane sends one more write and then stops waiting for anything: the ingest is
   * still under way (writes in flight, more to come) whenever the test kills the tab, however slow
   * the machine is.
   */
  ingest(name: string, user: string, from: number, to: number, concurrency: number, holdAfter?: number): Promise<Outcome<number>>;
  /** Every knowledge item of `user`, listed page by page. */
  listKnowledge(name: string, user: string): Promise<{ id: string; title: string }[]>;
  storage(name: string): Promise<Outcome<{ persisted: boolean; estimate: { usage?: number; quota?: number; persisted: boolean } }>>;
  close(name: string): Promise<void>;
  /** Terminates every worker this page started, with no goodbye. */
  terminateWorkers(): number;
}

// Every worker the page starts is remembered, so a test can kill one the way the browser would.
const workers: Worker[] = [];
globalThis.Worker = class extends Worker {
  constructor(url: string | URL, options?: WorkerOptions) {
    super(url, options);
    workers.push(this);
  }
};

const clients = new Map<string, MemoryClient>();
const changeLog = new Map<string, MemoryChange[]>();
const progressLog = new Map<string, Progress[]>();
const noticeLog = new Map<string, Notice[]>();
const MODEL_URL = new URL('/models/static-en/model.bin', location.href);

function flatten(error: unknown): PageError {
  const e = error as { name?: unknown; message?: unknown; code?: unknown; status?: unknown; details?: unknown };
  return {
    name: String(e?.name),
    message: String(e?.message),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.status === 'number' ? { status: e.status } : {}),
    ...(e?.details === undefined ? {} : { details: e.details }),
    isMemoryError: isMemoryError(error),
    isMemoryErrorInstance: error instanceof MemoryError,
  };
}

async function outcome<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error: flatten(error) };
  }
}

function client(name: string): MemoryClient {
  const found = clients.get(name);
  if (!found) throw new Error(`memory ${name} is not open in this page`);
  return found;
}

const invoke = (c: MemoryClient, method: keyof MemoryClient, request: unknown, options?: { signal: AbortSignal }) =>
  (c[method] as (request: unknown, options?: { signal: AbortSignal }) => Promise<unknown>)(request, options);

const page: MemoryPage = {
  open: (name, modelUrl, llm, encryption, reranker) =>
    outcome(async () => {
      changeLog.set(name, []);
      progressLog.set(name, []);
      noticeLog.set(name, []);
      const c = await createMemoryClient({
        name,
        modelUrl: modelUrl ?? MODEL_URL,
        onChange: (change) => changeLog.get(name)?.push(change),
        onProgress: (p) => progressLog.get(name)?.push(p),
        onNotice: (n) => noticeLog.get(name)?.push(n),
        ...(llm ? { llm } : {}),
        ...(reranker ? { reranker } : {}),
        ...(encryption ? { encryption: 'key' in encryption ? { key: Uint8Array.from(encryption.key) } : encryption } : {}),
      });
      clients.set(name, c);
      return c.status();
    }),
  status: (name) => client(name).status(),
  call: (name, method, request) => outcome(() => invoke(client(name), method, request)),
  callWithAbort: (name, method, request, afterMs) =>
    outcome(() => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), afterMs);
      return invoke(client(name), method, request, { signal: controller.signal });
    }),
  changes: (name) => changeLog.get(name) ?? [],
  progress: (name) => progressLog.get(name) ?? [],
  notices: (name) => noticeLog.get(name) ?? [],
  ingest: (name, user, from, to, concurrency, holdAfter) =>
    outcome(async () => {
      const c = client(name);
      const report = (globalThis as { reportWrite?: (i: number) => Promise<void> }).reportWrite;
      let next = from;
      let done = 0;
      const lane = async () => {
        while (next < to) {
          const i = next++;
          const write = c.upsertKnowledge({ user_id: user, title: `Record ${i}`, content: `Record ${i} is about item number ${i} in the ${i % 2 ? 'blue' : 'green'} series.` });
          if (holdAfter !== undefined && done >= holdAfter) {
            void write.then(() => report?.(i));
            await new Promise(() => undefined); // held until the tab dies
          }
          await write;
          done++;
          void report?.(i);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, lane));
      return done;
    }),
  async listKnowledge(name, user) {
    const c = client(name);
    const out: { id: string; title: string }[] = [];
    for (let n = 1; ; n++) {
      const { data } = await c.get({ user_id: user, memory_type: 'knowledge', page: n, page_size: 100, sort_by: 'created_at', sort_order: 'asc' });
      const items = data.episodes as unknown as { id: string; subject: string }[];
      for (const item of items) out.push({ id: item.id, title: item.subject });
      if (items.length < 100) return out;
    }
  },
  storage: (name) =>
    outcome(async () => {
      const c = client(name);
      const persisted = await c.requestPersistentStorage();
      return { persisted, estimate: await c.storageEstimate() };
    }),
  async close(name) {
    await clients.get(name)?.close();
    clients.delete(name);
  },
  terminateWorkers() {
    for (const worker of workers) worker.terminate();
    return workers.length;
  },
};

(globalThis as unknown as { memoryPage: MemoryPage }).memoryPage = page;
