/**
 * Every route of the EverOS API through the Worker (SELF.fetch → auth → Durable Object → engine),
 * inside workerd, with the bundled static embedding model read from the ASSETS binding.
 */
import { SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, conversation, ok, ORIGIN, T0 } from './helpers.js';
import { TEST_TENANCIES } from './keys.js';

describe('routes through the Worker', () => {
  beforeAll(async () => {
    const turns = [
      'Hi, I am Alice. I work as a nurse at St Mary hospital and I adopted a cat named Miso yesterday.',
      'Congratulations on Miso! Cats settle in within a week or two.',
      'I am planning a trip to Kyoto next week to see the temples.',
      'Kyoto is lovely: visit Fushimi Inari early in the morning.',
    ];
    expect((await ok('add', conversation('trip', 'alice', 'guide', turns))).data).toEqual({ message_count: 4, status: 'accumulated' });
    expect((await ok('flush', { session_id: 'trip' })).data.status).toBe('extracted');
  });

  it('GET /health answers without a key', async () => {
    const response = await SELF.fetch(`${ORIGIN}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect((await SELF.fetch(`${ORIGIN}/health`, { method: 'POST' })).status).toBe(405);
  });

  it('add → flush → search finds the conversation with every method', async () => {
    for (const method of ['keyword', 'vector', 'hybrid', 'agentic']) {
      const response = await call('search', { user_id: 'alice', query: 'what pet did Alice adopt', method, top_k: 5 });
      expect(response.status, method).toBe(200);
      const body = (await response.json()) as any;
      expect(body.data.episodes.length, method).toBeGreaterThan(0);
      const top = body.data.episodes[0];
      expect(top.user_id).toBe('alice');
      expect(top.app_id).toBe('acme');
      expect(top.project_id).toBe('prod');
      expect(`${top.subject} ${top.episode}`).toMatch(/Miso/);
      if (method !== 'agentic') expect(response.headers.get('x-engram-rounds')).toBe('1');
    }
  });

  it('the agent of the conversation gets it as a case', async () => {
    const body = await ok('search', { agent_id: 'guide', query: 'Kyoto temples travel advice', method: 'hybrid', top_k: 5 });
    expect(body.data.agent_cases.length).toBeGreaterThan(0);
    expect(body.data.agent_cases[0].agent_id).toBe('guide');
  });

  it('get lists memories by type with pagination', async () => {
    const episodes = await ok('get', { user_id: 'alice', memory_type: 'episode', page_size: 10 });
    expect(episodes.data.total_count).toBe(1);
    expect(episodes.data.episodes).toHaveLength(1);
    const facts = await ok('get', { user_id: 'alice', memory_type: 'atomic_fact', page_size: 1 });
    expect(facts.data.total_count).toBeGreaterThan(1);
    expect(facts.data.count).toBe(1);
  });

  it('unprocessed messages show to a participant before flush', async () => {
    await ok('add', conversation('open', 'alice', 'guide', ['Remind me to buy cat food.'], T0 + 86_400_000));
    const body = await ok('search', { user_id: 'alice', query: 'cat food', top_k: 5, filters: { session_id: 'open' } });
    expect(body.data.unprocessed_messages.map((m: any) => m.content)).toEqual(['Remind me to buy cat food.']);
    const stranger = await ok('search', { user_id: 'mallory', query: 'cat food', top_k: 5, filters: { session_id: 'open' } });
    expect(stranger.data.unprocessed_messages).toEqual([]);
    expect((await ok('flush', { session_id: 'open' })).data.status).toBe('extracted');
    expect((await ok('flush', { session_id: 'open' })).data.status).toBe('no_extraction');
  });

  it('cases, skills, knowledge and profile upserts are searchable', async () => {
    const created = await ok('cases', { agent_id: 'coder', session_id: 'c1', task_intent: 'Fix a flaky database migration', approach: 'Wrapped the migration in a transaction and retried on lock timeouts.', quality_score: 0.9 });
    expect(created.data.status).toBe('created');
    const again = await ok('cases', { agent_id: 'coder', id: created.data.id, session_id: 'c1', task_intent: 'Fix a flaky database migration', approach: 'Transaction plus retry with backoff.', quality_score: 0.95 });
    expect(again.data).toEqual({ id: created.data.id, status: 'updated' });
    expect((await ok('skills', { agent_id: 'coder', name: 'Safe migrations', description: 'Run schema migrations safely', content: 'Always wrap migrations in a transaction.' })).data.status).toBe('created');
    expect((await ok('knowledge', { user_id: 'alice', title: 'Cat care', content: 'Adult cats need fresh water and two meals a day.' })).data.status).toBe('created');
    expect((await ok('profile', { user_id: 'alice', profile_data: { occupation: 'nurse' } })).data.status).toMatch(/created|updated/);

    const agent = await ok('search', { agent_id: 'coder', query: 'database migration', method: 'hybrid', top_k: 5 });
    expect(agent.data.agent_cases[0].id).toBe(created.data.id);
    expect(agent.data.agent_skills.map((s: any) => s.name)).toContain('Safe migrations');
    const profile = await ok('search', { user_id: 'alice', query: 'job', include_profile: true, top_k: 1 });
    expect(JSON.stringify(profile.data.profiles)).toContain('nurse');
    const knowledge = await ok('get', { user_id: 'alice', memory_type: 'knowledge' });
    expect(knowledge.data.total_count).toBe(1);
  });

  it('delete by id, by session and by owner', async () => {
    const knowledge = await ok('knowledge', { user_id: 'bob', title: 'Note', content: 'Bob likes green tea.' });
    expect((await ok('delete', { user_id: 'bob', memory_id: knowledge.data.id })).data.deleted_count).toBe(1);
    const missing = await call('delete', { user_id: 'bob', memory_id: knowledge.data.id });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).code).toBe('NOT_FOUND');

    await ok('add', conversation('bob-1', 'bob', 'guide', ['I play the cello every evening.', 'Lovely instrument.']));
    await ok('flush', { session_id: 'bob-1' });
    const bySession = await ok('delete', { user_id: 'bob', session_id: 'bob-1' });
    expect(bySession.data.deleted_count).toBeGreaterThan(0);
    expect((await ok('get', { user_id: 'bob', memory_type: 'episode' })).data.total_count).toBe(0);
  });

  it('forgetting a user removes what they own and never another owner\'s memory of the conversation', async () => {
    await ok('add', conversation('carol-1', 'carol', 'helper', ['My passport number is in the blue folder.', 'Noted, the blue folder.']));
    await ok('flush', { session_id: 'carol-1' });
    const before = await ok('get', { agent_id: 'helper', memory_type: 'agent_case' });
    expect(before.data.total_count).toBeGreaterThan(0);
    expect((await ok('delete', { user_id: 'carol' })).data.deleted_count).toBeGreaterThan(0);
    expect((await ok('get', { user_id: 'carol', memory_type: 'episode' })).data.total_count).toBe(0);
    // The agent's case is the agent's memory: a user's forget does not reach it (an owner is exact).
    expect((await ok('get', { agent_id: 'helper', memory_type: 'agent_case' })).data.total_count).toBe(before.data.total_count);
  });

  it('an oversized chunked body is 413: the Worker stops reading it and writes nothing', async () => {
    const MiB = 1024 * 1024;
    const total = 256 * MiB;
    const head = new TextEncoder().encode('{"user_id":"chunky","title":"t","content":"');
    let pulled = 0;
    // No content-length: the limit has to hold while the body streams. (workerd logs the upload's
    // pipe being aborted when the Worker cancels the body; that is the cancel working.)
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= total) return controller.close();
        const chunk = new Uint8Array(MiB).fill(0x78);
        if (pulled === 0) chunk.set(head);
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await SELF.fetch(`${ORIGIN}/api/v1/memory/knowledge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TENANCIES.acme.key}` },
      body,
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).code).toBe('PAYLOAD_TOO_LARGE');
    expect(pulled).toBeLessThan(total / 4);
    expect((await ok('get', { user_id: 'chunky', memory_type: 'knowledge' })).data.total_count).toBe(0);
  });

  it('unknown routes are 404 and other methods 405', async () => {
    expect((await call('nope', {})).status).toBe(404);
    expect((await SELF.fetch(`${ORIGIN}/elsewhere`)).status).toBe(404);
    const get = await SELF.fetch(`${ORIGIN}/api/v1/memory/search`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
