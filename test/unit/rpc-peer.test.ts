/**
 * The cross-tab forwarding protocol and the error transfer, in Node: peers talk over Node's own
 * BroadcastChannel, exactly as tabs' workers do in a browser; the host runs a real engine.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError, MemoryError } from '../../src/errors.js';
import { deserializeError, serializeError } from '../../src/rpc/error-transfer.js';
import { expose } from 'comlink';
import { createMemoryClient } from '../../src/client.js';
import { createPeer, type MethodName, type Peer, type PeerEvent } from '../../src/rpc/peer.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { StorageAdapter } from '../../src/store/port.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

let counter = 0;
const open: { peers: Peer[]; channels: BroadcastChannel[] } = { peers: [], channels: [] };

afterEach(() => {
  for (const p of open.peers) p.close();
  for (const c of open.channels) c.close();
  open.peers = [];
  open.channels = [];
});

function network() {
  const name = `engram-test-${++counter}`;
  return (id: string, onEvent?: (e: PeerEvent) => void) => {
    const channel = new BroadcastChannel(name);
    open.channels.push(channel);
    const peer = createPeer({ id, channel: channel as unknown as Parameters<typeof createPeer>[0]['channel'], ...(onEvent ? { onEvent } : {}) });
    open.peers.push(peer);
    return peer;
  };
}

const knowledge = (title: string, id?: string) => ({ user_id: 'u1', title, content: `${title} content`, ...(id ? { id } : {}) });

async function engine(store: StorageAdapter = createMemoryStore()): Promise<Memory> {
  return createMemory({ store, embedder: hashEmbedderDouble() });
}

/** One store seen by successive hosts, as IndexedDB is by successive tabs: closing an engine leaves it open. */
function shared(store: StorageAdapter): StorageAdapter {
  return { ...store, kind: store.kind, close: async () => undefined };
}

describe('error transfer', () => {
  it('keeps name, code, status, details and message of a MemoryError', () => {
    const original = new MemoryError('VALIDATION_FAILED', { message: 'bad', details: [{ loc: ['body', 'query'], msg: 'required', type: 'missing' }] });
    const copy = deserializeError(structuredClone(serializeError(original)!));
    expect(isMemoryError(copy)).toBe(true);
    expect(copy).toBeInstanceOf(MemoryError);
    expect(copy).toMatchObject({ name: 'MemoryError', code: 'VALIDATION_FAILED', status: 422, message: 'bad', details: [{ loc: ['body', 'query'], msg: 'required', type: 'missing' }] });
    expect(copy.stack).toBe(original.stack);
  });

  it('keeps a plain error plain, and reduces uncloneable details to data', () => {
    const plain = deserializeError(serializeError(new TypeError('nope'))!);
    expect(isMemoryError(plain)).toBe(false);
    expect(plain).toMatchObject({ name: 'TypeError', message: 'nope' });
    const odd = serializeError(new MemoryError('INTERNAL', { details: { fn: () => 1, ok: 1 } }))!;
    expect(structuredClone(odd).details).toEqual({ ok: 1 });
  });
});

describe('peers over a broadcast channel', () => {
  it('forwards calls to the host, with results, 422 details and change events', async () => {
    const join = network();
    const hostEvents: PeerEvent[] = [];
    const followerEvents: PeerEvent[] = [];
    const host = join('host', (e) => hostEvents.push(e));
    const follower = join('follower', (e) => followerEvents.push(e));
    host.host(await engine());
    await follower.ready;
    expect(follower.hosting).toBe(false);

    const created = (await follower.call('upsertKnowledge', knowledge('Tent pegs'))) as { data: { status: string } };
    expect(created.data.status).toBe('created');
    const found = (await host.call('search', { user_id: 'u1', query: 'tent pegs', method: 'keyword' })) as { data: { knowledge: unknown[] } };
    expect(found.data).toBeDefined();

    const error = await follower.call('search', { user_id: 'u1', query: 'x', top_k: 0, bogus: 1 }).catch((e: unknown) => e);
    expect(isMemoryError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
    expect(Array.isArray((error as MemoryError).details)).toBe(true);

    await new Promise((r) => setTimeout(r, 20));
    const changes = (events: PeerEvent[]) => events.filter((e) => e.type === 'change').map((e) => (e.type === 'change' ? e.change.method : null));
    expect(changes(followerEvents)).toEqual(['upsertKnowledge']);
    expect(changes(hostEvents)).toEqual(['upsertKnowledge']);
  });

  it('queues calls until a host appears', async () => {
    const join = network();
    const follower = join('early');
    const pending = follower.call('stats', undefined);
    const host = join('late');
    host.host(await engine());
    expect(await pending).toMatchObject({ records: 0, store: 'memory' });
  });

  it('hands over: reads go to the next host, a write the old host never answered is host-lost', async () => {
    const join = network();
    const store = shared(createMemoryStore());
    const first = join('first');
    const second = join('second');
    const third = join('third');
    // A host that takes calls and never answers them: it "crashed" after receiving them.
    const silent: Memory = { ...(await engine(store)), search: () => new Promise(() => undefined), upsertKnowledge: () => new Promise(() => undefined) } as Memory;
    first.host(silent);
    await third.ready;
    const read = third.call('search', { user_id: 'u1', query: 'anything', method: 'keyword' });
    const write = third.call('upsertKnowledge', knowledge('Lost')).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    first.close(); // the crash: no goodbye
    second.host(await engine(store));
    await expect(read).resolves.toMatchObject({ data: expect.any(Object) });
    expect(await write).toMatchObject({ code: 'STORAGE_FAILED', details: { reason: 'host-lost', method: 'upsertKnowledge' } });
  });

  it('a host that stops on purpose finishes what it started and sends the rest on', async () => {
    const join = network();
    const store = shared(createMemoryStore());
    const first = join('first');
    const second = join('second');
    first.host(await engine(store));
    await second.ready;
    const writes = Array.from({ length: 20 }, (_, i) => second.call('upsertKnowledge', knowledge(`Item ${i}`, `kn_${i}`)));
    await new Promise((r) => setTimeout(r, 1));
    const stopped = first.stopHosting();
    await stopped;
    const third = join('third');
    third.host(await engine(store));
    const results = await Promise.allSettled(writes);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(((await third.call('stats', undefined)) as { records: number }).records).toBe(20);
  });

  it('forwards an abort to the host', async () => {
    const join = network();
    const host = join('host');
    const follower = join('follower');
    let seen: AbortSignal | undefined;
    const base = await engine();
    host.host({ ...base, add: (_r: unknown, o?: { signal?: AbortSignal }) => new Promise((_, reject) => { seen = o?.signal; o?.signal?.addEventListener('abort', () => reject(new MemoryError('ABORTED'))); }) } as Memory);
    await follower.ready;
    const controller = new AbortController();
    const call = follower.call('add', { session_id: 's', messages: [] }, controller.signal);
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    expect(seen?.aborted).toBe(true);
  });

  it('forwards export, exportMarkdown and import; an import is a write every peer hears of', async () => {
    const join = network();
    const sourceHost = join('source-host');
    const source = join('source');
    sourceHost.host(await engine());
    await source.ready;
    expect(source.currentHost).toBe('source-host');
    expect(sourceHost.currentHost).toBe('source-host');
    await source.call('upsertKnowledge', knowledge('Wifi password', 'kn_wifi'));
    await source.call('upsertKnowledge', knowledge('Bike lock', 'kn_bike'));
    const bundle = (await source.call('export', undefined)) as { format: string; items: string[] };
    expect(bundle).toMatchObject({ format: 'engram-export', items: expect.any(Array) });
    const files = (await source.call('exportMarkdown', undefined)) as { path: string; content: string }[];
    expect(files.map((f) => f.path)).toEqual(['default/default/users/u1/knowledge.md']);
    expect(files[0]!.content).toContain('Wifi password');

    const join2 = network();
    const targetEvents: PeerEvent[] = [];
    const targetHost = join2('target-host');
    const target = join2('target', (e) => targetEvents.push(e));
    targetHost.host(await engine());
    await target.ready;
    await target.call('upsertKnowledge', knowledge('Stale', 'kn_stale'));
    await expect(target.call('import', { bundle, mode: 'sideways' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(target.call('import', { bundle: { format: 'nope' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
    expect(await target.call('import', { bundle, mode: 'replace' })).toEqual({ imported: 2, reembedded: 0, removed: 1 });
    expect(targetEvents.some((e) => e.type === 'change' && e.change.method === 'import')).toBe(true);
    const query = { user_id: 'u1', query: 'wifi password', method: 'hybrid' };
    const strip = (r: unknown) => (r as { data: unknown }).data;
    expect(strip(await target.call('search', query))).toEqual(strip(await source.call('search', query)));
  });

  it('rejects waiting calls with CLOSED when the peer closes', async () => {
    const join = network();
    const lonely = join('lonely');
    const call = lonely.call('stats', undefined);
    lonely.close();
    await expect(call).rejects.toMatchObject({ code: 'CLOSED' });
  });
});

/** `{"a":{"a":…1…}}` nested `levels` deep, parsed (as a caller's value would be). */
const nested = (levels: number) => JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels)) as unknown;

function expectBodyRefusal(error: unknown) {
  expect(isMemoryError(error)).toBe(true);
  expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
  expect((error as MemoryError).details).toMatchObject([{ loc: ['body'] }]);
}

describe('requests the channel cannot carry', () => {
  it('a follower refuses them with VALIDATION_FAILED at body, never a raw error or a hang, and keeps serving', async () => {
    const join = network();
    const host = join('host');
    host.host(await engine());
    const follower = join('follower');
    await follower.ready;
    const requests: [MethodName, unknown][] = [
      ['search', { user_id: 'u1', query: nested(10_000) }],
      ['upsertKnowledge', { ...knowledge('Deep'), source: nested(3_000) }],
      ['search', { user_id: 'u1', query: () => 'x' }],
    ];
    for (const [method, request] of requests) expectBodyRefusal(await follower.call(method, request).catch((e: unknown) => e));
    expect(await follower.call('stats', undefined)).toMatchObject({ records: 0 });
  });

  it('the page client refuses them with VALIDATION_FAILED at body before posting to its worker', async () => {
    const join = network();
    const host = join('host');
    host.host(await engine());
    // The worker's side, over a MessageChannel: the comlink surface of worker/memory.worker.ts
    // that these calls reach (init and call), served by the host peer.
    const { port1, port2 } = new MessageChannel();
    expose({ init: async () => ({ role: 'host' }), call: (method: MethodName, request: unknown) => host.call(method, request), close: async () => undefined }, port1 as never);
    const worker = Object.assign(port2, { terminate: () => port2.close() }) as unknown as Worker;
    const client = await createMemoryClient({ name: 'refusals', modelUrl: 'file:///model.bin', worker });
    try {
      expectBodyRefusal(await client.search({ user_id: 'u1', query: () => 'x' }).catch((e: unknown) => e));
      expectBodyRefusal(await client.search({ user_id: 'u1', query: nested(10_000) }).catch((e: unknown) => e));
      expectBodyRefusal(await client.upsertKnowledge({ ...knowledge('Deep'), source: nested(3_000) }).catch((e: unknown) => e));
      expect(await client.stats()).toMatchObject({ records: 0 });
    } finally {
      await client.close();
      port1.close();
    }
  });
});
