/**
 * Exact ownership, one finding at a time, through the HTTP handler as a client sees it: an owner
 * is (type, id) in one app and project, buffers included; a delete removes only what its owner
 * owns; record ids are the caller's within one app and project, so no call reveals or blocks an
 * id of another tenancy; and a search whose LLM or reranker fails still answers, with a notice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SearchResponse } from '../../src/contract/types.js';
import { createMemory, type Memory, type MemoryOptions } from '../../src/engine.js';
import { createError } from '../../src/errors.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { createDeferredLlm } from '../../src/models/deferred-model.js';
import type { Llm, Reranker } from '../../src/models/ports.js';
import { recordKey, scopedStorageId, type KnowledgeRecord, type StoredItem } from '../../src/records.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite-store.js';
import { DAY, MINUTE, MONDAY_9AM, replied, said } from '../support/conversations.js';
import { createRulesExtractor } from '../../src/write/rules-extractor.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';
import { scriptedLlmDouble } from '../support/scripted-llm.js';

const embedder = hashEmbedderDouble(64);

async function serve(options: Partial<MemoryOptions> = {}) {
  const memory = await createMemory({ embedder, ...options });
  const handler = createFetchHandler(memory);
  const post = async (verb: string, body: unknown) => {
    const response = await handler(new Request(`http://engram.test/api/v1/memory/${verb}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    }));
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  };
  return { memory, post };
}

describe('user X and agent X are two owners', () => {
  it('neither reads the other\'s unprocessed messages', async () => {
    const { post } = await serve();
    // User "zed" talks in one session, agent "zed" in another; nothing is flushed.
    expect((await post('add', { session_id: 'as-user', messages: [said('zed', 'I keep my passport in the blue drawer.', MONDAY_9AM)] })).status).toBe(200);
    expect((await post('add', { session_id: 'as-agent', messages: [said('amy', 'Where is the spare key?', MONDAY_9AM), replied('zed', 'Under the garden gnome.', MONDAY_9AM + MINUTE)] })).status).toBe(200);
    const unprocessed = async (owner: Record<string, string>, session_id: string) => {
      const searched = await post('search', { ...owner, query: 'passport key', filters: { session_id } });
      const listed = await post('get', { ...owner, memory_type: 'episode', filters: { session_id } });
      expect([searched.status, listed.status]).toEqual([200, 200]);
      expect(listed.body['data'].unprocessed_messages).toEqual(searched.body['data'].unprocessed_messages);
      return (searched.body['data'].unprocessed_messages as { content: unknown }[]).length;
    };
    expect(await unprocessed({ agent_id: 'zed' }, 'as-user')).toBe(0);
    expect(await unprocessed({ user_id: 'zed' }, 'as-agent')).toBe(0);
    // Each participant, as the owner it spoke as, does see its own session.
    expect(await unprocessed({ user_id: 'zed' }, 'as-user')).toBe(1);
    expect(await unprocessed({ agent_id: 'zed' }, 'as-agent')).toBe(2);
    expect(await unprocessed({ user_id: 'amy' }, 'as-agent')).toBe(2);
  });

  it('a tool message speaks for an agent, never for a user of the same id', async () => {
    const { post } = await serve();
    await post('add', { session_id: 's', messages: [said('amy', 'Look up the weather.', MONDAY_9AM), { sender_id: 'weather', role: 'tool', timestamp: MONDAY_9AM + MINUTE, content: 'Sunny, 21°C.' }] });
    const seen = async (owner: Record<string, string>) => ((await post('search', { ...owner, query: 'weather', filters: { session_id: 's' } })).body['data'].unprocessed_messages as unknown[]).length;
    expect(await seen({ user_id: 'weather' })).toBe(0);
    expect(await seen({ agent_id: 'weather' })).toBe(2);
  });

  it('forgetting user X leaves agent X\'s messages in a shared session', async () => {
    const { post } = await serve();
    await post('add', { session_id: 's', messages: [said('zed', 'Book me a table for two.', MONDAY_9AM), replied('zed', 'Booked for 8pm.', MONDAY_9AM + MINUTE)] });
    expect((await post('delete', { user_id: 'zed' })).body['data'].deleted_count).toBe(1);
    const left = (await post('search', { agent_id: 'zed', query: 'table', filters: { session_id: 's' } })).body['data'].unprocessed_messages as { role: string }[];
    expect(left.map((m) => m.role)).toEqual(['assistant']);
  });
});

describe('forgetting one participant of a shared session', () => {
  it('mallory\'s delete never erases Alice\'s episode of that session', async () => {
    const { post } = await serve();
    await post('add', { session_id: 'alice-chat', messages: [
      said('alice', 'I am planning a trip to Kyoto in April to see the cherry blossoms.', MONDAY_9AM),
      said('mallory', 'Kyoto in April is lovely.', MONDAY_9AM + MINUTE),
    ] });
    expect((await post('flush', { session_id: 'alice-chat' })).body['data'].status).toBe('extracted');
    const alices = async () => (await post('get', { user_id: 'alice', memory_type: 'episode', filters: { session_id: 'alice-chat' } })).body['data'].episodes as { id: string }[];
    const before = await alices();
    expect(before).toHaveLength(1);

    const deleted = await post('delete', { user_id: 'mallory' });
    expect(deleted.status).toBe(200);
    expect(await alices()).toEqual(before);
    expect((await post('get', { user_id: 'mallory', memory_type: 'episode' })).body['data'].total_count).toBe(0);
    // What went is Mallory's own: her episode of the session (and nothing of Alice's).
    expect(deleted.body['data'].deleted_count).toBeGreaterThanOrEqual(1);
    const search = await post('search', { user_id: 'alice', query: 'Kyoto cherry blossoms', method: 'keyword' });
    expect((search.body['data'].episodes as { id: string }[]).map((e) => e.id)).toEqual(before.map((e) => e.id));
  });

  it('a delete by session takes only the deleter\'s own buffered messages', async () => {
    const { post } = await serve();
    await post('add', { session_id: 'alice-chat', messages: [
      said('alice', 'My locker code is 4471.', MONDAY_9AM),
      said('mallory', 'Nice.', MONDAY_9AM + MINUTE),
    ] });
    expect((await post('delete', { user_id: 'mallory', session_id: 'alice-chat' })).body['data'].deleted_count).toBe(1);
    const left = (await post('search', { user_id: 'alice', query: 'locker', filters: { session_id: 'alice-chat' } })).body['data'].unprocessed_messages as { sender_id: string }[];
    expect(left.map((m) => m.sender_id)).toEqual(['alice']);
    // Mallory no longer takes part, so the session's buffer is no longer hers to read.
    expect((await post('search', { user_id: 'mallory', query: 'locker', filters: { session_id: 'alice-chat' } })).body['data'].unprocessed_messages).toEqual([]);
  });
});

describe('record ids are scoped to their app and project', () => {
  const roadmap = (app_id: string, content: string, project_id = 'default') => ({ user_id: 'pat', app_id, project_id, id: 'roadmap', title: 'Roadmap', content });
  const listed = async (post: Awaited<ReturnType<typeof serve>>['post'], app_id: string, project_id = 'default') =>
    (await post('get', { user_id: 'pat', app_id, project_id, memory_type: 'knowledge' })).body['data'].episodes as { id: string; episode: string; app_id: string }[];

  it('the same id in another app or project is another record: no 422, no oracle', async () => {
    const { post, memory } = await serve();
    expect((await post('knowledge', roadmap('app-a', 'Ship the sync engine in Q3.'))).body['data']).toMatchObject({ id: 'roadmap', status: 'created' });
    const inB = await post('knowledge', roadmap('app-b', 'Hire two designers.'));
    expect(inB.status).toBe(200);
    expect(inB.body['data']).toMatchObject({ id: 'roadmap', status: 'created' });
    expect((await post('knowledge', roadmap('app-a', 'Launch the beta.', 'p2'))).body['data']).toMatchObject({ id: 'roadmap', status: 'created' });
    expect((await listed(post, 'app-a')).map((e) => [e.id, e.episode])).toEqual([['roadmap', 'Ship the sync engine in Q3.']]);
    expect((await listed(post, 'app-b')).map((e) => [e.id, e.episode])).toEqual([['roadmap', 'Hire two designers.']]);
    expect((await listed(post, 'app-a', 'p2')).map((e) => [e.id, e.episode])).toEqual([['roadmap', 'Launch the beta.']]);

    // Updating in B changes B's only; deleting in B removes B's only.
    expect((await post('knowledge', roadmap('app-b', 'Hire three designers.'))).body['data']).toMatchObject({ status: 'updated' });
    expect((await listed(post, 'app-a'))[0]!.episode).toBe('Ship the sync engine in Q3.');
    expect((await post('delete', { user_id: 'pat', app_id: 'app-b', memory_id: 'roadmap' })).body['data'].deleted_count).toBe(1);
    expect(await listed(post, 'app-b')).toEqual([]);
    expect(await listed(post, 'app-a')).toHaveLength(1);
    // A deleted id of B is NOT_FOUND in B, whatever A holds.
    expect((await post('delete', { user_id: 'pat', app_id: 'app-b', memory_id: 'roadmap' })).status).toBe(404);
    // Searching in C finds nothing of A under that id.
    const searched = await post('search', { user_id: 'pat', app_id: 'app-c', query: 'roadmap sync engine', method: 'keyword' });
    expect(searched.body['data'].episodes).toEqual([]);
    expect(memory.stats().records).toBe(2);
  });

  it('inside one app and project an id of another owner or kind is still refused', async () => {
    const { post } = await serve();
    await post('knowledge', roadmap('app-a', 'Ship it.'));
    const other = await post('knowledge', { ...roadmap('app-a', 'Mine.'), user_id: 'quinn' });
    expect(other.status).toBe(422);
    expect(other.body['detail'][0].loc).toEqual(['body', 'id']);
    const asCase = await post('cases', { agent_id: 'pat', app_id: 'app-a', id: 'roadmap', session_id: 's', task_intent: 'x', approach: 'y' });
    expect(asCase.status).toBe(422);
  });

  it('round-trips through a reopened store and through export and import', async () => {
    const store = createMemoryStore();
    let memory = await createMemory({ store, embedder });
    await memory.upsertKnowledge(roadmap('app-a', 'Ship the sync engine.'));
    await memory.upsertKnowledge(roadmap('app-b', 'Hire designers.'));
    // The store keeps two items, the caller's id scoped by app and project.
    const ids = (await store.loadAll()).map((i) => i.id).sort();
    expect(ids).toEqual([scopedStorageId({ app_id: 'app-a', project_id: 'default', id: 'roadmap' }), scopedStorageId({ app_id: 'app-b', project_id: 'default', id: 'roadmap' })]);

    // A memory opened afresh over that store (as after a restart) reads both back.
    memory = await createMemory({ store, embedder });
    const bundle = await memory.export();
    const copy = await createMemory({ embedder });
    expect((await copy.import(bundle)).imported).toBe(2);
    for (const m of [memory, copy]) {
      for (const [app, text] of [['app-a', 'Ship the sync engine.'], ['app-b', 'Hire designers.']] as const) {
        const { data } = await m.get({ user_id: 'pat', app_id: app, memory_type: 'knowledge' });
        expect(data.episodes.map((e) => [e.id, e.episode])).toEqual([['roadmap', text]]);
      }
    }
    // Importing the same bundle again updates in place.
    expect((await copy.import(bundle)).imported).toBe(2);
    expect(copy.stats().records).toBe(2);
  });

  it('round-trips through the SQLite store, plain and sealed, across a restart', async () => {
    for (const encryption of [undefined, { key: new Uint8Array(32).fill(7) }]) {
      const dir = await mkdtemp(join(tmpdir(), 'engram-tenancy-'));
      try {
        const open = async () => createMemory({ store: await createSqliteStore(dir), embedder, ...(encryption ? { encryption } : {}) });
        let memory = await open();
        await memory.upsertKnowledge(roadmap('app-a', 'Ship the sync engine.'));
        await memory.upsertKnowledge(roadmap('app-b', 'Hire designers.'));
        await memory.close();
        memory = await open();
        for (const [app, text] of [['app-a', 'Ship the sync engine.'], ['app-b', 'Hire designers.']] as const) {
          const { data } = await memory.get({ user_id: 'pat', app_id: app, memory_type: 'knowledge' });
          expect(data.episodes.map((e) => [e.id, e.episode]), `${app} ${encryption ? 'sealed' : 'plain'}`).toEqual([['roadmap', text]]);
        }
        expect((await memory.delete({ user_id: 'pat', app_id: 'app-a', memory_id: 'roadmap' })).data.deleted_count).toBe(1);
        await memory.close();
        memory = await open();
        expect((await memory.get({ user_id: 'pat', app_id: 'app-a', memory_type: 'knowledge' })).data.total_count).toBe(0);
        expect((await memory.get({ user_id: 'pat', app_id: 'app-b', memory_type: 'knowledge' })).data.total_count).toBe(1);
        await memory.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });

  it('reads records stored before ids were scoped, and updates them in place', async () => {
    const store = createMemoryStore();
    const legacy: KnowledgeRecord = {
      kind: 'knowledge', id: 'roadmap', app_id: 'app-a', project_id: 'default', owner_type: 'user', owner_id: 'pat', session_id: null,
      timestamp: MONDAY_9AM, created_at: MONDAY_9AM, updated_at: MONDAY_9AM, sender_ids: ['pat'], source_message_ids: [], parent_type: null, parent_id: null,
      vector: null, vector_model: null, title: 'Roadmap', content: 'Old plan.', source: null,
    };
    await store.commit({ put: [legacy], delete: [] });
    const memory = await createMemory({ store, embedder });
    expect((await memory.get({ user_id: 'pat', app_id: 'app-a', memory_type: 'knowledge' })).data.episodes.map((e) => e.id)).toEqual(['roadmap']);
    expect((await memory.upsertKnowledge(roadmap('app-a', 'New plan.'))).data).toMatchObject({ id: 'roadmap', status: 'updated' });
    expect((await memory.upsertKnowledge(roadmap('app-b', 'Other plan.'))).data).toMatchObject({ id: 'roadmap', status: 'created' });
    const stored = await store.loadAll();
    expect(stored.map((i: StoredItem) => i.id).sort()).toEqual(['app-b/default/roadmap', 'roadmap']);
    expect((stored.find((i) => i.id === 'roadmap') as KnowledgeRecord).content).toBe('New plan.');
    // An old bundle holding the same plain id in two apps imports as two records.
    const bundle = await memory.export();
    const plain: unknown = JSON.parse(JSON.stringify(bundle).replace('"app-b/default/roadmap"', '"roadmap"'));
    expect(JSON.stringify(plain)).not.toContain('app-b/default/roadmap');
    const copy = await createMemory({ embedder });
    await copy.import(plain);
    expect(copy.stats().records).toBe(2);
    expect(copy.peek({ app_id: 'app-b', project_id: 'default', owner_type: 'user', owner_id: 'pat' }, ['roadmap']).map((r) => r.id)).toEqual(['roadmap']);
    expect(recordKey({ app_id: 'a', project_id: 'p', id: 'x' })).not.toBe(recordKey({ app_id: 'b', project_id: 'p', id: 'x' }));
  });
});

describe('a failing LLM or reranker degrades a search, never fails it', () => {
  async function withAgent(options: Partial<MemoryOptions>) {
    const served = await serve(options);
    for (let i = 0; i < 3; i++) {
      await served.memory.upsertCase({ agent_id: 'bot', session_id: `c${i}`, task_intent: `Plan a garden trip number ${i}`, approach: `Checked the garden map ${i}` });
    }
    await served.memory.upsertSkill({ agent_id: 'bot', name: 'garden trips', description: 'Planning garden trips', content: 'Check the map first.' });
    return served;
  }
  const notices = (headers: Headers) => (headers.get('x-engram-notices') ?? '').split(', ');

  it('enable_llm_rerank while the LLM is still loading, or after it failed to load: a notice, fused order', async () => {
    const loading = createDeferredLlm('webllm-loading', () => new Promise<Llm>(() => undefined));
    const failed = createDeferredLlm('webllm-failed', () => Promise.reject(new Error('no GPU adapter')));
    await failed.ready;
    const plain = await withAgent({});
    const expected = (await plain.post('search', { agent_id: 'bot', query: 'garden trip', top_k: 5 })).body['data'];
    for (const llm of [loading, failed]) {
      const { post } = await withAgent({ llm });
      const response = await post('search', { agent_id: 'bot', query: 'garden trip', top_k: 5, enable_llm_rerank: true });
      expect(response.status).toBe(200);
      expect(notices(response.headers)).toContain('llm_rerank.failed');
      const data = response.body['data'] as SearchResponse['data'];
      // The same cases and skills as without an LLM (equal scores order by random id, so as sets).
      expect(data.agent_cases.map((c) => c.task_intent).sort()).toEqual(expected.agent_cases.map((c: { task_intent: string }) => c.task_intent).sort());
      expect(data.agent_skills.map((s) => s.name)).toEqual(expected.agent_skills.map((s: { name: string }) => s.name));
      expect(data.agent_cases.length).toBe(3);
    }
  });

  it('an LLM that throws or times out during enable_llm_rerank: a notice', async () => {
    const timeout = scriptedLlmDouble([() => Promise.reject(createError('LLM_TIMEOUT'))]);
    const broken = scriptedLlmDouble([new Error('connection reset')]);
    for (const llm of [timeout, broken]) {
      const { post } = await withAgent({ llm });
      const response = await post('search', { agent_id: 'bot', query: 'garden trip', enable_llm_rerank: true });
      expect(response.status).toBe(200);
      expect(notices(response.headers)).toContain('llm_rerank.failed');
      expect(response.body['data'].agent_cases).toHaveLength(3);
      // One failure is enough: the LLM is not asked again in the same search.
      expect(llm.requests).toHaveLength(1);
    }
  });

  it('a reranker that throws in agentic: a notice and round 1\'s calibrated order', async () => {
    const reranker: Reranker = { id: 'throwing-reranker-double', rerank: () => Promise.reject(new Error('onnx session lost')) };
    const { post, memory } = await withAgent({ reranker });
    await memory.add({ session_id: 's1', messages: [said('amy', 'I walked through the botanical garden on Sunday.', MONDAY_9AM)] });
    await memory.flush({ session_id: 's1' });
    for (const owner of [{ user_id: 'amy' }, { agent_id: 'bot' }]) {
      const response = await post('search', { ...owner, query: 'garden', method: 'agentic' });
      expect(response.status).toBe(200);
      expect(notices(response.headers)).toContain(owner.agent_id ? 'reranker.failed' : 'agentic.reranker_failed');
    }
    const { data } = await memory.search({ user_id: 'amy', query: 'garden', method: 'agentic' });
    expect(data.episodes).toHaveLength(1);
  });

  it('the caller\'s own abort is still an error, even when the model fails with something else', async () => {
    let controller = new AbortController();
    // The caller gives up while the reranker runs; the reranker then fails in its own way.
    const reranker: Reranker = { id: 'interrupted-reranker-double', rerank: () => (controller.abort(), Promise.reject(new Error('session interrupted'))) };
    const { memory } = await withAgent({ reranker });
    await memory.add({ session_id: 's1', messages: [said('amy', 'I walked through the botanical garden.', MONDAY_9AM)] });
    await memory.flush({ session_id: 's1' });
    await expect(memory.search({ user_id: 'amy', query: 'garden', method: 'agentic' }, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    controller = new AbortController();
    controller.abort();
    await expect(memory.search({ user_id: 'amy', query: 'garden', method: 'agentic' }, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('agentic returns up to top_k', () => {
  async function manyEpisodes(count: number, llm?: Llm): Promise<Memory> {
    // The rules extract; the LLM double only judges sufficiency.
    const memory = await createMemory({ embedder, extractor: createRulesExtractor(), ...(llm ? { llm } : {}) });
    for (let i = 0; i < count; i++) {
      await memory.add({ session_id: `s${i}`, messages: [said('amy', `I watered the garden tomatoes on day ${i}.`, MONDAY_9AM + i * DAY)] });
      await memory.flush({ session_id: `s${i}` });
    }
    return memory;
  }

  it('more than 10 when top_k asks for more, up to 100 for -1', async () => {
    const memory = await manyEpisodes(25);
    const { post } = { post: createFetchHandler(memory) };
    const ask = async (top_k: number) => {
      const response = await post(new Request('http://engram.test/api/v1/memory/search', {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: 'amy', query: 'garden tomatoes watered', method: 'agentic', top_k, radius: 0 }),
      }));
      expect(response.status).toBe(200);
      return ((await response.json()) as SearchResponse).data.episodes.length;
    };
    expect(await ask(20)).toBe(20);
    expect(await ask(-1)).toBe(25);
    expect(await ask(3)).toBe(3);
  });

  it('with an LLM that judges round 1 sufficient, still up to top_k', async () => {
    const llm = scriptedLlmDouble([JSON.stringify({ is_sufficient: true, reasoning: 'enough', missing_information: '' })]);
    const memory = await manyEpisodes(15, llm);
    const { data } = await memory.search({ user_id: 'amy', query: 'garden tomatoes watered', method: 'agentic', top_k: 15, radius: 0 });
    expect(data.episodes).toHaveLength(15);
    // The LLM judged the top 10 only: the prompt stays bounded.
    expect(llm.requests[0]!.messages.at(-1)!.content).toContain('[10]');
    expect(llm.requests[0]!.messages.at(-1)!.content).not.toContain('[11]');
  });
});
