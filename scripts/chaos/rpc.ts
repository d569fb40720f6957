/**
 * The comlink fuzz: the browser client (`createMemoryClient`) talks over a MessageChannel to a
 * stand-in for the memory worker that does what worker/memory.worker.ts does (the peer layer of
 * src/rpc/peer.ts over a BroadcastChannel, one peer hosting a real engine, one forwarding to it).
 * The fuzzer's request values go through the client's methods, plus values a JavaScript caller
 * can pass but JSON cannot carry (functions, BigInt, cycles). Every call must resolve or reject
 * with a MemoryError carrying a catalog code and its status; no crash, no hang.
 */
import { expose } from 'comlink';
import { createMemoryClient, type MemoryClient } from '../../src/client.js';
import { createMemory } from '../../src/engine.js';
import { ERROR_CATALOG, isMemoryError, createError } from '../../src/errors.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import { registerErrorTransfer } from '../../src/rpc/error-transfer.js';
import { createPeer, METHODS, type ChannelLike, type MethodName, type Peer } from '../../src/rpc/peer.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { MemoryWorkerApi } from '../../worker/memory.worker.js';
import { generateCase, mutateValue, type CaseLimits } from './cases.js';
import type { RouteName } from './requests.js';
import type { Rng } from './rng.js';
import { preview, type Violations } from './tally.js';

export interface RpcOptions {
  callsPerMethod: number;
  timeoutMs: number;
  limits: CaseLimits;
  log?: (line: string) => void;
}

export interface RpcTally {
  calls: number;
  resolved: number;
  memoryErrors: number;
  otherErrors: number;
  hangs: number;
  violations: number;
}

const METHOD_OF: Partial<Record<RouteName, keyof MemoryClient>> = {
  add: 'add', flush: 'flush', search: 'search', get: 'get', delete: 'delete',
  cases: 'upsertCase', skills: 'upsertSkill', knowledge: 'upsertKnowledge', profile: 'upsertProfile',
};

/** What worker/memory.worker.ts exposes, over a peer instead of a Web Lock (Node has none). */
function workerStandIn(peer: Peer): MemoryWorkerApi {
  const status = () => ({ role: peer.hosting ? 'host' as const : 'follower' as const, peerId: peer.id, marks: {}, timeOrigin: performance.timeOrigin });
  return {
    async init() {
      await peer.ready;
      return status();
    },
    async call(method: MethodName, request: unknown, abortPort?: MessagePort) {
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
    async close() {},
  };
}

/** Values a JavaScript caller can pass that JSON cannot carry. */
function unclonable(rng: Rng): unknown {
  const cyclic: Record<string, unknown> = { user_id: 'chaos-u0', query: 'x' };
  cyclic['self'] = cyclic;
  return rng.pick<() => unknown>([
    () => ({ user_id: 'chaos-u0', query: () => 'x' }),
    () => ({ user_id: 'chaos-u0', query: 10n }),
    () => ({ user_id: 'chaos-u0', query: Symbol('x') }),
    () => cyclic,
    () => ({ user_id: 'chaos-u0', query: new Date(), filters: new Map([['a', 1]]) }),
    () => ({ user_id: 'chaos-u0', title: 'x', content: new Uint8Array(8) }),
    () => undefined,
    () => Object.create(null) as unknown,
  ])();
}

/** Runs the fuzz; violations go to `violations`. */
export async function runRpcFuzz(rng: Rng, options: RpcOptions, violations: Violations): Promise<Record<string, RpcTally>> {
  const log = options.log ?? (() => undefined);
  registerErrorTransfer();
  const memory = await createMemory({ store: createMemoryStore(), embedder: await createDefaultEmbedder() });
  const name = `engram-chaos-${process.pid}-${Date.now()}`;
  const channels = [new BroadcastChannel(name), new BroadcastChannel(name)];
  const host = createPeer({ id: 'host', channel: channels[0] as unknown as ChannelLike });
  host.host(memory);
  const follower = createPeer({ id: 'follower', channel: channels[1] as unknown as ChannelLike });
  const ports: MessagePort[] = [];
  const clients: MemoryClient[] = [];
  for (const peer of [host, follower]) {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    expose(workerStandIn(peer), port1 as unknown as Parameters<typeof expose>[1]);
    const worker = Object.assign(port2, { terminate: () => port2.close() }) as unknown as Worker;
    clients.push(await createMemoryClient({ name, modelUrl: 'file:///engram/model.bin', worker }));
  }

  // A crash anywhere in this process during the fuzz is a violation, not a harness failure.
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  const tallies: Record<string, RpcTally> = {};
  const routes = Object.keys(METHOD_OF) as RouteName[];
  const streams = new Map(routes.map((r) => [r, rng.fork(`rpc:${r}`)]));
  let bundle: Record<string, unknown> | null = null;
  try {
    for (let i = 0; i < options.callsPerMethod; i++) {
      for (const route of [...routes, 'import' as const]) {
        const r = route === 'import' ? rng : streams.get(route)!;
        const client = clients[i % 2]!;
        let method: keyof MemoryClient;
        let run: () => Promise<unknown>;
        let what: string;
        if (route === 'import') {
          bundle ??= (await clients[0]!.export()) as unknown as Record<string, unknown>;
          const copy = structuredClone(bundle);
          what = `import:${mutateValue('add', copy, r, options.limits)}`;
          method = 'import';
          run = () => client.import(copy as never, { mode: 'merge' });
        } else {
          method = METHOD_OF[route]!;
          let request: unknown;
          if (r.chance(0.03)) {
            request = unclonable(r);
            what = 'unclonable';
          } else {
            const c = generateCase(route, r, options.limits);
            if (c.value === undefined && typeof c.body !== 'string') continue;
            request = c.value !== undefined ? c.value : c.body;
            what = c.kind;
          }
          if (route === 'search' && r.chance(0.3)) method = 'searchWithTrace';
          run = () => (client[method] as (q: unknown) => Promise<unknown>)(request);
        }
        const tally = (tallies[method] ??= { calls: 0, resolved: 0, memoryErrors: 0, otherErrors: 0, hangs: 0, violations: 0 });
        tally.calls++;
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          run().then(() => ({ ok: true as const }), (error: unknown) => ({ ok: false as const, error })),
          new Promise<{ hang: true }>((resolve) => (timer = setTimeout(() => resolve({ hang: true }), options.timeoutMs))),
        ]);
        clearTimeout(timer);
        const bad = (violation: string, answer: string) => {
          tally.violations++;
          violations.add({ where: `rpc.${method}`, kind: what, violation, request: `client.${method}(<${what}>)`, answer });
        };
        if ('hang' in outcome) {
          tally.hangs++;
          bad('hang', `no answer in ${options.timeoutMs} ms`);
        } else if (outcome.ok) tally.resolved++;
        else if (isMemoryError(outcome.error) && outcome.error.code in ERROR_CATALOG) {
          tally.memoryErrors++;
          const e = outcome.error;
          if (ERROR_CATALOG[e.code].status !== e.status) bad('status-mismatch', `${e.code} with status ${e.status}`);
          else if (e.status >= 500) bad(`5xx-code:${e.code}`, preview(e.message, 300));
        } else {
          tally.otherErrors++;
          const e = outcome.error as { name?: unknown; message?: unknown };
          bad('not-a-MemoryError', preview(`${String(e?.name)}: ${String(e?.message)}`, 300));
        }
        if (crashes.length) {
          const e = crashes.splice(0) as { message?: unknown }[];
          bad('process-crash', e.map((x) => preview(String(x?.message ?? x), 300)).join(' | '));
        }
      }
      if ((i + 1) % 500 === 0) log(`comlink fuzz: ${i + 1}/${options.callsPerMethod} rounds, ${violations.total} violations so far`);
    }
  } finally {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    for (const c of clients) await c.close().catch(() => undefined);
    host.close();
    follower.close();
    for (const ch of channels) ch.close();
    for (const p of ports) p.close();
    await memory.close().catch(() => undefined);
  }
  return tallies;
}
