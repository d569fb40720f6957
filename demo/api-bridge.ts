/**
 * The EverOS HTTP API, answered inside the service worker from the memory on this device, so an
 * app written against EverOS works offline against the user's own browser.
 *
 * One engine per memory, always: the service worker never opens a second engine beside a tab's.
 * It joins the memory's BroadcastChannel as a peer (src/rpc/peer.ts) and forwards each request to
 * whichever peer holds the Web Lock `engram:<name>`, normally a tab's memory worker. When no tab
 * has the memory open, the lock is free: the service worker takes it and hosts the engine itself,
 * opened by the same code as the memory worker (worker/open-engine.ts), and gives the lock back
 * after a short idle, or as soon as a tab queues for it, so tabs remain the usual host.
 */
import type { Memory } from '../src/engine.js';
import { createError } from '../src/errors.js';
import { createFetchHandler, errorResponse } from '../src/http/handler.js';
import { createPeer, type MethodName, type Peer } from '../src/rpc/peer.js';
import { openEngine } from '../worker/open-engine.js';

/** Options of `createApiBridge`. */
export interface ApiBridgeOptions {
  /** The memory's name (`engram:<name>` is its database, lock and channel). */
  name: string;
  /** Absolute URL of the embedding model, for when the service worker hosts. */
  modelUrl: string;
  /** How the model is fetched when hosting, e.g. from the precache first. */
  fetch: typeof fetch;
  /** The path the routes are mounted under: the service worker's scope path without its trailing slash. */
  basePath: string;
  /** How long a request waits for a host before it is answered 503. Default 20 000 ms. */
  hostWaitMs?: number;
  /** How long the service worker keeps hosting after its last request. Default 10 000 ms. */
  idleMs?: number;
}

/** The API as the service worker's fetch handler uses it. */
export interface ApiBridge {
  /** True for the URLs this bridge answers: `<scope>/health`, `<scope>/openapi.json` and `<scope>/api/v1/memory/*`. */
  matches(url: URL): boolean;
  handle(request: Request): Promise<Response>;
  /** `host` while the service worker hosts the engine, `forwarding` once it relays to a tab, `idle` before any request. */
  role(): 'host' | 'forwarding' | 'idle';
}

const API_PREFIX = '/api/v1/memory/';

/** Creates the bridge; nothing is opened until the first request. */
export function createApiBridge(options: ApiBridgeOptions): ApiBridge {
  const { name, basePath } = options;
  const hostWaitMs = options.hostWaitMs ?? 20_000;
  const idleMs = options.idleMs ?? 10_000;
  const lockName = `engram:${name}`;
  let peer: Peer | null = null;
  let opening: Promise<boolean> | null = null;
  let release: (() => void) | null = null;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;

  const getPeer = (): Peer => {
    peer ??= createPeer({ id: `sw-${crypto.randomUUID()}`, channel: new BroadcastChannel(lockName) });
    return peer;
  };

  /** Takes the lock if nobody holds it and opens the engine here; false when a tab holds it. */
  function tryToHost(me: Peer): Promise<boolean> {
    opening ??= new Promise<boolean>((resolve, reject) => {
      navigator.locks
        .request(lockName, { ifAvailable: true }, async (lock) => {
          if (!lock) return resolve(false);
          let memory: Memory;
          try {
            memory = await openEngine(
              { name, modelUrl: options.modelUrl, modelCache: null, fetch: options.fetch },
              { onProgress: (progress) => me.broadcast({ type: 'progress', progress }), onEvent: (event) => me.broadcast(event) },
            );
          } catch (error) {
            return reject(error); // the lock goes back: a tab may succeed where this failed
          }
          const held = new Promise<void>((done) => (release = done));
          me.host(memory);
          resolve(true);
          const watch = setInterval(() => void yieldToTabs(), 1_000);
          await held;
          clearInterval(watch);
          clearTimeout(idleTimer);
          release = null;
          await me.stopHosting(); // waits for running calls, then closes the engine
        })
        .catch(reject);
    }).finally(() => (opening = null));
    return opening;
  }

  /** A tab queued for the lock: it should host, so the service worker steps aside now. */
  async function yieldToTabs(): Promise<void> {
    const state = await navigator.locks.query();
    if (state.pending?.some((lock) => lock.name === lockName)) release?.();
  }

  /** Resolves once some peer hosts the engine (this one if nobody else can). */
  async function ensureHost(me: Peer): Promise<void> {
    const deadline = Date.now() + hostWaitMs;
    for (;;) {
      if (me.hosting) return;
      // The lock first: a tab closed without a goodbye (its worker is simply killed) leaves a host
      // id behind, but never the lock. A free lock means nobody hosts, whatever was announced.
      if (await tryToHost(me)) return;
      // A tab holds the lock: forward to it once its worker has announced itself.
      if (me.currentHost !== null) return;
      if (Date.now() > deadline) {
        throw createError('STORAGE_FAILED', { message: `No tab or service worker could open the memory ${name} within ${hostWaitMs} ms.`, details: { reason: 'no-host' } });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const forward = (method: MethodName) => (request: unknown, callOptions?: { signal?: AbortSignal }) => {
    const me = getPeer();
    const call = me.call(method, request, callOptions?.signal);
    if (me.hosting) return call;
    // If the hosting tab dies during the call and no other tab queues for the lock, nobody would
    // ever answer: while waiting, try the lock, and host (the peer then re-runs a read here).
    const watchdog = setInterval(() => void tryToHost(me).catch(() => undefined), 1_000);
    return call.finally(() => clearInterval(watchdog));
  };
  // The handler calls only these verbs; each runs on whichever peer hosts.
  const remote = {
    add: forward('add'),
    flush: forward('flush'),
    search: forward('search'),
    searchWithTrace: forward('searchWithTrace'),
    get: forward('get'),
    delete: forward('delete'),
    upsertCase: forward('upsertCase'),
    upsertSkill: forward('upsertSkill'),
    upsertKnowledge: forward('upsertKnowledge'),
    upsertProfile: forward('upsertProfile'),
  } as unknown as Memory;

  const handler = createFetchHandler(
    async () => {
      await ensureHost(getPeer());
      return remote;
    },
    { basePath },
  );

  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  async function health(): Promise<Response> {
    const me = getPeer();
    await ensureHost(me);
    const memory = await me.call('stats', undefined);
    return json(200, { status: 'ok', host: me.hosting ? 'service-worker' : 'tab', memory });
  }

  return {
    matches(url) {
      const path = url.pathname.slice(basePath.length);
      return url.pathname.startsWith(basePath) && (path === '/health' || path === '/openapi.json' || path.startsWith(API_PREFIX));
    },

    async handle(request) {
      clearTimeout(idleTimer);
      try {
        const path = new URL(request.url).pathname.slice(basePath.length);
        if (path === '/health' && (request.method === 'GET' || request.method === 'HEAD')) return await health();
        return await handler(request);
      } catch (error) {
        return errorResponse(error);
      } finally {
        if (release) idleTimer = setTimeout(() => release?.(), idleMs);
      }
    },

    role() {
      if (!peer) return 'idle';
      return peer.hosting ? 'host' : 'forwarding';
    },
  };
}
