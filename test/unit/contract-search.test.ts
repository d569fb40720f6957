/**
 * SearchRequest validation (seed 000 plus the reference server's rules): every field's type and
 * bounds, the owner rule, unknown fields, and the filters DSL, both what it rejects (with the
 * right `loc`) and what it selects.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError, type ValidationDetail } from '../../src/errors.js';
import { createFetchHandler } from '../../src/http/handler.js';
import type { EpisodeRecord, StoredItem } from '../../src/records.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { shapeProblems } from '../support/contract-shape.js';
import { DAY, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const D1 = MONDAY_9AM;
const D2 = D1 + DAY;
const D3 = D1 + 2 * DAY;
const D4 = D1 + 3 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

type Label = 'E1' | 'E2' | 'E3' | 'K';
const ALL: Label[] = ['E1', 'E2', 'E3', 'K'];
const METHODS = ['keyword', 'vector', 'hybrid', 'agentic'] as const;

let memory: Memory;
/** Result id → which of the four seeded items it is. */
const labelOf = new Map<string, Label>();
/** Memcell (parent) id of each episode. */
const parentOf = new Map<Label, string>();

beforeAll(async () => {
  const store = createMemoryStore();
  memory = await createMemory({ store, embedder: hashEmbedderDouble() });
  // Every item mentions "garden", so one keyword query reaches all four and filters decide.
  await remember(memory, 'chat-a', [
    said('ann', 'I planted tomatoes in my garden this morning.', D1),
    replied('helper', 'Tomatoes in the garden need plenty of sun.', D1 + 60_000),
  ]);
  await remember(memory, 'chat-b', [said('ann', 'My garden fence needs a new coat of paint.', D2)]);
  await remember(memory, 'chat-c', [
    said('ann', 'We talked about the community garden project today.', D3),
    said('carol', 'The community garden opens to everyone next spring.', D3 + 60_000),
  ]);
  await memory.upsertKnowledge({ user_id: 'ann', title: 'Garden notes', content: 'Garden beds face south for the best light.', timestamp: D4 });

  const items: StoredItem[] = await store.loadAll();
  const episodes = items.filter((i): i is EpisodeRecord => i.kind === 'episode' && i.owner_id === 'ann');
  const bySession: Record<string, Label> = { 'chat-a': 'E1', 'chat-b': 'E2', 'chat-c': 'E3' };
  for (const e of episodes) {
    const label = bySession[e.session_id ?? '']!;
    labelOf.set(e.id, label);
    parentOf.set(label, e.parent_id!);
  }
  const knowledge = items.find((i) => i.kind === 'knowledge');
  labelOf.set(knowledge!.id, 'K');
  expect(labelOf.size).toBe(4);
});

/** The labels a search returns (sorted), for one method. */
async function found(filters: unknown, method: (typeof METHODS)[number] = 'keyword'): Promise<Label[]> {
  const { data } = await memory.search({ user_id: 'ann', query: 'garden', method, top_k: 100, filters });
  return data.episodes.map((e) => labelOf.get(e.id) ?? (`foreign:${e.id}` as Label)).sort();
}

/** The details of the 422 a search request must be rejected with. */
async function rejected(body: unknown): Promise<ValidationDetail[]> {
  let error: unknown;
  try {
    await memory.search(body);
  } catch (e) {
    error = e;
  }
  expect(isMemoryError(error), 'the request should have been rejected').toBe(true);
  if (!isMemoryError(error)) throw new Error('unreachable');
  expect(error.code).toBe('VALIDATION_FAILED');
  expect(error.status).toBe(422);
  expect(Array.isArray(error.details)).toBe(true);
  return error.details as ValidationDetail[];
}

/** Asserts a 422 carrying an issue at `loc` (of `type` when given). */
async function rejectedAt(body: unknown, loc: (string | number)[], type?: string): Promise<void> {
  const details = await rejected(body);
  const hit = details.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(hit, `no issue at ${JSON.stringify(loc)} in ${JSON.stringify(details)}`).toBeDefined();
  if (type) expect(hit!.type).toBe(type);
}

const base = { user_id: 'ann', query: 'garden' };

describe('query', () => {
  it('is required', async () => {
    await rejectedAt({ user_id: 'ann' }, ['body', 'query'], 'missing');
  });
  it('needs at least one character and one that is not blank', async () => {
    await rejectedAt({ ...base, query: '' }, ['body', 'query'], 'string_too_short');
    await rejectedAt({ ...base, query: '   \n\t' }, ['body', 'query'], 'value_error');
  });
  it('must be a string', async () => {
    await rejectedAt({ ...base, query: 42 }, ['body', 'query'], 'string_type');
    await rejectedAt({ ...base, query: null }, ['body', 'query'], 'string_type');
  });
  it('accepts a one-character query', async () => {
    const response = await memory.search({ ...base, query: 'g' });
    expect(Array.isArray(response.data.episodes)).toBe(true);
  });
});

describe('method', () => {
  it.each(METHODS)('accepts %s', async (method) => {
    await expect(memory.search({ ...base, method })).resolves.toHaveProperty('data');
  });
  it.each(['bm25', 'HYBRID', 'rrf', '', null, 1])('rejects %j with an enum error', async (method) => {
    await rejectedAt({ ...base, method }, ['body', 'method'], 'enum');
  });
});

describe('top_k', () => {
  it.each([-1, 1, 2, 50, 100])('accepts %j', async (top_k) => {
    await expect(memory.search({ ...base, top_k })).resolves.toHaveProperty('data');
  });
  it.each([
    [0, 'value_error'],
    [101, 'value_error'],
    [-2, 'value_error'],
    [1000, 'value_error'],
    [1.5, 'int_from_float'],
    ['5', 'int_type'],
    [true, 'int_type'],
    [null, 'int_type'],
  ])('rejects %j (%s) at body.top_k', async (top_k, type) => {
    await rejectedAt({ ...base, top_k }, ['body', 'top_k'], type);
  });
});

describe.each(['radius', 'min_score'])('%s', (field) => {
  it.each([0, 0.25, 1, null])('accepts %j', async (value) => {
    await expect(memory.search({ ...base, [field]: value })).resolves.toHaveProperty('data');
  });
  it.each([
    [-0.01, 'greater_than_equal'],
    [1.01, 'less_than_equal'],
    [5, 'less_than_equal'],
    ['0.5', 'float_type'],
    [true, 'float_type'],
  ])('rejects %j (%s)', async (value, type) => {
    await rejectedAt({ ...base, [field]: value }, ['body', field], type);
  });
});

describe.each(['include_profile', 'enable_llm_rerank'])('%s', (field) => {
  it.each([true, false])('accepts %j', async (value) => {
    await expect(memory.search({ ...base, [field]: value })).resolves.toHaveProperty('data');
  });
  it.each(['true', 1, 0, null])('rejects %j as bool_type', async (value) => {
    await rejectedAt({ ...base, [field]: value }, ['body', field], 'bool_type');
  });
});

describe('app_id and project_id', () => {
  it('default to "default" (records written without them are found without them, and say so)', async () => {
    const explicit = await memory.search({ ...base, app_id: 'default', project_id: 'default', method: 'keyword' });
    const implicit = await memory.search({ ...base, method: 'keyword' });
    expect(implicit.data.episodes.map((e) => e.id)).toEqual(explicit.data.episodes.map((e) => e.id));
    expect(implicit.data.episodes.length).toBeGreaterThan(0);
    for (const e of implicit.data.episodes) expect([e.app_id, e.project_id]).toEqual(['default', 'default']);
  });
  it('scope a search: another app or project sees none of the default one', async () => {
    expect((await memory.search({ ...base, app_id: 'other', method: 'keyword' })).data.episodes).toEqual([]);
    expect((await memory.search({ ...base, project_id: 'other', method: 'keyword' })).data.episodes).toEqual([]);
  });
  it.each(['app_id', 'project_id', 'user_id', 'agent_id'])('%s follows ^[A-Za-z0-9_.@+-]+$', async (field) => {
    const body = field === 'agent_id' ? { query: 'x', agent_id: 'bot' } : { ...base };
    await expect(memory.search({ ...body, [field]: 'Az09_.@+-' })).resolves.toHaveProperty('data');
    for (const bad of ['has space', 'a/b', 'a:b', "o'brien", 'ü', 'a\nb', 'x;drop']) {
      await rejectedAt({ ...body, [field]: bad }, ['body', field], 'string_pattern_mismatch');
    }
    await rejectedAt({ ...body, [field]: '' }, ['body', field], 'string_too_short');
    await rejectedAt({ ...body, [field]: 7 }, ['body', field], 'string_type');
  });
  it('rejects null for app_id / project_id (they have defaults, not nulls)', async () => {
    await rejectedAt({ ...base, app_id: null }, ['body', 'app_id'], 'string_type');
    await rejectedAt({ ...base, project_id: null }, ['body', 'project_id'], 'string_type');
  });
});

describe('owner: user_id XOR agent_id', () => {
  it('rejects neither', async () => {
    await rejectedAt({ query: 'garden' }, ['body'], 'value_error');
    await rejectedAt({ query: 'garden', user_id: null, agent_id: null }, ['body'], 'value_error');
  });
  it('rejects both', async () => {
    await rejectedAt({ query: 'garden', user_id: 'ann', agent_id: 'helper' }, ['body'], 'value_error');
  });
  it('accepts exactly one (the other may be null)', async () => {
    await expect(memory.search({ query: 'garden', user_id: 'ann', agent_id: null })).resolves.toHaveProperty('data');
    await expect(memory.search({ query: 'garden', user_id: null, agent_id: 'helper' })).resolves.toHaveProperty('data');
  });
});

describe('unknown fields', () => {
  it.each(['foo', 'owner_id', 'owner_type', 'limit', 'Query'])('rejects %s as extra_forbidden', async (field) => {
    await rejectedAt({ ...base, [field]: 'x' }, ['body', field], 'extra_forbidden');
  });
  it('rejects a body that is not an object', async () => {
    for (const body of [[], 'garden', 5, null, true]) await rejectedAt(body, ['body'], 'model_attributes_type');
  });
  it('reports every problem at once', async () => {
    const details = await rejected({ ...base, top_k: 0, radius: 2, extra: 1 });
    expect(details.map((d) => d.loc.join('.')).sort()).toEqual(['body.extra', 'body.radius', 'body.top_k']);
  });
});

describe('filters: accepted and applied', () => {
  const cases: [string, unknown, Label[]][] = [
    ['no filters', null, ALL],
    ['empty object', {}, ALL],
    ['empty AND', { AND: [] }, ALL],
    ['null AND / OR', { AND: null, OR: null }, ALL],
    // session_id
    ['session_id bare', { session_id: 'chat-a' }, ['E1']],
    ['session_id eq', { session_id: { eq: 'chat-b' } }, ['E2']],
    ['session_id ne', { session_id: { ne: 'chat-a' } }, ['E2', 'E3', 'K']],
    ['session_id gt', { session_id: { gt: 'chat-a' } }, ['E2', 'E3']],
    ['session_id gte', { session_id: { gte: 'chat-b' } }, ['E2', 'E3']],
    ['session_id lt', { session_id: { lt: 'chat-c' } }, ['E1', 'E2']],
    ['session_id lte', { session_id: { lte: 'chat-b' } }, ['E1', 'E2']],
    ['session_id in', { session_id: { in: ['chat-a', 'chat-c'] } }, ['E1', 'E3']],
    ['session_id null', { session_id: null }, ['K']],
    ['session_id ne null', { session_id: { ne: null } }, ['E1', 'E2', 'E3']],
    ['session_id unknown', { session_id: 'chat-z' }, []],
    ['two operators are ANDed', { session_id: { gte: 'chat-a', lt: 'chat-c' } }, ['E1', 'E2']],
    // timestamp, epoch ms and ISO-8601
    ['timestamp bare ms', { timestamp: D2 }, ['E2']],
    ['timestamp bare ISO', { timestamp: iso(D2) }, ['E2']],
    ['timestamp eq ISO with offset', { timestamp: { eq: '2026-11-03T10:00:00+01:00' } }, ['E2']],
    ['timestamp eq ISO no millis', { timestamp: { eq: '2026-11-03T09:00:00Z' } }, ['E2']],
    ['timestamp ne', { timestamp: { ne: D2 } }, ['E1', 'E3', 'K']],
    ['timestamp gt', { timestamp: { gt: D2 } }, ['E3', 'K']],
    ['timestamp gte ISO', { timestamp: { gte: iso(D2) } }, ['E2', 'E3', 'K']],
    ['timestamp lt', { timestamp: { lt: D2 } }, ['E1']],
    ['timestamp lte', { timestamp: { lte: D2 } }, ['E1', 'E2']],
    ['timestamp in (ms and ISO)', { timestamp: { in: [D1, iso(D3)] } }, ['E1', 'E3']],
    ['timestamp date-only range', { timestamp: { gte: '2026-11-03', lt: '2026-11-04' } }, ['E2']],
    // sender_id: any of an item's sender_ids
    ['sender_id bare', { sender_id: 'carol' }, ['E3']],
    ['sender_id eq', { sender_id: { eq: 'helper' } }, ['E1']],
    ['sender_id owner', { sender_id: 'ann' }, ALL],
    ['sender_id in', { sender_id: { in: ['helper', 'carol'] } }, ['E1', 'E3']],
    ['sender_id in unknown', { sender_id: { in: ['nobody'] } }, []],
    // parent_type: episodes come from a memcell; knowledge has no parent
    ['parent_type bare', { parent_type: 'memcell' }, ['E1', 'E2', 'E3']],
    ['parent_type eq null', { parent_type: { eq: null } }, ['K']],
    ['parent_type ne', { parent_type: { ne: 'memcell' } }, ['K']],
    ['parent_type in', { parent_type: { in: ['memcell', 'episode'] } }, ['E1', 'E2', 'E3']],
    ['parent_type gt', { parent_type: { gt: 'a' } }, ['E1', 'E2', 'E3']],
    ['parent_type gte', { parent_type: { gte: 'memcell' } }, ['E1', 'E2', 'E3']],
    ['parent_type lt', { parent_type: { lt: 'memcell' } }, []],
    ['parent_type lte', { parent_type: { lte: 'memcell' } }, ['E1', 'E2', 'E3']],
    // combinators
    ['AND', { AND: [{ session_id: { ne: 'chat-a' } }, { sender_id: 'ann' }], timestamp: { lt: D4 } }, ['E2', 'E3']],
    ['OR', { OR: [{ session_id: 'chat-a' }, { sender_id: 'carol' }] }, ['E1', 'E3']],
    ['OR with an ANDed sibling', { OR: [{ session_id: 'chat-a' }, { sender_id: 'carol' }], session_id: { ne: 'chat-c' } }, ['E1']],
    ['OR inside AND', { AND: [{ OR: [{ timestamp: D1 }, { timestamp: D4 }] }, { parent_type: 'memcell' }] }, ['E1']],
    ['AND inside OR', { OR: [{ AND: [{ sender_id: 'ann' }, { session_id: 'chat-b' }] }, { parent_type: null }] }, ['E2', 'K']],
  ];

  it.each(cases)('%s', async (_name, filters, expected) => {
    for (const method of METHODS) expect(await found(filters, method), method).toEqual(expected);
  });

  it('parent_id: eq, ne, in, gt, gte, lt, lte over the episodes\' memcell ids', async () => {
    const ids = (['E1', 'E2', 'E3'] as const).map((l) => [l, parentOf.get(l)!] as const);
    const [p1, p2, p3] = ids.map(([, id]) => id);
    const sorted = [...ids].sort((a, b) => (a[1] < b[1] ? -1 : 1));
    const [lowLabel, lowId] = sorted[0]!;
    const [midLabel, midId] = sorted[1]!;
    const [highLabel, highId] = sorted[2]!;
    for (const method of METHODS) {
      expect(await found({ parent_id: p1 }, method)).toEqual(['E1']);
      expect(await found({ parent_id: { eq: p2 } }, method)).toEqual(['E2']);
      expect(await found({ parent_id: { ne: p1 } }, method)).toEqual(['E2', 'E3', 'K']);
      expect(await found({ parent_id: { in: [p2, p3] } }, method)).toEqual(['E2', 'E3']);
      expect(await found({ parent_id: null }, method)).toEqual(['K']);
      expect(await found({ parent_id: { gt: lowId } }, method)).toEqual([midLabel, highLabel].sort());
      expect(await found({ parent_id: { gte: midId } }, method)).toEqual([midLabel, highLabel].sort());
      expect(await found({ parent_id: { lt: highId } }, method)).toEqual([lowLabel, midLabel].sort());
      expect(await found({ parent_id: { lte: lowId } }, method)).toEqual([lowLabel]);
    }
  });

  it('filters narrow nested facts too: no fact of a filtered-out episode appears', async () => {
    const { data } = await memory.search({ user_id: 'ann', query: 'garden', method: 'hybrid', top_k: 100, filters: { session_id: 'chat-b' } });
    expect(data.episodes.map((e) => labelOf.get(e.id))).toEqual(['E2']);
    for (const f of data.episodes[0]!.atomic_facts) expect(f.content).toMatch(/fence/);
  });

  it('cannot widen past the owner: another owner\'s session yields nothing', async () => {
    // carol's own episode lives in chat-c too; ann's filters never reach it.
    const { data } = await memory.search({ user_id: 'ann', query: 'community garden', method: 'keyword', top_k: 100, filters: { session_id: 'chat-c' } });
    expect(data.episodes.every((e) => e.user_id === 'ann')).toBe(true);
    const carols = await memory.search({ user_id: 'carol', query: 'garden', method: 'keyword', top_k: 100, filters: { sender_id: 'ann' } });
    expect(carols.data.episodes.every((e) => e.user_id === 'carol')).toBe(true);
  });

  it('values that look like injections match only literally', async () => {
    const hostile = [
      "chat-a' OR 1=1 --",
      "' OR ''='",
      '" OR ""="',
      '*',
      '%',
      '.*',
      'chat.a',
      'chat-[a-c]',
      '^chat',
      'chat-a\u0000',
      '$ne',
      '{"$gt": ""}',
      'chat-a; DROP TABLE episodes',
    ];
    for (const value of hostile) {
      for (const field of ['session_id', 'parent_type', 'parent_id', 'sender_id']) {
        expect(await found({ [field]: value }), `${field}=${value}`).toEqual([]);
        expect(await found({ [field]: { in: [value] } }), `${field} in ${value}`).toEqual([]);
      }
      expect(await found({ session_id: { ne: value } }), `ne ${value}`).toEqual(ALL);
    }
    // A JSON object where a value belongs is an operator object, and its unknown keys are refused.
    await rejectedAt({ ...base, filters: { session_id: { $ne: 'x' } } }, ['body', 'filters', 'session_id', '$ne'], 'value_error');
  });
});

describe('filters: rejected with the right loc', () => {
  const F = ['body', 'filters'];
  const cases: [string, unknown, (string | number)[], string][] = [
    ['not an object (string)', 'chat-a', F, 'model_type'],
    ['not an object (array)', [{ session_id: 'x' }], F, 'model_type'],
    ['not an object (number)', 5, F, 'model_type'],
    ['unknown field', { color: 'red' }, [...F, 'color'], 'value_error'],
    ['unknown field nested', { AND: [{ content: 'x' }] }, [...F, 'AND', 0, 'content'], 'value_error'],
    ['unknown operator', { session_id: { like: 'chat%' } }, [...F, 'session_id', 'like'], 'value_error'],
    ['operator in capitals', { session_id: { EQ: 'chat-a' } }, [...F, 'session_id', 'EQ'], 'value_error'],
    ['empty operator object', { session_id: {} }, [...F, 'session_id'], 'value_error'],
    ['sender_id ne', { sender_id: { ne: 'ann' } }, [...F, 'sender_id', 'ne'], 'value_error'],
    ['sender_id gt', { sender_id: { gt: 'a' } }, [...F, 'sender_id', 'gt'], 'value_error'],
    ['sender_id gte', { sender_id: { gte: 'a' } }, [...F, 'sender_id', 'gte'], 'value_error'],
    ['sender_id lt', { sender_id: { lt: 'a' } }, [...F, 'sender_id', 'lt'], 'value_error'],
    ['sender_id lte', { sender_id: { lte: 'a' } }, [...F, 'sender_id', 'lte'], 'value_error'],
    ['sender_id null', { sender_id: null }, [...F, 'sender_id'], 'string_type'],
    ['session_id number', { session_id: 5 }, [...F, 'session_id'], 'string_type'],
    ['session_id boolean in eq', { session_id: { eq: true } }, [...F, 'session_id', 'eq'], 'string_type'],
    ['session_id bare list', { session_id: ['chat-a'] }, [...F, 'session_id'], 'string_type'],
    ['parent_id number', { parent_id: { ne: 1 } }, [...F, 'parent_id', 'ne'], 'string_type'],
    ['parent_type object value', { parent_type: { eq: { x: 1 } } }, [...F, 'parent_type', 'eq'], 'string_type'],
    ['timestamp words', { timestamp: 'yesterday' }, [...F, 'timestamp'], 'value_error'],
    ['timestamp bad ISO', { timestamp: { gt: '2026-13-45T99:00:00Z' } }, [...F, 'timestamp', 'gt'], 'value_error'],
    ['timestamp boolean', { timestamp: { lt: true } }, [...F, 'timestamp', 'lt'], 'value_error'],
    ['timestamp null', { timestamp: null }, [...F, 'timestamp'], 'value_error'],
    ['in not a list', { session_id: { in: 'chat-a' } }, [...F, 'session_id', 'in'], 'value_error'],
    ['in empty', { session_id: { in: [] } }, [...F, 'session_id', 'in'], 'value_error'],
    ['in with a bad element', { session_id: { in: ['chat-a', 7] } }, [...F, 'session_id', 'in', 1], 'string_type'],
    ['gt null', { session_id: { gt: null } }, [...F, 'session_id', 'gt'], 'value_error'],
    ['empty OR', { OR: [] }, [...F, 'OR'], 'value_error'],
    ['empty OR nested', { AND: [{ OR: [] }] }, [...F, 'AND', 0, 'OR'], 'value_error'],
    ['AND not a list', { AND: { session_id: 'chat-a' } }, [...F, 'AND'], 'list_type'],
    ['OR element not an object', { OR: ['chat-a'] }, [...F, 'OR', 0], 'model_type'],
    ['scope key user_id', { user_id: 'bob' }, [...F, 'user_id'], 'value_error'],
    ['scope key agent_id', { agent_id: 'bot' }, [...F, 'agent_id'], 'value_error'],
    ['scope key app_id', { app_id: 'other' }, [...F, 'app_id'], 'value_error'],
    ['scope key project_id', { project_id: 'other' }, [...F, 'project_id'], 'value_error'],
    ['scope key owner_id', { owner_id: 'bob' }, [...F, 'owner_id'], 'value_error'],
    ['scope key owner_type', { owner_type: 'agent' }, [...F, 'owner_type'], 'value_error'],
    ['scope key inside OR', { OR: [{ session_id: 'chat-a' }, { user_id: 'bob' }] }, [...F, 'OR', 1, 'user_id'], 'value_error'],
    ['scope key as operator value', { AND: [{ owner_id: { in: ['bob'] } }] }, [...F, 'AND', 0, 'owner_id'], 'value_error'],
  ];

  it.each(cases)('%s', async (_name, filters, loc, type) => {
    await rejectedAt({ ...base, filters }, loc, type);
  });

  it('accepts moderate nesting and rejects deep nesting under body.filters', async () => {
    const nest = (depth: number): Record<string, unknown> => (depth === 0 ? { session_id: 'chat-a' } : { AND: [nest(depth - 1)] });
    expect(await found(nest(4))).toEqual(['E1']);
    const details = await rejected({ ...base, filters: nest(30) });
    expect(details.length).toBeGreaterThan(0);
    for (const d of details) {
      expect(d.loc.slice(0, 4)).toEqual(['body', 'filters', 'AND', 0]);
      expect(d.type).toBe('value_error');
    }
  });
});

describe('the 422 body over HTTP', () => {
  const post = async (body: unknown) => {
    const handler = createFetchHandler(memory);
    return handler(new Request('http://engram.test/api/v1/memory/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  };

  it('is {detail: [{loc, msg, type, input?, ctx?}]}', async () => {
    const response = await post({ user_id: 'ann', agent_id: 'helper', query: '', top_k: 0, radius: 3, nope: true, filters: { user_id: 'x', session_id: { like: 'y' } } });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await response.json()) as { detail: ValidationDetail[] };
    expect(shapeProblems('HTTPValidationError', body)).toEqual([]);
    expect(Object.keys(body)).toEqual(['detail']);
    for (const d of body.detail) {
      for (const key of Object.keys(d)) expect(['loc', 'msg', 'type', 'input', 'ctx']).toContain(key);
      expect(d.loc[0]).toBe('body');
      expect(d.msg.length).toBeGreaterThan(0);
    }
    const locs = body.detail.map((d) => d.loc.join('.'));
    for (const loc of ['body.query', 'body.top_k', 'body.radius', 'body.nope', 'body.filters.user_id', 'body.filters.session_id.like']) {
      expect(locs).toContain(loc);
    }
  });

  it('carries ctx for bounds (ge / le, min_length, pattern)', async () => {
    const body = (await (await post({ user_id: 'a b', query: 'x', radius: -1, min_score: 2 })).json()) as { detail: ValidationDetail[] };
    const at = (loc: string) => body.detail.find((d) => d.loc.join('.') === loc)!;
    expect(at('body.radius').ctx).toEqual({ ge: 0 });
    expect(at('body.min_score').ctx).toEqual({ le: 1 });
    expect(at('body.user_id').ctx).toHaveProperty('pattern');
    expect(at('body.radius').input).toBe(-1);
  });

  it('a valid request is 200 with a SearchResponse', async () => {
    const response = await post({ user_id: 'ann', query: 'garden' });
    expect(response.status).toBe(200);
    expect(shapeProblems('SearchResponse', await response.json())).toEqual([]);
  });
});
