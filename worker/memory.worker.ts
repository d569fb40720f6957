/// <reference lib="webworker" />
/**
 * The memory worker: one per tab and memory, spawned by `createMemoryClient`. It queues for the
 * memory's Web Lock (`engram:<name>`); the worker holding it opens the engine over IndexedDB and
 * serves every tab, the others forward their calls to it (see src/rpc/peer.ts). The page talks to
 * this worker over comlink; errors keep their code, status and details on the way back.
 *
 * The engine's code is part of this script, not a chunk loaded once the reads started: loaded that
 * way it answered `init` sooner, but the chunk's fetch and compile ran on this thread alongside the
 * reads and, on a loaded machine, ended after them (up to 1.0 s from navigation against `init` at
 * 0.35 s), holding up the open.
 */
import { expose, type Remote } from 'comlink';
import type { Memory, Progress } from '../src/engine.js';
import { createError, isAbortError } from '../src/errors.js';
import { registerErrorTransfer } from '../src/rpc/error-transfer.js';
import { createPeer, GOODBYE_LINGER_MS, METHODS, type MethodName, type Peer, type PeerEvent } from '../src/rpc/peer.js';
import { openEngine, type WorkerLlmOptions, type WorkerRerankerOptions } from './open-engine.js';
import { createPdfjsReader } from '../src/write/documents/pdf.js';
import { loadBrowserPdfjs } from '../src/write/documents/pdfjs-browser.js';

// PDF text is read in this worker; pdfjs is a chunk of its own, fetched with the first PDF.
const pdf = createPdfjsReader(loadBrowserPdfjs);
import { createIndexedDbStore } from '../src/store/indexeddb-store.js';
import { checkEncryption, type EncryptionOptions } from '../src/store/sealed-store.js';

registerErrorTransfer();

/** Options the client posts at start-up (structured-clone-safe). */
export interface WorkerInitOptions {
  name: string;
  /** Absolute URL of the static embedding model (models/static-en/model.bin served from your origin). */
  modelUrl: string;
  /** Cache API cache for the model file, or null to fetch it every time. */
  modelCache: string | null;
  durability?: IDBTransactionDurability;
  autoRadius?: number;
  llm?: WorkerLlmOptions;
  reranker?: WorkerRerankerOptions;
  encryption?: EncryptionOptions;
}

/** Where this worker stands. */
export interface WorkerStatus {
  role: 'host' | 'follower';
  peerId: string;
  /** Milliseconds since `timeOrigin` at which each start-up step ended (this worker's own hosting only). */
  marks: Record<string, number>;
  /** The worker's `performance.timeOrigin`, to put the marks on another clock. */
  timeOrigin: number;
}

/** What the worker exposes over comlink. */
export interface MemoryWorkerApi {
  init(options: WorkerInitOptions, onEvent: (event: PeerEvent) => void): Promise<WorkerStatus>;
  call(method: MethodName, request: unknown, abortPort?: MessagePort): Promise<unknown>;
  status(): WorkerStatus;
  close(): Promise<void>;
}

const marks: Record<string, number> = {};
const mark = (step: string) => {
  marks[step] = Math.round(performance.now() * 10) / 10;
};

// When this worker's modules were evaluated (its time origin is when the worker was created).
mark('script');
let peer: Peer | null = null;
let channel: BroadcastChannel | null = null;
let failure: unknown = null;
let closing = false;
let releaseLock: (() => void) | null = null;
let lockHeld: Promise<unknown> = Promise.resolve();
const lockQueue = new AbortController();

function status(): WorkerStatus {
  if (!peer) throw createError('CLOSED', { message: 'The memory worker was not started.' });
  return { role: peer.hosting ? 'host' : 'follower', peerId: peer.id, marks: { ...marks }, timeOrigin: performance.timeOrigin };
}

const api: MemoryWorkerApi = {
  async init(options, onEvent) {
    if (peer) throw createError('INTERNAL', { message: 'The memory worker was already started.' });
    if (!navigator.locks || typeof BroadcastChannel === 'undefined') {
      // Without a lock two tabs could both write; refusing is safer than a memory that forks.
      throw createError('STORAGE_FAILED', { message: 'This browser has no Web Locks or BroadcastChannel here (both need a secure context: https or localhost).', details: { reason: 'unsupported' } });
    }
    mark('init');
    const relay = (event: PeerEvent) => {
      // A page that went away leaves the call pending; it must not become an unhandled rejection.
      void Promise.resolve((onEvent as unknown as Remote<(e: PeerEvent) => void>)(event)).catch(() => undefined);
    };
    channel = new BroadcastChannel(`engram:${options.name}`);
    const me = createPeer({ id: crypto.randomUUID(), channel, onEvent: relay });
    peer = me;

    let rejectHosting!: (error: unknown) => void;
    const hostingFailed = new Promise<never>((_, reject) => (rejectHosting = reject));
    hostingFailed.catch(() => undefined);

    lockHeld = navigator.locks
      .request(`engram:${options.name}`, { signal: lockQueue.signal }, async () => {
        if (closing) return;
        mark('lock');
        let memory: Memory;
        try {
          memory = await openEngine(options, { onProgress: (progress: Progress) => me.broadcast({ type: 'progress', progress }), onEvent: (event: PeerEvent) => me.broadcast(event), mark, pdf });
        } catch (error) {
          failure = error;
          me.fail(error);
          rejectHosting(error);
          return; // releases the lock: another tab may succeed where this one failed
        }
        const held = new Promise<void>((resolve) => (releaseLock = resolve));
        if (!closing) {
          me.host(memory);
          await held;
        }
        await me.stopHosting();
        await memory.close();
      })
      .catch((error: unknown) => {
        if (!isAbortError(error)) rejectHosting(error);
      });

    await Promise.race([me.ready, hostingFailed]);
    // A tab served by another tab's host never opens the store: it must still hold the right key.
    if (!me.hosting) await followerKeyCheck(options).catch((error: unknown) => {
      failure = error;
      throw error;
    });
    return status();
  },

  async call(method, request, abortPort) {
    if (failure) throw failure;
    if (!peer) throw createError('CLOSED', { message: 'The memory worker was not started.' });
    if (!METHODS.includes(method)) throw createError('VALIDATION_FAILED', { message: `Unknown method ${String(method)}`, details: [{ loc: ['method'], msg: 'unknown method', type: 'value_error', input: method }] });
    if (!abortPort) return peer.call(method, request);
    const controller = new AbortController();
    abortPort.onmessage = (event) => controller.abort(event.data);
    try {
      return await peer.call(method, request, controller.signal);
    } finally {
      abortPort.close();
    }
  },

  status,

  async close() {
    if (closing) return;
    closing = true;
    lockQueue.abort(); // leave the queue if the lock was not ours yet
    const hosted = releaseLock !== null;
    releaseLock?.();
    await lockHeld;
    // Calls other tabs sent before they heard our goodbye still get their "retry".
    if (hosted) await new Promise((resolve) => setTimeout(resolve, GOODBYE_LINGER_MS));
    peer?.close();
    channel?.close();
  },
};

/** The key check of a follower: the header alone is read (another tab's engine owns the data). */
async function followerKeyCheck(options: WorkerInitOptions): Promise<void> {
  const store = await createIndexedDbStore(options.name, { prefetch: false });
  try {
    await checkEncryption(store, options.encryption);
  } finally {
    await store.close();
  }
}

expose(api);
