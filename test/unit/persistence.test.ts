/**
 * Durability of the Node store (SQLite) under the engine and the Node server: what was written
 * survives a close and reopen (and a server restart) with the same search results; a directory of
 * the old JSONL store opens with its memories; a second opener is refused; many replacements and
 * deletes lose nothing. And the HTTP face: health, unknown routes, wrong methods, malformed and
 * oversized bodies, and no 500 for any garbage. Crashes, damage and a full disk are tested on the
 * store itself (sqlite-store.test.ts).
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SearchMethod } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { startNodeServer, type RunningServer } from '../../src/http/node-server.js';
import { createSqliteStore } from '../../src/store/sqlite-store.js';
import { DAY, MINUTE, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const METHODS: SearchMethod[] = ['keyword', 'vector', 'hybrid', 'agentic'];
const QUERIES = ['garden tomatoes', 'violin lessons', 'flight to Tokyo', 'bicycle'];
const embedder = hashEmbedderDouble(64);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-persist-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = async () => createMemory({ store: await createSqliteStore(dir), embedder });

async function fill(memory: Memory, from = 0): Promise<void> {
  const texts = ['I grow tomatoes in my garden.', 'I take violin lessons on Tuesdays.', 'I booked a flight to Tokyo for March.', 'My bicycle has a flat tyre.'];
  for (const [i, text] of texts.entries()) {
    await remember(memory, `s${from + i}`, [said('pat', text, MONDAY_9AM + (from + i) * DAY), replied('aide', `Noted: ${text}`, MONDAY_9AM + (from + i) * DAY + MINUTE)]);
  }
  await memory.upsertCase({ agent_id: 'aide', session_id: 'c1', task_intent: 'Plan a garden', approach: 'Tomatoes by the south wall' });
  await memory.upsertKnowledge({ user_id: 'pat', title: 'Bicycle shop', content: 'The bicycle shop opens at nine.' });
  await memory.add({ session_id: 'open', messages: [said('pat', 'My garden needs rain soon.', MONDAY_9AM + 30 * DAY)] });
}

/** Every search answer that matters, minus the request ids. */
async function snapshot(memory: Memory): Promise<unknown> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    for (const method of METHODS) {
      for (const owner of [{ user_id: 'pat' }, { agent_id: 'aide' }]) {
        const { data } = await memory.search({ ...owner, query, method, top_k: 10, include_profile: true, filters: { OR: [{ session_id: { ne: 'zzz' } }, { session_id: null }] } });
        out.push(data);
      }
    }
  }
  out.push((await memory.search({ user_id: 'pat', query: 'garden', filters: { session_id: 'open' } })).data.unprocessed_messages);
  return out;
}

describe('the SQLite store under the engine', () => {
  it('a reopened memory gives the same search results (ids and scores)', async () => {
    const first = await open();
    await fill(first);
    const before = await snapshot(first);
    expect(JSON.stringify(before)).toContain('tomatoes');
    const stats = first.stats();
    await first.close();

    const second = await open();
    // Indexes are built by searches, so whether they are built is no part of what a store keeps.
    expect({ ...second.stats(), indexed_partitions: 0 }).toEqual({ ...stats, indexed_partitions: 0 });
    expect(await snapshot(second)).toEqual(before);
    await second.close();
  });

  it('opens a directory written by the old JSONL store with its memories', async () => {
    await cp(join(import.meta.dirname, '../fixtures/legacy-file-store'), dir, { recursive: true });
    const memory = await open();
    expect((await memory.search({ user_id: 'pat', query: 'tomatoes', method: 'keyword' })).data.episodes).toHaveLength(1);
    expect((await memory.search({ user_id: 'pat', query: 'violin', method: 'keyword' })).data.episodes).toHaveLength(0);
    expect((await memory.search({ user_id: 'sam', query: 'chess', method: 'keyword' })).data.episodes).toHaveLength(0);
    expect((await memory.search({ user_id: 'pat', query: 'garden', filters: { session_id: 'open' } })).data.unprocessed_messages).toHaveLength(1);
    await remember(memory, 'after', [said('pat', 'I repainted the garden bench in green.', MONDAY_9AM + 40 * DAY)]);
    const before = await snapshot(memory);
    await memory.close();
    const again = await open();
    expect(await snapshot(again)).toEqual(before);
    await again.close();
  });

  it('refuses a second memory on a directory that is open', async () => {
    const first = await open();
    await fill(first);
    await expect(open()).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
    expect((await first.search({ user_id: 'pat', query: 'tomatoes', method: 'keyword' })).data.episodes).toHaveLength(1);
    await first.close();
  });

  it('many replacements and deletes keep everything that is live', async () => {
    const first = await open();
    await fill(first);
    await fill(first, 10);
    await first.delete({ user_id: 'pat', session_id: 's1' });
    const before = await snapshot(first);
    const stats = first.stats();
    await first.close();

    const second = await open();
    expect({ ...second.stats(), indexed_partitions: 0 }).toEqual({ ...stats, indexed_partitions: 0 });
    expect(await snapshot(second)).toEqual(before);
    await second.close();
  });
});

describe('the Node server', () => {
  const servers: RunningServer[] = [];
  const memories: Memory[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    for (const m of memories.splice(0)) await m.close();
  });

  async function serve(): Promise<{ url: string; memory: Memory; server: RunningServer }> {
    const memory = await open();
    const server = await startNodeServer({ port: 0, handler: createFetchHandler(memory) });
    servers.push(server);
    memories.push(memory);
    return { url: server.url, memory, server };
  }

  const post = (url: string, route: string, body: unknown) =>
    fetch(`${url}/api/v1/memory/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('keeps the data across a restart', async () => {
    const { url, memory, server } = await serve();
    const added = await post(url, 'add', { session_id: 'web', messages: [said('pat', 'I keep bees on the roof of my garden shed.', MONDAY_9AM), replied('aide', 'Rooftop bees need shade in summer.', MONDAY_9AM + MINUTE)] });
    expect(added.status).toBe(200);
    expect((await post(url, 'flush', { session_id: 'web' })).status).toBe(200);
    const query = { user_id: 'pat', query: 'bees on the roof', top_k: 5 };
    const before = await (await post(url, 'search', query)).json();
    expect(before.data.episodes).toHaveLength(1);

    await server.close();
    servers.length = 0;
    await memory.close();
    memories.length = 0;

    const restarted = await serve();
    expect(restarted.url).not.toBe('');
    const after = await (await post(restarted.url, 'search', query)).json();
    expect(after.data).toEqual(before.data);
    expect(after.request_id).not.toBe(before.request_id);
  });

  it('answers GET /health', async () => {
    const { url } = await serve();
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('404 for unknown routes, 405 for GET on a POST route', async () => {
    const { url } = await serve();
    for (const path of ['/nope', '/api/v1/memory/nope', '/api/v1/memory', '/api/v2/memory/search']) {
      expect((await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, path).toBe(404);
    }
    const get = await fetch(`${url}/api/v1/memory/search`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('malformed JSON is 422 json_invalid, an empty body is 422 missing', async () => {
    const { url } = await serve();
    for (const body of ['{"user_id": "pat", "query": ', "{'single': 'quotes'}", 'not json', '{"a":1}}']) {
      const response = await post(url, 'search', body);
      expect(response.status, body).toBe(422);
      const json = await response.json();
      expect(json.detail[0].type).toBe('json_invalid');
      expect(json.detail[0].loc[0]).toBe('body');
    }
    const empty = await post(url, 'search', '');
    expect(empty.status).toBe(422);
    expect((await empty.json()).detail[0].type).toBe('missing');
  });

  it('an oversized body is 413', async () => {
    const { url } = await serve();
    const huge = JSON.stringify({ user_id: 'pat', query: 'x'.repeat(10 * 1024 * 1024 + 10) });
    const response = await post(url, 'search', huge);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('no garbage body gives a 500', () => {
  const ROUTES: Record<string, string[]> = {
    add: ['session_id', 'app_id', 'project_id', 'messages'],
    flush: ['session_id', 'app_id', 'project_id'],
    search: ['user_id', 'agent_id', 'query', 'method', 'top_k', 'radius', 'min_score', 'include_profile', 'enable_llm_rerank', 'filters'],
    get: ['user_id', 'agent_id', 'memory_type', 'page', 'page_size', 'sort_by', 'sort_order', 'filters'],
    delete: ['user_id', 'agent_id', 'memory_id', 'session_id'],
    cases: ['agent_id', 'id', 'session_id', 'task_intent', 'approach', 'quality_score', 'key_insight', 'timestamp'],
    skills: ['agent_id', 'id', 'name', 'description', 'content', 'confidence', 'maturity_score', 'source_case_ids'],
    knowledge: ['user_id', 'agent_id', 'id', 'title', 'content', 'source', 'timestamp'],
    profile: ['user_id', 'profile_data', 'mode'],
  };

  it.each(Object.keys(ROUTES))('/%s answers 200 or a 4xx for random JSON', async (route) => {
    const memory = await createMemory({ embedder });
    await remember(memory, 's', [said('u', 'I like the garden and the river.', MONDAY_9AM)]);
    const errors: unknown[] = [];
    const handler = createFetchHandler(memory, { onError: (e) => errors.push(e) });
    const fields = ROUTES[route]!;
    // Plausible values for the known fields make the fuzz reach past the first type check.
    const plausible = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.constantFrom('u', 'a', 's', 'garden', 'user', 'assistant', 'hybrid', 'episode', 'merge', '2026-11-02T09:00:00Z', '', -1, 0, 1, 0.5, 100, 101, 1e20, -1e20, null, true, []),
      fc.array(fc.record({ sender_id: fc.constantFrom('u', 'a b'), role: fc.constantFrom('user', 'assistant', 'x'), timestamp: fc.oneof(fc.integer(), fc.double(), fc.string()), content: fc.oneof(fc.string(), fc.array(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })))) }, { requiredKeys: [] }), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('session_id', 'timestamp', 'sender_id', 'parent_id', 'AND', 'OR', 'user_id', 'x'), fc.jsonValue({ maxDepth: 3 })),
    );
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc.dictionary(fc.constantFrom(...fields, 'extra'), plausible).map((v) => JSON.stringify(v)),
      fc.record({ user_id: fc.constantFrom('u'), query: fc.string() }).map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await handler(new Request(`http://engram.test/api/v1/memory/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text }));
        const status = response.status;
        const bodyText = await response.clone().text();
        expect(status === 200 || (status >= 400 && status < 500), `${status} for ${text.slice(0, 300)}: ${bodyText}`).toBe(true);
        // Whatever the status, the body is JSON.
        expect(() => JSON.parse(bodyText)).not.toThrow();
      }),
      { numRuns: 60 },
    );
    expect(errors).toEqual([]);
    await memory.close();
  });
});

describe('index warm-up', () => {
  it('builds the largest partition in the background after open when asked, and only then; the others at their first search', async () => {
    const { createMemory } = await import('../../src/index.js');
    const { createMemoryStore } = await import('../../src/store/memory-store.js');
    const { hashEmbedderDouble } = await import('../support/hash-embedder.js');
    const store = createMemoryStore();
    const first = await createMemory({ embedder: hashEmbedderDouble(), store });
    for (const user of ['a', 'b', 'c']) await first.upsertKnowledge({ user_id: user, title: 'Note', content: `kept by ${user}` });
    await first.upsertKnowledge({ user_id: 'b', title: 'Another', content: 'also kept by b' });
    const reopenedStore = { ...store, close: async () => undefined };
    const lazy = await createMemory({ embedder: hashEmbedderDouble(), store: reopenedStore });
    const warm = await createMemory({ embedder: hashEmbedderDouble(), store: reopenedStore, warmIndexes: true });
    expect(warm.stats().indexed_partitions).toBe(0); // nothing blocks the open itself
    await new Promise((r) => setTimeout(r, 20));
    expect(warm.stats()).toMatchObject({ partitions: 3, indexed_partitions: 1 });
    expect((await warm.search({ user_id: 'b', query: 'kept' })).data.episodes).toHaveLength(2);
    expect(warm.stats().indexed_partitions).toBe(1); // b's: the largest, built before the search
    await warm.search({ user_id: 'c', query: 'kept' });
    expect(warm.stats().indexed_partitions).toBe(2);
    expect(lazy.stats().indexed_partitions).toBe(0);
    await lazy.search({ user_id: 'a', query: 'kept' });
    expect(lazy.stats().indexed_partitions).toBe(1);
  });
});
