/**
 * Tablestore AgentStorage `SearchMemories` (spec 003) over the fetch handler: every documented
 * field and bound answered with INVALID_PARAMETER in Tablestore's envelope, scope wildcards and
 * `__default__`, the scope filter, tenant isolation, thresholds, metadata, contextScope soft
 * ranking, evidence, and the memory units of a realistic search, key by key.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSearchMemories, CONTEXT_BOOST } from '../../src/contract/dialects/tablestore.js';
import { byScore } from '../../src/contract/dialects/shared.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError } from '../../src/errors.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { AtomicFactRecord, MemoryRecord, StoredItem } from '../../src/records.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { DAY, MINUTE, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const APP = 'app-001';
const STORE = 'agent_memory';
const D = '__default__';
const TEA = 'I drink green tea every morning.';

interface Unit { id: string; scope: Record<string, string>; unit_type: string; [key: string]: unknown }
interface Result { unit: Unit; score: number; similarity: number; source: string; rankingScore?: number; rankingSignals?: Record<string, unknown> }
interface Answer { memoryStoreName: string; results: Result[]; fileResults: unknown[]; evidence?: Record<string, unknown>[]; scope: Record<string, string> }

let memory: Memory;
let records: MemoryRecord[] = [];
let handler: (request: Request) => Promise<Response>;

async function call(body: unknown, init: { headers?: Record<string, string>; method?: string; raw?: string; via?: typeof handler; path?: string } = {}) {
  const response = await (init.via ?? handler)(new Request(`http://local${init.path ?? '/SearchMemories'}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', 'x-ots-apikey': 'key-1', ...init.headers },
    ...(init.method === 'GET' ? {} : { body: init.raw ?? JSON.stringify(body) }),
  }));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A successful search; `scope` fields default to a full wildcard under app-001. */
async function search(extra: Record<string, unknown>, scope: Record<string, string> = { tenantId: '*', agentId: '*', runId: '*' }): Promise<Answer> {
  const { status, body } = await call({ memoryStoreName: STORE, query: 'morning drink', topK: 50, ...extra, scope: { appId: APP, ...scope, ...(extra['scope'] as object) } });
  expect(status, JSON.stringify(body)).toBe(200);
  return body as unknown as Answer;
}

const owned = (type: 'user' | 'agent', id: string) => new Set(records.filter((r) => r.owner_type === type && r.owner_id === id && r.app_id === APP && r.project_id === STORE).map((r) => r.id));
const runs = (answer: Answer) => new Set(answer.results.map((r) => r.unit.scope['runId']));

beforeAll(async () => {
  const store = createMemoryStore();
  memory = await createMemory({ store, embedder: hashEmbedderDouble() });
  const t = MONDAY_9AM;
  const where = { app_id: APP, project_id: STORE };
  await remember(memory, 'session-001', [said('user-001', TEA, t), replied('assistant', 'Green tea is a gentle start to the day.', t + MINUTE)], where);
  await remember(memory, 'session-002', [said('user-001', TEA, t + DAY), said('user-001', 'My employee number is FALCON-9931.', t + DAY + MINUTE), replied('assistant', 'Noted, thanks.', t + DAY + 2 * MINUTE)], where);
  await remember(memory, 'session-003', [said('user-002', 'I drink black coffee every morning.', t), replied('assistant', 'Coffee it is.', t + MINUTE)], where);
  await remember(memory, 'session-004', [said('user-001', 'I run five kilometres every morning before my drink.', t + 2 * DAY), replied('coach', 'Great morning routine.', t + 2 * DAY + MINUTE)], where);
  await memory.upsertKnowledge({ user_id: 'user-001', ...where, title: 'Drink preferences', content: 'Oolong tea in winter, cold brew in summer, every morning.' });
  // The same words elsewhere: another app, and another memory store (project). Never part of app-001 / agent_memory answers.
  await remember(memory, 'session-001', [said('user-001', TEA, t)], { app_id: 'app-002', project_id: STORE });
  await remember(memory, 'session-001', [said('user-001', TEA, t)], { app_id: APP, project_id: 'other_store' });
  records = (await store.loadAll()).filter((i: StoredItem): i is MemoryRecord => i.kind !== 'message');
  handler = createFetchHandler(memory, { dialects: { tablestore: { authorize: (r) => r.headers.get('x-ots-apikey') === 'key-1' } } });
});

it('a unit whose id a client chose as "__proto__" has its similarity and its sources like any other', async () => {
  const own = await createMemory({ embedder: await createDefaultEmbedder() });
  const where = { app_id: APP, project_id: STORE };
  for (const id of ['__proto__', 'toString', 'plain-id']) await own.upsertCase({ ...where, agent_id: 'user-001', session_id: 'session-001', id, task_intent: `choose a morning drink (${id})`, approach: 'green tea every morning' });
  const response = await createFetchHandler(own, { dialects: { tablestore: {} } })(new Request('http://local/SearchMemories', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ memoryStoreName: STORE, query: 'morning drink green tea', topK: 20, scope: { appId: APP, tenantId: '*', agentId: '*', runId: '*' } }),
  }));
  expect(response.status).toBe(200);
  const results = ((await response.json()) as { results: { unit: { id: string }; similarity: number | null; source: string }[] }).results;
  expect(results.map((r) => r.unit.id).sort()).toEqual(['__proto__', 'plain-id', 'toString']);
  for (const r of results) {
    expect(typeof r.similarity, r.unit.id).toBe('number');
    expect(r.similarity, r.unit.id).toBeGreaterThan(0);
    expect(r.source, r.unit.id).toBe('vector+text');
  }
  await own.close();
});

describe('validation (400 INVALID_PARAMETER)', () => {
  const base = { memoryStoreName: STORE, query: 'tea', scope: { appId: APP, tenantId: '*' } };
  const deep = (n: number): unknown => (n === 0 ? { op: 'eq', field: 'runId', value: 's' } : { op: 'not', condition: deep(n - 1) });
  const cases: [string, Record<string, unknown>, string][] = [
    ['missing memoryStoreName', { memoryStoreName: undefined }, 'memoryStoreName'],
    ['empty memoryStoreName', { memoryStoreName: '' }, 'memoryStoreName'],
    ['memoryStoreName Engram cannot name', { memoryStoreName: 'my store' }, 'memoryStoreName'],
    ['missing query', { query: undefined }, 'query'],
    ['empty query', { query: '' }, 'query'],
    ['blank query', { query: ' \n ' }, 'query'],
    ['query over 8192 characters', { query: 'q'.repeat(8193) }, 'query'],
    ['numeric query', { query: 7 }, 'query'],
    ['missing scope', { scope: undefined }, 'scope'],
    ['scope not an object', { scope: 'app-001' }, 'scope'],
    ['scope without appId', { scope: { tenantId: 'u' } }, 'scope.appId'],
    ['scope appId *', { scope: { appId: '*' } }, 'scope.appId'],
    ['empty tenantId', { scope: { appId: APP, tenantId: '' } }, 'scope.tenantId'],
    ['tenantId with /', { scope: { appId: APP, tenantId: 'a/b' } }, 'scope.tenantId'],
    ['partial wildcard', { scope: { appId: APP, runId: 'sess*' } }, 'scope.runId'],
    ['unknown scope key', { scope: { appId: APP, userId: 'u' } }, 'scope.userId'],
    ['filter without op', { filter: { field: 'runId', value: 's' } }, 'filter.op'],
    ['filter with an unknown op', { filter: { op: 'like', field: 'runId', value: 's' } }, 'filter.op'],
    ['filter op named after an object property', { filter: { op: 'constructor', field: 'runId', value: 's' } }, 'filter.op'],
    ['filter op __proto__', { filter: { op: '__proto__', field: 'runId', value: 's' } }, 'filter.op'],
    ['filter on memory text', { filter: { op: 'eq', field: 'text', value: 'tea' } }, 'filter.field'],
    ['filter value with a wildcard', { filter: { op: 'eq', field: 'runId', value: '*sess*' } }, 'filter.value'],
    ['filter in without values', { filter: { op: 'in', field: 'runId', values: [] } }, 'filter.values'],
    ['filter and without conditions', { filter: { op: 'and', conditions: [] } }, 'filter.conditions'],
    ['filter not with two conditions', { filter: { op: 'not', conditions: [deep(0), deep(0)] } }, 'filter.conditions'],
    ['filter node with a stray key', { filter: { op: 'eq', field: 'runId', value: 's', values: ['t'] } }, 'filter.values'],
    ['filter nested too deep', { filter: deep(9) }, 'filter.condition.condition.condition.condition.condition.condition.condition.condition.condition'],
    ['contextScope with a wildcard', { contextScope: { appId: APP, tenantId: '*' } }, 'contextScope.tenantId'],
    ['contextScope outside scope', { scope: { appId: APP, tenantId: 'user-001' }, contextScope: { appId: APP, tenantId: 'user-002' } }, 'contextScope'],
    ['contextScope outside filter', { filter: { op: 'eq', field: 'runId', value: 'r1' }, contextScope: { appId: APP, tenantId: 'u', runId: 'r2' } }, 'contextScope'],
    ['topK 0', { topK: 0 }, 'topK'],
    ['topK 51', { topK: 51 }, 'topK'],
    ['fractional topK', { topK: 2.5 }, 'topK'],
    ['string topK', { topK: '10' }, 'topK'],
    ['enableRerank not a boolean', { enableRerank: 'yes' }, 'enableRerank'],
    ['includeEvidence not a boolean', { includeEvidence: 1 }, 'includeEvidence'],
    ['minSimilarity below 0', { minSimilarity: -0.1 }, 'minSimilarity'],
    ['minSimilarity above 1', { minSimilarity: 1.1 }, 'minSimilarity'],
    ['minSimilarity with thresholds', { minSimilarity: 0.2, thresholds: { minScore: 0.1 } }, 'minSimilarity'],
    ['thresholds not an object', { thresholds: 0.3 }, 'thresholds'],
    ['thresholds.minScore above 1', { thresholds: { minScore: 2 } }, 'thresholds.minScore'],
    ['thresholds.minSimilarity not a number', { thresholds: { minSimilarity: '0.3' } }, 'thresholds.minSimilarity'],
    ['unknown threshold', { thresholds: { maxScore: 0.9 } }, 'thresholds.maxScore'],
    ['metadata not an object', { metadata: ['source'] }, 'metadata'],
    ['metadata with 17 keys', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    ['metadata key over 64 characters', { metadata: { ['k'.repeat(65)]: 'v' } }, `metadata.${'k'.repeat(65)}`],
    ['metadata value over 1024 characters', { metadata: { source: 'v'.repeat(1025) } }, 'metadata.source'],
    ['metadata value not a string', { metadata: { attempt: 3 } }, 'metadata.attempt'],
    ['unknown request field', { outputs: ['structured'] }, 'outputs'],
  ];

  it.each(cases)('%s', async (_name, patch, field) => {
    const body = { ...base, ...patch };
    let error: unknown;
    try {
      parseSearchMemories(body);
    } catch (e) {
      error = e;
    }
    expect(isMemoryError(error) && error.code).toBe('VALIDATION_FAILED');
    expect(((error as { details: { issues: { field: string }[] } }).details.issues).map((i) => i.field)).toContain(field);
    const { status, body: out } = await call(body);
    expect(status).toBe(400);
    expect(Object.keys(out).sort()).toEqual(['Code', 'Message', 'RequestId']);
    expect(out['Code']).toBe('INVALID_PARAMETER');
    expect(out['Message']).toContain(field);
  });

  it('fills the documented defaults and accepts every bound', () => {
    const parsed = parseSearchMemories({ memoryStoreName: STORE, query: 'q'.repeat(8192), scope: { appId: APP } });
    expect(parsed).toEqual({
      memoryStoreName: STORE, project_id: STORE, query: 'q'.repeat(8192), scope: { appId: APP, tenantId: D, agentId: D, runId: D }, filter: null, contextScope: null,
      topK: 10, enableRerank: true, includeEvidence: false, minScore: null, minSimilarity: null, metadata: {},
    });
    const full = parseSearchMemories({
      ...base, scope: { appId: APP, tenantId: '*', agentId: '*', runId: '*' }, topK: 50, enableRerank: false, includeEvidence: true, thresholds: { minSimilarity: 0, minScore: 1 },
      metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [String(i).padEnd(64, 'k'), 'v'.repeat(1024)])),
      contextScope: { appId: APP, tenantId: 'user-001', agentId: 'assistant', runId: 'session-001' },
    });
    expect(full).toMatchObject({ topK: 50, enableRerank: false, includeEvidence: true, minSimilarity: 0, minScore: 1, contextScope: { tenantId: 'user-001', runId: 'session-001' } });
    expect(parseSearchMemories({ ...base, minSimilarity: 0.4 })).toMatchObject({ minScore: 0.4, minSimilarity: null });
    expect(parseSearchMemories({ ...base, metadata: { ['键'.repeat(64)]: '值'.repeat(1024) } }).metadata).toEqual({ ['键'.repeat(64)]: '值'.repeat(1024) });
  });

  it('maps the memory store through projectFor, refusing stores it does not serve', async () => {
    const mapped = createFetchHandler(memory, { dialects: { tablestore: { projectFor: (name) => (name === 'prod' ? STORE : null) } } });
    const ok = await call({ memoryStoreName: 'prod', query: 'tea', scope: { appId: APP, tenantId: 'user-001', agentId: '*', runId: '*' } }, { via: mapped });
    expect(ok.status).toBe(200);
    expect((ok.body['results'] as unknown[]).length).toBeGreaterThan(0);
    const unknown = await call({ memoryStoreName: STORE, query: 'tea', scope: { appId: APP } }, { via: mapped });
    expect(unknown.status).toBe(400);
    expect(unknown.body['Code']).toBe('INVALID_PARAMETER');
  });

  it('refuses a scope that resolves to more than 1000 conversation scopes', async () => {
    const big = await createMemory({ embedder: hashEmbedderDouble() });
    for (let i = 0; i < 1001; i++) await big.upsertCase({ agent_id: 'bot', app_id: 'big', project_id: 'store', session_id: `s-${i}`, task_intent: 'sort files', approach: 'by date' });
    const bigHandler = createFetchHandler(big, { dialects: { tablestore: {} } });
    const wide = await call({ memoryStoreName: 'store', query: 'sort', scope: { appId: 'big', agentId: 'bot', runId: '*' } }, { via: bigHandler });
    expect(wide.status).toBe(400);
    expect(wide.body['Code']).toBe('INVALID_PARAMETER');
    const narrowed = await call({ memoryStoreName: 'store', query: 'sort', scope: { appId: 'big', agentId: 'bot', runId: '*' }, filter: { op: 'in', field: 'runId', values: ['s-1', 's-2'] } }, { via: bigHandler });
    expect(narrowed.status).toBe(200);
    expect(new Set((narrowed.body['results'] as Result[]).map((r) => r.unit.scope['runId']))).toEqual(new Set(['s-1', 's-2']));
  });
});

describe('the route', () => {
  it('answers 401 for a refused key, 405 for GET, 400 for malformed JSON, 503 when the memory fails', async () => {
    const refused = await call({ memoryStoreName: STORE, query: 'tea', scope: { appId: APP } }, { headers: { 'x-ots-apikey': 'nope' } });
    expect(refused.status).toBe(401);
    expect(Object.keys(refused.body).sort()).toEqual(['Code', 'Message', 'RequestId']);
    const get = await call(null, { method: 'GET' });
    expect([get.status, get.body['Code']]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    for (const raw of ['{"query":', '', '[1]']) {
      const bad = await call(null, { raw });
      expect([bad.status, bad.body['Code']]).toEqual([400, 'INVALID_PARAMETER']);
    }
    const closed = await createMemory({ embedder: hashEmbedderDouble() });
    await closed.close();
    const failing = await call({ memoryStoreName: STORE, query: 'tea', scope: { appId: APP } }, { via: createFetchHandler(closed, { dialects: { tablestore: {} } }) });
    expect([failing.status, failing.body['Code']]).toEqual([503, 'SERVICE_UNAVAILABLE']);
  });

  it('is off unless configured', async () => {
    const off = await call({ memoryStoreName: STORE, query: 'tea', scope: { appId: APP } }, { via: createFetchHandler(memory) });
    expect(off.status).toBe(404);
    expect(off.body).toEqual({ detail: 'Not Found' });
  });
});

describe('search', () => {
  it('returns memory units in the documented shape', async () => {
    const answer = await search({ query: 'green tea every morning', includeEvidence: true }, { tenantId: 'user-001', agentId: '*', runId: '*' });
    expect(Object.keys(answer).sort()).toEqual(['evidence', 'fileResults', 'memoryStoreName', 'results', 'scope']);
    expect(answer.memoryStoreName).toBe(STORE);
    expect(answer.fileResults).toEqual([]);
    expect(answer.scope).toEqual({ appId: APP, tenantId: 'user-001', agentId: '*', runId: '*' });

    const top = answer.results[0]!;
    expect(Object.keys(top).sort()).toEqual(['score', 'similarity', 'source', 'unit']);
    const fact = records.find((r) => r.id === top.unit.id)!;
    expect(fact.kind).toBe('atomic_fact');
    if (fact.kind !== 'atomic_fact') throw new Error('unreachable');
    const episode = records.find((r) => r.id === fact.parent_id)!;
    const runId = fact.session_id!;
    expect(top.unit).toEqual({
      id: fact.id,
      conversation_key: `${APP}/user-001/assistant/${runId}`,
      scope: { appId: APP, tenantId: 'user-001', agentId: 'assistant', runId },
      memcell_id: episode.parent_id,
      unit_type: 'atomic_fact',
      title: '',
      text: fact.content,
      search_text: fact.content,
      keywords: expect.any(Array),
      source_turn_ids: fact.source_message_ids,
      type_label: 'atomic_fact',
      date_bucket: new Date(fact.timestamp).toISOString().slice(0, 7),
      metadata: {},
      metadata_json: '{}',
      metadata_flat: '',
      deleted: false,
      created_at: new Date(fact.created_at).toISOString(),
      effective_at: new Date(fact.timestamp).toISOString(),
      updated_at: new Date(fact.updated_at).toISOString(),
      time_source: 'source_message',
      time_precision: 'second',
      version: 1,
      speaker: 'user-001',
      source_turn_refs: [{ messageId: fact.source_message_ids[0], timestampMs: fact.timestamp }],
    });
    expect(episode.parent_id).toMatch(/^mc_/);
    const kw = top.unit['keywords'] as string[];
    expect(kw.length).toBeGreaterThan(0);
    expect(kw.length).toBeLessThanOrEqual(8);
    expect(kw).toContain('tea');
    for (const k of kw) expect([...k].length).toBeLessThanOrEqual(32);

    for (const r of answer.results) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
      expect(r.similarity).toBeGreaterThanOrEqual(0);
      expect(r.similarity).toBeLessThanOrEqual(1);
      expect(['vector', 'text', 'vector+text']).toContain(r.source);
    }
    const scores = answer.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));

    const spoken = answer.evidence!.find((e) => e['unitId'] === fact.id)!;
    expect(spoken).toEqual({ messageId: fact.source_message_ids[0], unitId: fact.id, scope: top.unit.scope, speaker: 'user-001', content: TEA, timestampMs: fact.timestamp });
    expect(answer.evidence!.length).toBeGreaterThan(0);

    const plain = await search({ query: 'green tea every morning' }, { tenantId: 'user-001', agentId: '*', runId: '*' });
    expect(plain).not.toHaveProperty('evidence');
    expect(plain.results.map((r) => r.unit.id)).toEqual(answer.results.map((r) => r.unit.id));
  });

  it('never returns another tenant\'s memory for a tenant scope', async () => {
    for (const tenant of ['user-001', 'user-002']) {
      const mine = owned('user', tenant);
      for (const query of ['green tea every morning', 'black coffee', 'employee number FALCON-9931', 'run five kilometres', 'Oolong winter']) {
        const answer = await search({ query }, { tenantId: tenant, agentId: '*', runId: '*' });
        for (const r of answer.results) {
          expect(r.unit.scope['tenantId']).toBe(tenant);
          expect(mine.has(r.unit.id), `${tenant} / ${query}: ${String(r.unit['text'])}`).toBe(true);
        }
      }
    }
  });

  it('matches every tenant, and the agents, only for an explicit *', async () => {
    const all = await search({ query: 'every morning drink' });
    const tenants = new Set(all.results.map((r) => r.unit.scope['tenantId']));
    expect(tenants).toEqual(new Set(['user-001', 'user-002', D]));
    const ids = new Set([...owned('user', 'user-001'), ...owned('user', 'user-002'), ...owned('agent', 'assistant'), ...owned('agent', 'coach')]);
    for (const r of all.results) expect(ids.has(r.unit.id)).toBe(true);
    // Omitted fields are __default__: user-001's memories outside any conversation (its knowledge).
    const defaults = await search({ query: 'every morning drink', scope: { appId: APP, tenantId: 'user-001' } }, {});
    expect(defaults.scope).toEqual({ appId: APP, tenantId: 'user-001', agentId: D, runId: D });
    expect(defaults.results.map((r) => [r.unit.unit_type, r.unit.scope['agentId'], r.unit.scope['runId']])).toEqual([['knowledge', D, D]]);
  });

  it('reads agentId and runId as the conversation\'s agent and session', async () => {
    const coach = await search({ query: 'every morning' }, { tenantId: 'user-001', agentId: 'coach', runId: '*' });
    expect(coach.results.length).toBeGreaterThan(0);
    expect(runs(coach)).toEqual(new Set(['session-004']));
    // The assistant's conversations with every user, and its own memories: cases from those
    // sessions, and the skills it learned from them, which belong to no session.
    const withAssistant = await search({ query: 'every morning' }, { tenantId: '*', agentId: 'assistant', runId: '*' });
    expect(runs(withAssistant)).toEqual(new Set(['session-001', 'session-002', 'session-003', D]));
    for (const r of withAssistant.results) if (r.unit.scope['runId'] === D) expect([r.unit.unit_type, r.unit.scope['tenantId']]).toEqual(['agent_skill', D]);
    const agentOwn = await search({ query: 'every morning' }, { agentId: 'assistant', runId: '*' });
    expect(agentOwn.results.length).toBeGreaterThan(0);
    for (const r of agentOwn.results) {
      expect([r.unit.scope['tenantId'], r.unit.scope['agentId']]).toEqual([D, 'assistant']);
      expect(['agent_case', 'agent_skill']).toContain(r.unit.unit_type);
    }
    const oneRun = await search({ query: 'every morning' }, { tenantId: '*', agentId: '*', runId: 'session-002' });
    expect(runs(oneRun)).toEqual(new Set(['session-002']));
  });

  it('applies the scope filter with and / or / not / eq / in', async () => {
    const inRuns = await search({ filter: { op: 'in', field: 'runId', values: ['session-001', 'session-003'] } });
    expect(runs(inRuns)).toEqual(new Set(['session-001', 'session-003']));
    const notUser = await search({ filter: { op: 'not', condition: { op: 'eq', field: 'tenantId', value: 'user-001' } } });
    expect(notUser.results.length).toBeGreaterThan(0);
    for (const r of notUser.results) expect(r.unit.scope['tenantId']).not.toBe('user-001');
    const nested = await search({
      filter: { op: 'and', conditions: [{ op: 'eq', field: 'tenantId', value: 'user-001' }, { op: 'or', conditions: [{ op: 'eq', field: 'runId', value: 'session-004' }, { op: 'eq', field: 'agentId', value: D }] }] },
    });
    expect(runs(nested)).toEqual(new Set(['session-004', D]));
  });

  it('finds nothing in another app or memory store', async () => {
    for (const answer of [await search({ query: TEA }, { tenantId: '*', agentId: '*', runId: '*', appId: 'app-404' }), await search({ memoryStoreName: 'no_such_store', query: TEA })]) {
      expect(answer.results).toEqual([]);
    }
    const elsewhere = new Set(records.filter((r) => r.app_id !== APP || r.project_id !== STORE).map((r) => r.id));
    for (const r of (await search({ query: TEA })).results) expect(elsewhere.has(r.unit.id)).toBe(false);
  });

  it('filters by thresholds (score, similarity, both) and by the compatibility minSimilarity', async () => {
    const baseline = (await search({ query: 'green tea every morning' })).results;
    const scores = [...new Set(baseline.map((r) => r.score))].sort((a, b) => a - b);
    expect(scores.length).toBeGreaterThan(2);
    const t = scores[Math.floor(scores.length / 2)]!;
    const sims = [...new Set(baseline.map((r) => r.similarity))].sort((a, b) => a - b);
    const s = sims[Math.floor(sims.length / 2)]!;
    const ids = (list: Result[]) => list.map((r) => r.unit.id);

    const byScore = (await search({ query: 'green tea every morning', thresholds: { minScore: t } })).results;
    expect(ids(byScore)).toEqual(ids(baseline.filter((r) => r.score >= t)));
    expect(byScore.length).toBeLessThan(baseline.length);
    const compat = (await search({ query: 'green tea every morning', minSimilarity: t })).results;
    expect(ids(compat)).toEqual(ids(byScore));
    const bySimilarity = (await search({ query: 'green tea every morning', thresholds: { minSimilarity: s } })).results;
    expect(ids(bySimilarity)).toEqual(ids(baseline.filter((r) => r.similarity >= s)));
    const both = (await search({ query: 'green tea every morning', thresholds: { minSimilarity: s, minScore: t } })).results;
    expect(ids(both)).toEqual(ids(baseline.filter((r) => r.similarity >= s && r.score >= t)));
  });

  it('matches no memory on a metadata key none was written with, and ignores an empty metadata', async () => {
    const baseline = await search({ query: TEA });
    expect(baseline.results.length).toBeGreaterThan(0);
    expect((await search({ query: TEA, metadata: { source: 'chat' } })).results).toEqual([]);
    expect((await search({ query: TEA, metadata: {} })).results.map((r) => r.unit.id)).toEqual(baseline.results.map((r) => r.unit.id));
  });

  it('caps results at topK', async () => {
    expect((await search({ query: 'every morning', topK: 1 })).results).toHaveLength(1);
    expect((await search({ query: 'every morning', topK: 3 })).results).toHaveLength(3);
  });

  describe('contextScope soft ranking', () => {
    const scope = { tenantId: 'user-001', agentId: '*', runId: '*' };
    const context = (runId: string) => ({ appId: APP, tenantId: 'user-001', agentId: 'assistant', runId });
    // The fact each of user-001's two conversations made from the same sentence, found by the words
    // it was drawn from rather than by how the extractor phrases it; the same memory in each, so
    // equally relevant to any query.
    const teaFacts = () => new Set(records.filter((r) => r.kind === 'atomic_fact' && !r.passage && r.evidence === TEA && r.app_id === APP && r.project_id === STORE).map((r) => r.id));
    const isTea = (r: Result) => teaFacts().has(r.unit.id);
    const teaRuns = (answer: Answer) => answer.results.filter(isTea).map((r) => r.unit.scope['runId']);

    it('puts the current conversation first among equally relevant memories, without widening the range', async () => {
      const plain = await search({ query: TEA }, scope);
      expect(plain.results.every((r) => !('rankingScore' in r) && !('rankingSignals' in r))).toBe(true);
      expect(teaFacts().size).toBe(2);
      const tea = plain.results.filter(isTea);
      expect(tea).toHaveLength(2);
      expect(tea[0]!.unit['text']).toBe(tea[1]!.unit['text']);
      expect(tea[0]!.score).toBe(tea[1]!.score);

      for (const runId of ['session-001', 'session-002']) {
        const ranked = await search({ query: TEA, contextScope: context(runId) }, scope);
        expect(teaRuns(ranked)[0]).toBe(runId);
        expect(new Set(ranked.results.map((r) => r.unit.id))).toEqual(new Set(plain.results.map((r) => r.unit.id)));
        for (const r of ranked.results) {
          const same = r.unit.scope['runId'] === runId && r.unit.scope['agentId'] === 'assistant';
          expect(r.rankingSignals).toEqual({ score: r.score, contextBoost: same ? CONTEXT_BOOST : 0, sameConversation: same });
          expect(r.rankingScore).toBeCloseTo(r.score + (same ? CONTEXT_BOOST : 0), 6);
        }
        const order = ranked.results.map((r) => r.rankingScore!);
        expect(order).toEqual([...order].sort((a, b) => b - a));
      }
    });

    it('cannot lift a memory past the thresholds', async () => {
      const plain = await search({ query: TEA }, scope);
      const teaScore = plain.results.find(isTea)!.score;
      const ranked = await search({ query: TEA, contextScope: context('session-002'), thresholds: { minScore: Math.min(1, teaScore + 0.001) } }, scope);
      expect(teaRuns(ranked)).toEqual([]);
    });
  });
});

describe('hits of equal score', () => {
  // The flat lists of the dialects order equal scores as the engine does (`tieOrder`): by what
  // the records say and when, never by their ids, which are random per write.
  const fact = (id: string, session: string, timestamp: number): AtomicFactRecord => ({
    id, kind: 'atomic_fact', app_id: 'a', project_id: 'p', owner_type: 'user', owner_id: 'kim', session_id: session, timestamp,
    created_at: timestamp, updated_at: timestamp, sender_ids: ['kim'], source_message_ids: [`${session}-m1`], parent_type: null,
    parent_id: null, vector: null, vector_model: null, content: 'Kim keeps a brass compass.', evidence: 'I keep a brass compass.',
  });
  it('come newest first, then by session, whatever their ids', () => {
    for (const ids of [['a', 'b', 'c'], ['c', 'b', 'a'], ['b', 'c', 'a']]) {
      const hits = [fact(ids[0]!, 's1', MONDAY_9AM), fact(ids[1]!, 's3', MONDAY_9AM + DAY), fact(ids[2]!, 's2', MONDAY_9AM)]
        .map((record) => ({ record, parent: null, score: 0.5 }));
      expect(hits.sort(byScore).map((h) => h.record.session_id)).toEqual(['s3', 's1', 's2']);
    }
  });
});
