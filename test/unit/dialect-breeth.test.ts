/**
 * Breeth `POST /v1/search` (spec 002) over the fetch handler: every documented field and bound
 * with Breeth's `{error: slug}` shape, authentication, tenancy (the configured owner and app,
 * `group_id` as the Engram project), and a realistic search returning edges in Breeth's shape.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBreethSearch } from '../../src/contract/dialects/breeth.js';
import { rankGraphEdges } from '../../src/contract/dialects/breeth-graph.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { createError, isMemoryError } from '../../src/errors.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { isGraphItem, isMemoryRecord, type GraphItem, type GraphRelationItem, type MemoryRecord, type StoredItem } from '../../src/records.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { MINUTE, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const APP = 'acme';
let memory: Memory;
let items: MemoryRecord[] = [];
let graphItems: GraphItem[] = [];
let handler: (request: Request) => Promise<Response>;

async function post(body: unknown, init: { path?: string; headers?: Record<string, string>; method?: string; raw?: string; via?: typeof handler } = {}) {
  const response = await (init.via ?? handler)(new Request(`http://local${init.path ?? '/v1/search'}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    ...(init.method === 'GET' ? {} : { body: init.raw ?? JSON.stringify(body) }),
  }));
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const idsOf = (predicate: (r: MemoryRecord | GraphItem) => boolean) => new Set([...items, ...graphItems].filter(predicate).map((r) => r.id));

beforeAll(async () => {
  const store = createMemoryStore();
  memory = await createMemory({ store, embedder: hashEmbedderDouble() });
  const t = MONDAY_9AM;
  await remember(memory, 'chat-1', [
    said('ann', 'I prefer async Rust over Go for IO-heavy services.', t, { sender_name: 'Ann' }),
    replied('helper', 'Rust gives you predictable tail latency.', t + MINUTE),
    said('ann', 'I will visit Rome next week for a conference.', t + 2 * MINUTE, { sender_name: 'Ann' }),
    said('ann', 'Which web framework should I pick for the gateway?', t + 3 * MINUTE, { sender_name: 'Ann' }),
  ], { app_id: APP });
  // Another user of the same app, saying nearly the same: never part of Ann's answers.
  await remember(memory, 'chat-2', [said('bob', 'I prefer Rust over Go for services too.', t, { sender_name: 'Bob' })], { app_id: APP });
  // Ann in another project ("group") and in another app.
  await remember(memory, 'chat-3', [said('ann', 'I review Rust pull requests every Friday at work.', t, { sender_name: 'Ann' })], { app_id: APP, project_id: 'work' });
  await remember(memory, 'chat-4', [said('ann', 'I prefer Rust for hobby projects.', t, { sender_name: 'Ann' })], { app_id: 'other-app' });
  await memory.upsertKnowledge({ user_id: 'ann', app_id: APP, title: 'Rust toolchain', content: 'The team pins Rust 1.80 in rust-toolchain.toml.' });
  await memory.upsertSkill({ agent_id: 'helper', app_id: APP, name: 'Rust latency tuning', description: 'Tune async Rust services for tail latency.', content: 'Use bounded channels; measure p99.' });
  items = (await store.loadAll()).filter((i: StoredItem): i is MemoryRecord => isMemoryRecord(i));
  graphItems = (await store.loadAll()).filter(isGraphItem);
  handler = createFetchHandler(memory, {
    dialects: {
      breeth: { owner: { user_id: 'ann' }, app_id: APP, authorize: (r) => r.headers.get('authorization') === 'Bearer ck_live_ann' },
    },
  });
});

const AUTH = { authorization: 'Bearer ck_live_ann' };

describe('validation (400 invalid_request)', () => {
  const cases: [string, unknown, string | null][] = [
    ['missing query', { limit: 5 }, 'query'],
    ['null query', { query: null }, 'query'],
    ['empty query', { query: '' }, 'query'],
    ['blank query', { query: '   ' }, 'query'],
    ['numeric query', { query: 42 }, 'query'],
    ['query over 16000 characters', { query: 'x'.repeat(16_001) }, 'query'],
    ['group_id with a space', { query: 'rust', group_id: 'my group' }, 'group_id'],
    ['empty group_id', { query: 'rust', group_id: '' }, 'group_id'],
    ['numeric group_id', { query: 'rust', group_id: 7 }, 'group_id'],
    ['group_id over 256 characters', { query: 'rust', group_id: 'g'.repeat(257) }, 'group_id'],
    ['limit 0', { query: 'rust', limit: 0 }, 'limit'],
    ['limit 101', { query: 'rust', limit: 101 }, 'limit'],
    ['fractional limit', { query: 'rust', limit: 2.5 }, 'limit'],
    ['string limit', { query: 'rust', limit: '5' }, 'limit'],
    ['array body', [{ query: 'rust' }], null],
    ['string body', 'rust', null],
  ];
  it.each(cases)('%s', async (_name, body, field) => {
    const { status, body: out } = await post(body, { headers: AUTH });
    expect(status).toBe(400);
    expect(out['error']).toBe('invalid_request');
    expect(typeof out['message']).toBe('string');
    if (field) expect(out['field']).toBe(field);
    else expect(out).not.toHaveProperty('field');
  });

  it('reports every bad field at once', () => {
    let error: unknown;
    try {
      parseBreethSearch({ query: '', group_id: 'a b', limit: 0 });
    } catch (e) {
      error = e;
    }
    expect(isMemoryError(error) && error.code).toBe('VALIDATION_FAILED');
    expect(((error as { details: { loc: string[] }[] }).details).map((d) => d.loc[1])).toEqual(['query', 'group_id', 'limit']);
  });

  it('fills the documented defaults and accepts the bounds', () => {
    expect(parseBreethSearch({ query: 'r' })).toEqual({ query: 'r', group_id: 'default', limit: 10 });
    expect(parseBreethSearch({ query: 'r', group_id: null, limit: null })).toEqual({ query: 'r', group_id: 'default', limit: 10 });
    expect(parseBreethSearch({ query: 'r', limit: 1 }).limit).toBe(1);
    expect(parseBreethSearch({ query: 'r', limit: 100, group_id: 'team.a-1' })).toEqual({ query: 'r', group_id: 'team.a-1', limit: 100 });
  });

  it('ignores fields the page does not document', async () => {
    const { status, body } = await post({ query: 'rust', limit: 2, extract_intent: true, mode: 'fast' }, { headers: AUTH });
    expect(status).toBe(200);
    expect((body['edges'] as unknown[]).length).toBeGreaterThan(0);
  });

  it('answers malformed and empty bodies with 400, never 500', async () => {
    for (const raw of ['{"query": ', '', 'null']) {
      const { status, body } = await post(null, { raw, headers: AUTH });
      expect(status).toBe(400);
      expect(body['error']).toBe('invalid_request');
    }
  });
});

describe('authentication, methods and failures', () => {
  it('answers 401 unauthenticated when the authorize hook refuses, before reading the body', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
      const { status, body, headers: h } = await post({ query: 'rust' }, { headers });
      expect(status).toBe(401);
      expect(body['error']).toBe('unauthenticated');
      expect(h.get('www-authenticate')).toBe('Bearer');
    }
    expect((await post({}, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('answers 429 quota_exceeded when the hook reports a spent quota', async () => {
    const limited = createFetchHandler(memory, { dialects: { breeth: { owner: { user_id: 'ann' }, authorize: () => { throw createError('RATE_LIMITED'); } } } });
    const { status, body } = await post({ query: 'rust' }, { via: limited });
    expect(status).toBe(429);
    expect(body).toMatchObject({ error: 'quota_exceeded', kind: 'retrievals' });
  });

  it('answers 401 when the host refuses the memory (picker), 405 for GET', async () => {
    const refusing = createFetchHandler(async () => { throw createError('FORBIDDEN'); }, { dialects: { breeth: { owner: { user_id: 'ann' } } } });
    expect((await post({ query: 'rust' }, { via: refusing })).body['error']).toBe('unauthenticated');
    const get = await post(null, { method: 'GET', headers: AUTH });
    expect(get.status).toBe(405);
    expect(get.body['error']).toBe('method_not_allowed');
  });

  it('answers 503 unavailable when the memory itself fails', async () => {
    const closed = await createMemory({ embedder: hashEmbedderDouble() });
    await closed.close();
    const failing = createFetchHandler(closed, { dialects: { breeth: { owner: { user_id: 'ann' } } } });
    const { status, body } = await post({ query: 'rust' }, { via: failing });
    expect(status).toBe(503);
    expect(body['error']).toBe('unavailable');
  });

  it('is off unless configured, and leaves the EverOS routes as they are', async () => {
    const plain = createFetchHandler(memory);
    const off = await post({ query: 'rust' }, { via: plain });
    expect(off.status).toBe(404);
    expect(off.body).toEqual({ detail: 'Not Found' });
    const everos = await post({ user_id: 'ann', app_id: APP, query: 'rust', top_k: 0 }, { path: '/api/v1/memory/search', headers: AUTH });
    expect(everos.status).toBe(422);
    expect(Array.isArray(everos.body['detail'])).toBe(true);
  });

  it('refuses a misconfigured owner when the handler is created', () => {
    for (const owner of [{}, { user_id: 'ann', agent_id: 'helper' }, { user_id: 'not valid' }]) {
      expect(() => createFetchHandler(memory, { dialects: { breeth: { owner: owner as { user_id: string } } } })).toThrow(/owner/);
    }
    expect(() => createFetchHandler(memory, { dialects: { breeth: { owner: { user_id: 'ann' }, app_id: 'a b' } } })).toThrow(/app_id/);
  });
});

describe('search', () => {
  interface Edge { edge_uuid: string; source_node: string; target_node: string; fact: string; name: string; _tier: string }
  const search = async (body: Record<string, unknown>) => {
    const { status, body: out } = await post(body, { headers: AUTH });
    expect(status).toBe(200);
    return out as unknown as { edges: Edge[]; _cache: Record<string, unknown> };
  };

  it('answers a question with the graph link its fact was read into, in Breeth shape', async () => {
    const out = await search({ query: 'Does Ann prefer async Rust or Go for services?', limit: 5 });
    expect(Object.keys(out).sort()).toEqual(['_cache', 'edges']);
    expect(out._cache).toEqual({ tier: 'disabled', hot_hits: out.edges.length, cold_hits: 0, group_id: 'default' });
    const top = out.edges[0]!;
    expect(Object.keys(top).sort()).toEqual(['_tier', 'edge_uuid', 'fact', 'name', 'source_node', 'target_node']);
    const fact = items.find((r) => r.kind === 'atomic_fact' && r.content.includes('prefers async Rust'))!;
    // The link is the stored relation read from that fact: its id, subject, object and predicate.
    const link = graphItems.find((i): i is GraphRelationItem => i.kind === 'graph_relation' && i.fact_id === fact.id)!;
    expect(link).toMatchObject({ subject: 'user:ann', predicate: 'prefers', object: 'e:rust' });
    expect(top).toEqual({ edge_uuid: link.id, source_node: 'Ann', target_node: 'Rust', fact: 'Ann prefers async Rust over Go for IO-heavy services.', name: 'prefers', _tier: 'hot' });
    for (const e of out.edges) expect(e).not.toHaveProperty('intent_meta');
  });

  it('labels plans, knowledge and quoted statements', async () => {
    const rome = await search({ query: 'Rome conference next week', limit: 10 });
    const plan = rome.edges.find((e) => e.edge_uuid.startsWith('fs_'))!;
    expect(plan).toMatchObject({ name: 'plans', target_node: 'Rome', source_node: 'Ann' });
    const question = (await search({ query: 'web framework for the gateway', limit: 10 })).edges[0];
    expect(question).toMatchObject({ name: 'asked', source_node: 'Ann', fact: 'Ann asked: Which web framework should Ann pick for the gateway?' });
    const toolchain = await search({ query: 'toolchain version pinned', limit: 10 });
    const note = toolchain.edges.find((e) => idsOf((r) => r.kind === 'knowledge').has(e.edge_uuid))!;
    expect(note).toMatchObject({ name: 'noted', target_node: 'Rust toolchain', fact: 'The team pins Rust 1.80 in rust-toolchain.toml.' });
  });

  it('returns at most limit edges, best first', async () => {
    expect((await search({ query: 'Rust', limit: 1 })).edges).toHaveLength(1);
    const many = await search({ query: 'Rust', limit: 100 });
    expect(many.edges.length).toBeGreaterThan(1);
    expect(new Set(many.edges.map((e) => e.edge_uuid)).size).toBe(many.edges.length);
  });

  it('stays inside the configured owner and app; group_id picks the project', async () => {
    const annHere = idsOf((r) => r.owner_type === 'user' && r.owner_id === 'ann' && r.app_id === APP && r.project_id === 'default');
    const annWork = idsOf((r) => r.owner_id === 'ann' && r.app_id === APP && r.project_id === 'work');
    for (const query of ['Rust over Go for services', 'hobby projects', 'pull requests Friday', 'latency tuning']) {
      for (const e of (await search({ query, limit: 100 })).edges) expect(annHere.has(e.edge_uuid), `${query}: ${e.fact}`).toBe(true);
      const work = await search({ query, group_id: 'work', limit: 100 });
      expect(work._cache['group_id']).toBe('work');
      for (const e of work.edges) expect(annWork.has(e.edge_uuid)).toBe(true);
    }
    const empty = await search({ query: 'Rust', group_id: 'nobody-here' });
    expect(empty).toEqual({ edges: [], _cache: { tier: 'disabled', hot_hits: 0, cold_hits: 0, group_id: 'nobody-here' } });
  });

  it('serves an agent owner: its skills become edges', async () => {
    const agentHandler = createFetchHandler(memory, { dialects: { breeth: { owner: { agent_id: 'helper' }, app_id: APP } } });
    const { status, body } = await post({ query: 'tail latency tuning' }, { via: agentHandler });
    expect(status).toBe(200);
    const skill = items.find((r) => r.kind === 'agent_skill')!;
    const edge = (body['edges'] as Edge[]).find((e) => e.edge_uuid === skill.id);
    expect(edge).toEqual({ edge_uuid: skill.id, source_node: 'helper', target_node: 'Rust latency tuning', fact: 'Tune async Rust services for tail latency.', name: 'knows', _tier: 'hot' });
  });
});

describe('answers from the entity graph', () => {
  interface Edge { edge_uuid: string; source_node: string; target_node: string; fact: string; name: string }
  let graphHandler: (request: Request) => Promise<Response>;
  let graphMemory: Memory;
  const SCOPE = { app_id: APP, project_id: 'default', owner_type: 'user', owner_id: 'maya' } as const;
  const ask = async (query: string, limit = 20) => {
    const { status, body } = await post({ query, limit }, { via: graphHandler });
    expect(status).toBe(200);
    return body['edges'] as Edge[];
  };

  beforeAll(async () => {
    graphMemory = await createMemory({ embedder: hashEmbedderDouble() });
    const t = MONDAY_9AM;
    const maya = (text: string, at: number) => said('maya', text, at, { sender_name: 'Maya' });
    await remember(graphMemory, 'g1', [maya('I have a cat named Pixel. I live in Lisbon. My sister Ana lives in Braga.', t)], { app_id: APP });
    await remember(graphMemory, 'g2', [maya('I moved to Porto.', t + 86_400_000)], { app_id: APP });
    graphHandler = createFetchHandler(graphMemory, { dialects: { breeth: { owner: { user_id: 'maya' }, app_id: APP } } });
  });

  it('takes source_node, target_node and name from the stored relations', async () => {
    const graph = graphMemory.graph(SCOPE);
    const edges = await ask('Where does Ana live?');
    const ana = edges.find((e) => e.source_node === 'Ana')!;
    const link = graph.relations.find((r) => r.subject === 'e:ana' && r.predicate === 'lives_in')!;
    expect(ana).toMatchObject({ edge_uuid: link.id, target_node: 'Braga', name: 'lives_in', fact: 'Maya\'s sister Ana lives in Braga.' });
  });

  it('brings the links of an entity the query names by an alias, and ranks the home that holds above the one it replaced', async () => {
    const pets = await ask("Maya's cat");
    expect(pets.find((e) => e.name === 'has_pet')).toMatchObject({ source_node: 'Maya', target_node: 'Pixel' });
    const homes = (await ask('Where does Maya live? Lisbon or Porto')).filter((e) => e.source_node === 'Maya' && e.name === 'lives_in');
    expect(homes.map((e) => [e.target_node, e.fact])).toEqual([['Porto', 'Maya moved to Porto.'], ['Lisbon', 'Maya lives in Lisbon.']]);
  });
});

describe('graph ranking', () => {
  const rel = (id: string, subject: string, object: string, fact_id: string, superseded_at: number | null = null) => ({
    id, subject, predicate: 'knows', object, fact_id, session_id: 's', source_message_ids: [], valid_from: 0, superseded_at,
  });
  const entity = (id: string, centrality: number) => ({ id, name: id.toUpperCase(), type: 'person', aliases: [], session_ids: ['s'], centrality });
  const hit = (id: string, score: number) => ({ record: { id, kind: 'atomic_fact', content: `fact ${id}` } as never, parent: null, score });
  const rank = (hits: ReturnType<typeof hit>[], superseded: number | null = null) => rankGraphEdges({
    graph: { entities: [entity('hub', 1), entity('a', 0.2), entity('b', 0.2), entity('c', 0)], relations: [rel('r1', 'a', 'b', 'f1'), rel('r2', 'hub', 'c', 'f2', superseded)] },
    query: 'anything', owner: 'user:nobody', hits,
    fallback: (h) => ({ edge_uuid: h.record.id, source_node: 'x', target_node: 'y', name: 'said', fact: `fact ${h.record.id}` }),
    factText: () => new Map(),
  });

  it('adds centrality to the hybrid relevance: at equal relevance the hub’s link comes first', () => {
    expect(rank([hit('f1', 0.6), hit('f2', 0.6)]).map((e) => e.edge_uuid)).toEqual(['r2', 'r1']);
    // Relevance still leads: centrality is a bonus of at most 0.15.
    expect(rank([hit('f1', 0.8), hit('f2', 0.6)]).map((e) => e.edge_uuid)).toEqual(['r1', 'r2']);
  });

  it('ranks a replaced link below the one that replaced it, however close its words are', () => {
    const ranked = rankGraphEdges({
      graph: { entities: [entity('a', 0.5), entity('b', 0.2), entity('c', 0.2)], relations: [rel('old', 'a', 'b', 'f1', 5), rel('new', 'a', 'c', 'f2')] },
      query: 'anything', owner: 'user:nobody', hits: [hit('f1', 0.9), hit('f2', 0.3)],
      fallback: (h) => ({ edge_uuid: h.record.id, source_node: 'x', target_node: 'y', name: 'said', fact: '' }),
      factText: () => new Map(),
    });
    expect(ranked.map((e) => e.edge_uuid)).toEqual(['new', 'old']);
  });

  it('puts a superseded link below one that holds, and keeps a memory with no link as its own edge', () => {
    expect(rank([hit('f1', 0.6), hit('f2', 0.6)], 5).map((e) => e.edge_uuid)).toEqual(['r1', 'r2']);
    expect(rank([hit('f9', 0.5)])).toEqual([{ edge_uuid: 'f9', source_node: 'x', target_node: 'y', name: 'said', fact: 'fact f9', score: 0.5 }]);
  });
});
