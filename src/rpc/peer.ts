/**
 * One engine for many tabs. Every tab's worker is a peer on a broadcast channel named after the
 * memory; exactly one of them, the one holding the memory's Web Lock, hosts the engine. The others
 * forward each call to the host and relay its answer; the host also announces every committed
 * write, so each tab can refresh what it shows. When the host goes away (its tab closed or
 * crashed), the lock passes to a waiting peer, which opens the engine from the store and says so.
 *
 * What happens to a forwarded call whose host vanished: a read is sent again to the next host; a
 * write is rejected with STORAGE_FAILED `{ reason: 'host-lost' }`, since it may or may not have
 * been committed (an upsert with an id, or `add` with message ids, can safely be retried).
 *
 * The channel is passed in, so this module touches no platform global (Node tests use Node's own
 * BroadcastChannel).
 */
import type { Memory } from '../engine.js';
import type { Progress } from '../progress.js';
import { assertBodyDepth } from '../contract/json-bounds.js';
import { createError, isMemoryError, validationError, type MemoryError } from '../errors.js';
import type { Notice } from '../search/search.js';
import { deserializeError, serializeError, type SerializedError } from './error-transfer.js';

/** The verbs a client can call. */
export type MethodName =
  | 'add' | 'flush' | 'search' | 'searchWithTrace' | 'get' | 'delete'
  | 'upsertCase' | 'upsertSkill' | 'upsertKnowledge' | 'upsertProfile' | 'stats'
  | 'export' | 'exportMarkdown' | 'import';

export const METHODS: readonly MethodName[] = [
  'add', 'flush', 'search', 'searchWithTrace', 'get', 'delete', 'upsertCase', 'upsertSkill', 'upsertKnowledge', 'upsertProfile', 'stats',
  'export', 'exportMarkdown', 'import',
];

/**
 * What a postMessage refusal becomes: a value the structured clone cannot carry (a function, a
 * symbol, nesting deeper than its stack) is the caller's 422; catalog errors pass unchanged.
 */
export function cloneFailure(error: unknown): MemoryError {
  if (isMemoryError(error)) return error;
  const refused = error instanceof RangeError || (error instanceof Error && error.name === 'DataCloneError');
  if (!refused) return createError('INTERNAL', { message: String(error), cause: error });
  return validationError([{ loc: ['body'], msg: 'The value cannot be sent over the channel (not clonable or nested too deep)', type: 'value_not_cloneable' }]);
}

/** The request of `import` on the wire: the engine's two arguments as one clonable object. */
export interface ImportCall {
  bundle: unknown;
  mode?: 'merge' | 'replace';
}

/** How long a call sent to a host that said goodbye waits for its answer once a new host is known. */
export const GOODBYE_GRACE_MS = 2_000;

/** How long a peer that stopped hosting should stay on the channel before `close()`. */
export const GOODBYE_LINGER_MS = 250;

/** Calls that change nothing, so they can be sent again to a new host. */
const READS: ReadonlySet<MethodName> = new Set(['search', 'searchWithTrace', 'get', 'stats', 'export', 'exportMarkdown']);

/** A committed write, as every tab hears of it. */
export interface MemoryChange {
  method: MethodName;
  /** Epoch ms at the host when the write resolved. */
  at: number;
}

/** What a peer reports to its own page. */
export type PeerEvent =
  | { type: 'change'; change: MemoryChange }
  | { type: 'progress'; progress: Progress }
  | { type: 'notice'; notice: Notice };

/** The part of BroadcastChannel a peer uses. */
export interface ChannelLike {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

type Envelope =
  | { t: 'hello'; from: string }
  | { t: 'ready'; host: string }
  | { t: 'closing'; host: string }
  | { t: 'call'; id: number; from: string; to: string; method: MethodName; request: unknown }
  | { t: 'abort'; id: number; from: string; to: string }
  | { t: 'result'; id: number; to: string; ok: true; value: unknown }
  | { t: 'result'; id: number; to: string; ok: false; error: SerializedError }
  | { t: 'result'; id: number; to: string; retry: true }
  | { t: 'event'; event: PeerEvent };

interface Pending {
  method: MethodName;
  request: unknown;
  /** The host it was sent to, or null while it waits for one. */
  sentTo: string | null;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

export interface PeerOptions {
  /** Unique id of this peer. */
  id: string;
  channel: ChannelLike;
  /** Events for this peer's own page (changes, progress, notices), whoever hosts. */
  onEvent?: (event: PeerEvent) => void;
  now?: () => number;
}

export interface Peer {
  readonly id: string;
  /** True while this peer hosts the engine. */
  readonly hosting: boolean;
  /** Resolves once some peer (maybe this one) hosts the engine. */
  readonly ready: Promise<void>;
  /** Id of the peer known to host right now (maybe this one), or null between hosts. */
  readonly currentHost: string | null;
  /** Runs a verb on the host, wherever it is. */
  call(method: MethodName, request: unknown, signal?: AbortSignal): Promise<unknown>;
  /** This peer now hosts `memory` (it holds the lock and opened the engine). */
  host(memory: Memory): void;
  /** Tells everyone (this page included) about a host-side event. */
  broadcast(event: PeerEvent): void;
  /**
   * Stops hosting: later calls are sent back to be retried elsewhere; waits for running ones, then
   * closes the engine. Keep the peer open a little after this (see `GOODBYE_LINGER_MS`) so calls
   * already on their way still get their "retry".
   */
  stopHosting(): Promise<void>;
  /** Rejects every waiting call with `error` (this peer failed to host). */
  fail(error: unknown): void;
  /** Leaves the channel; waiting calls reject with CLOSED. */
  close(): void;
}

/** Runs one verb on an engine. */
export function invoke(memory: Memory, method: MethodName, request: unknown, signal?: AbortSignal): Promise<unknown> {
  const options = signal ? { signal } : {};
  switch (method) {
    case 'stats':
      return Promise.resolve(memory.stats());
    case 'get':
      return memory.get(request);
    case 'delete':
      return memory.delete(request);
    case 'upsertProfile':
      return memory.upsertProfile(request);
    case 'export':
      return memory.export();
    case 'exportMarkdown':
      return memory.exportMarkdown();
    case 'import': {
      const { bundle, mode } = (request ?? {}) as Partial<ImportCall>;
      if (mode !== undefined && mode !== 'merge' && mode !== 'replace') {
        return Promise.reject(createError('VALIDATION_FAILED', { message: 'Invalid request (mode: merge or replace)', details: [{ loc: ['mode'], msg: "Input should be 'merge' or 'replace'", type: 'enum', input: mode }] }));
      }
      return memory.import(bundle, { ...(mode === undefined ? {} : { mode }), ...options });
    }
    case 'add':
    case 'flush':
    case 'search':
    case 'searchWithTrace':
    case 'upsertCase':
    case 'upsertSkill':
    case 'upsertKnowledge':
      return memory[method](request, options);
    default:
      return Promise.reject(createError('VALIDATION_FAILED', { message: `Unknown method ${String(method)}`, details: [{ loc: ['method'], msg: 'unknown method', type: 'value_error', input: method }] }));
  }
}

function hostLost(method: MethodName): MemoryError {
  return createError('STORAGE_FAILED', {
    message: `The tab hosting this memory went away during ${method}; the write may or may not have been committed.`,
    details: { reason: 'host-lost', method },
  });
}

/** Creates a peer on `channel`. Call `host()` when this peer takes the lock. */
export function createPeer(options: PeerOptions): Peer {
  const { id, channel } = options;
  const now = options.now ?? (() => Date.now());
  const emit = (event: PeerEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // a listener's failure is its own
    }
  };

  let memory: Memory | null = null;
  let stopping = false;
  let closed = false;
  let hostId: string | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  /** Running calls this peer serves for others, by `${from}:${id}`. */
  const serving = new Map<string, AbortController>();
  let running = 0;
  let idle: (() => void) | null = null;
  /** Hosts that announced they are stopping. */
  const departed = new Set<string>();

  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const post = (message: Envelope) => {
    if (!closed) channel.postMessage(message);
  };

  /** Runs a verb on this peer's engine; every committed write is announced. */
  async function runLocal(method: MethodName, request: unknown, signal?: AbortSignal): Promise<unknown> {
    running++;
    try {
      const value = await invoke(memory!, method, request, signal);
      if (!READS.has(method)) broadcast({ type: 'change', change: { method, at: now() } });
      return value;
    } finally {
      if (--running === 0) idle?.();
    }
  }

  function send(callId: number, entry: Pending): void {
    if (hostId === null) return;
    try {
      // Too deep a request may clone here and fail to clone on the host's side, which then never
      // sees the call: it is refused before it is posted, like one postMessage refuses.
      assertBodyDepth(entry.request);
      post({ t: 'call', id: callId, from: id, to: hostId, method: entry.method, request: entry.request });
      entry.sentTo = hostId;
    } catch (error) {
      pending.delete(callId);
      entry.cleanup();
      entry.reject(cloneFailure(error));
    }
  }

  /** A new host is known: reroute what was sent to the old one, send what waited. */
  function adoptHost(newHost: string): void {
    hostId = newHost;
    let waiting = false;
    for (const [callId, entry] of pending) {
      if (entry.sentTo === newHost) continue;
      // A host that said goodbye answers everything it got (a result, or "retry"), and its answers
      // may arrive after the new host's announcement: give them time before calling the host lost.
      if (entry.sentTo !== null && departed.has(entry.sentTo)) {
        waiting = true;
        continue;
      }
      reroute(callId, entry);
    }
    if (waiting) setTimeout(() => sweep(newHost), GOODBYE_GRACE_MS);
    markReady();
  }

  /** Sends a call to the current host; one that went to a vanished host is resent (a read) or lost (a write). */
  function reroute(callId: number, entry: Pending): void {
    if (entry.sentTo !== null && !READS.has(entry.method)) {
      pending.delete(callId);
      entry.cleanup();
      entry.reject(hostLost(entry.method));
      return;
    }
    if (hostId === id) {
      pending.delete(callId);
      entry.cleanup();
      runLocal(entry.method, entry.request).then(entry.resolve, entry.reject);
    } else {
      send(callId, entry);
    }
  }

  function sweep(host: string): void {
    if (closed || hostId !== host) return;
    for (const [callId, entry] of pending) {
      if (entry.sentTo !== null && entry.sentTo !== host && departed.has(entry.sentTo)) reroute(callId, entry);
    }
  }

  function serve(message: Extract<Envelope, { t: 'call' }>): void {
    if (!memory || stopping) {
      post({ t: 'result', id: message.id, to: message.from, retry: true });
      return;
    }
    const key = `${message.from}:${message.id}`;
    const controller = new AbortController();
    serving.set(key, controller);
    const fail = (error: unknown) => post({ t: 'result', id: message.id, to: message.from, ok: false, error: serializeError(error) ?? serializeError(createError('INTERNAL', { message: String(error) }))! });
    runLocal(message.method, message.request, controller.signal).then(
      (value) => {
        // A result the channel cannot carry still gets an answer, or the caller would wait forever.
        try {
          post({ t: 'result', id: message.id, to: message.from, ok: true, value });
        } catch (error) {
          fail(cloneFailure(error));
        }
      },
      (error: unknown) => {
        try {
          fail(error);
        } catch (postError) {
          fail(cloneFailure(postError));
        }
      },
    ).finally(() => serving.delete(key));
  }

  const onMessage = (event: MessageEvent) => {
    const message = event.data as Envelope;
    if (closed || typeof message !== 'object' || message === null) return;
    switch (message.t) {
      case 'hello':
        if (memory && !stopping) post({ t: 'ready', host: id });
        return;
      case 'ready':
        if (message.host !== id) adoptHost(message.host);
        return;
      case 'closing':
        departed.add(message.host);
        if (hostId === message.host) hostId = null;
        return;
      case 'call':
        if (message.to === id) serve(message);
        return;
      case 'abort':
        if (message.to === id) serving.get(`${message.from}:${message.id}`)?.abort();
        return;
      case 'result': {
        if (message.to !== id) return;
        const entry = pending.get(message.id);
        if (!entry) return;
        if ('retry' in message) {
          // Sent to a host that was stopping, which did not run it: it goes to the next one.
          entry.sentTo = null;
          if (hostId !== null) reroute(message.id, entry);
          return;
        }
        pending.delete(message.id);
        entry.cleanup();
        if (message.ok) entry.resolve(message.value);
        else entry.reject(deserializeError(message.error));
        return;
      }
      case 'event':
        emit(message.event);
        return;
    }
  };
  channel.addEventListener('message', onMessage);
  post({ t: 'hello', from: id });

  function broadcast(event: PeerEvent): void {
    post({ t: 'event', event });
    emit(event);
  }

  return {
    id,
    get hosting() {
      return memory !== null && !stopping;
    },
    ready,
    get currentHost() {
      return hostId;
    },

    call(method, request, signal) {
      if (closed) return Promise.reject(createError('CLOSED'));
      if (signal?.aborted) return Promise.reject(createError('ABORTED', { cause: signal.reason }));
      if (memory && !stopping) return runLocal(method, request, signal);
      return new Promise((resolve, reject) => {
        const callId = nextId++;
        const onAbort = () => {
          const entry = pending.get(callId);
          if (!entry) return;
          if (entry.sentTo === null) {
            pending.delete(callId);
            entry.cleanup();
            reject(createError('ABORTED', { cause: signal?.reason }));
          } else {
            // The host decides: the write may already be past the point of no return.
            post({ t: 'abort', id: callId, from: id, to: entry.sentTo });
          }
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const entry: Pending = { method, request, sentTo: null, resolve, reject, cleanup: () => signal?.removeEventListener('abort', onAbort) };
        pending.set(callId, entry);
        send(callId, entry);
      });
    },

    host(opened) {
      memory = opened;
      stopping = false;
      adoptHost(id);
      post({ t: 'ready', host: id });
    },

    broadcast,

    async stopHosting() {
      if (!memory) return;
      stopping = true;
      if (hostId === id) hostId = null;
      post({ t: 'closing', host: id });
      if (running > 0) await new Promise<void>((resolve) => (idle = resolve));
      idle = null;
      const engine = memory;
      memory = null;
      await engine.close();
    },

    fail(error) {
      for (const [callId, entry] of pending) {
        pending.delete(callId);
        entry.cleanup();
        entry.reject(error);
      }
    },

    close() {
      if (closed) return;
      for (const [callId, entry] of pending) {
        pending.delete(callId);
        entry.cleanup();
        entry.reject(createError('CLOSED'));
      }
      for (const controller of serving.values()) controller.abort();
      closed = true;
      channel.removeEventListener('message', onMessage);
    },
  };
}

