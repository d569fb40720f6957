/**
 * Bounds at validation: no request body can make the engine, the store or the error rendering
 * blow up. Each hostile body measured against the Node server (deep nesting in free-form
 * fields, a deep non-string query, filter and profile amplification, a 16 kB echo, the README's
 * own bad example) is answered with the contract's 422 in a small body, and the memory and its
 * store stay usable and reopen afterwards. Then: the echo of any value renders, the issue list
 * is capped, the dialects share both, and random deep or large JSON never yields a 5xx.
 */
import fc from 'fast-check';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { echoInput, MAX_REPORTED_ISSUES } from '../../src/contract/echo.js';
import { assertBodyDepth, measureJson, MAX_JSON_DEPTH } from '../../src/contract/json-bounds.js';
import { MAX_PROFILE_BYTES, MAX_PROFILE_LIST_ITEMS } from '../../src/contract/requests.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError, MemoryError, validationError, type ValidationDetail } from '../../src/errors.js';
import { createFetchHandler, errorResponse } from '../../src/http/handler.js';
import type { StorageAdapter } from '../../src/store/port.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite-store.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';
import { shapeProblems } from '../support/contract-shape.js';

/** A small 422 body: well under what one request could make it (tens of kilobytes at most). */
const SMALL_422 = 64 * 1024;

const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
/** A JSON body text with `hostile` (JSON text) in place of the string "__HOSTILE__" of `template`. */
const withHostile = (template: unknown, hostile: string) => JSON.stringify(template).replace('"__HOSTILE__"', () => hostile);

/** Levels of nesting of a value (`{}` and `[]` one level each), level by level. */
function depthOf(value: unknown): number {
  let level = [value];
  for (let depth = 0; ; depth++) {
    const containers = level.filter((v): v is object => typeof v === 'object' && v !== null);
    if (containers.length === 0) return depth;
    level = containers.flatMap((v) => Object.values(v));
  }
}

const message = (extra: Record<string, unknown> = {}) => ({ sender_id: 'uma', role: 'user', timestamp: 1_767_600_000_000, content: 'hello there', ...extra });

let store: StorageAdapter;
let memory: Memory;
let handler: (request: Request) => Promise<Response>;

interface Answer {
  status: number;
  text: string;
  detail: ValidationDetail[];
}

async function post(route: string, body: string | unknown, via = handler): Promise<Answer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await via(new Request(`http://engram.test/api/v1/memory/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text }));
  const out = await response.text();
  const parsed = JSON.parse(out) as { detail?: unknown };
  return { status: response.status, text: out, detail: Array.isArray(parsed.detail) ? (parsed.detail as ValidationDetail[]) : [] };
}

/** A 422 in the contract's shape, in a small body, with an issue at `loc` of `type`; returns that issue. */
function expect422(answer: Answer, loc: (string | number)[], type: string): ValidationDetail {
  expect(answer.status, answer.text.slice(0, 500)).toBe(422);
  expect(shapeProblems('HTTPValidationError', JSON.parse(answer.text))).toEqual([]);
  expect(answer.text.length).toBeLessThan(SMALL_422);
  const hit = answer.detail.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(hit, `no issue at ${JSON.stringify(loc)} in ${answer.text.slice(0, 2000)}`).toBeDefined();
  expect(hit!.type).toBe(type);
  return hit!;
}

beforeAll(async () => {
  store = createMemoryStore();
  memory = await createMemory({ store, embedder: hashEmbedderDouble() });
  handler = createFetchHandler(memory);
});

describe('deep nesting in free-form fields is refused before it is stored', () => {
  it('a content item carrying {"a":{"a":…}} 2,500 deep', async () => {
    const body = withHostile({ session_id: 'deep-1', messages: [message({ content: [{ type: 'text', text: 'hi', a: '__HOSTILE__' }] })] }, deepObject(2_500));
    const hit = expect422(await post('add', body), ['body', 'messages', 0, 'content'], 'json_too_deep');
    expect(hit.ctx).toEqual({ max_depth: MAX_JSON_DEPTH });
  });

  it('a content item carrying 3,000 nested [', async () => {
    const body = withHostile({ session_id: 'deep-2', messages: [message({ content: [{ type: 'text', text: 'hi', data: '__HOSTILE__' }] })] }, deepArray(3_000));
    expect422(await post('add', body), ['body', 'messages', 0, 'content'], 'json_too_deep');
  });

  it('a profile likes item 5,000 deep', async () => {
    const body = withHostile({ user_id: 'uma', profile_data: { likes: ['__HOSTILE__'] } }, deepArray(5_000));
    expect422(await post('profile', body), ['body', 'profile_data'], 'json_too_deep');
  });

  it('tool_calls 10,000 deep', async () => {
    const body = withHostile({ session_id: 'deep-3', messages: [message({ role: 'assistant', tool_calls: [{ name: 'calc', arguments: '__HOSTILE__' }] })] }, deepObject(10_000));
    expect422(await post('add', body), ['body', 'messages', 0, 'tool_calls'], 'json_too_deep');
  });

  it('accepts a content item 32 levels deep in all, and keeps it as sent', async () => {
    // The list is level 1, the item level 2: 30 more levels inside it make 32.
    const item = withHostile({ type: 'text', text: 'a nested note about kites', meta: '__HOSTILE__' }, deepObject(30));
    const body = `{"session_id":"deep-ok","messages":[${JSON.stringify(message({ id: 'deep-ok-1' })).replace('"hello there"', () => `[${item}]`)}]}`;
    expect((await post('add', body)).status).toBe(200);
    const one = withHostile({ type: 'text', text: 'a note', meta: '__HOSTILE__' }, deepObject(31));
    const over = `{"session_id":"deep-ok","messages":[${JSON.stringify(message()).replace('"hello there"', () => `[${one}]`)}]}`;
    expect422(await post('add', over), ['body', 'messages', 0, 'content'], 'json_too_deep');
  });
});

describe('invalid deep input is a 422, not a failure to render one', () => {
  it('a query that is a 10,000-deep array', async () => {
    const answer = await post('search', withHostile({ user_id: 'u', query: '__HOSTILE__' }, deepArray(10_000)));
    const hit = expect422(answer, ['body', 'query'], 'string_type');
    expect(answer.text.length).toBeLessThan(2_000);
    expect(JSON.stringify(hit.input).length).toBeLessThan(200);
  });

  it('a whole body nested 100,000 deep', async () => {
    expect422(await post('search', deepArray(100_000)), ['body'], 'model_attributes_type');
    expect422(await post('add', deepObject(100_000)), ['body', 'session_id'], 'missing');
  });
});

describe('amplification is cut at validation', () => {
  it('filters {"AND":[1,1,…]} in a 6 MB body answer one issue, not millions', async () => {
    const ones = new Array(3_000_000).fill('1').join(',');
    const answer = await post('search', `{"user_id":"u","query":"kites","filters":{"AND":[${ones}]}}`);
    const hit = expect422(answer, ['body', 'filters', 'AND'], 'value_error');
    expect(hit.ctx).toEqual({ max_nodes: 256 });
    expect(answer.detail).toHaveLength(1);
    expect(answer.text.length).toBeLessThan(2_000);
  });

  it('filters with 300 conditions spread over nested ANDs are refused too, once', async () => {
    // Each child is one node holding one condition: 10 + 10 × 2 × 30 is over 256; 4 + 4 × 2 × 30 is not.
    const filters = (n: number) => ({ AND: Array.from({ length: n }, () => ({ OR: Array.from({ length: 30 }, (_, i) => ({ session_id: `s-${i}` })) })) });
    const answer = await post('search', { user_id: 'u', query: 'kites', filters: filters(10) });
    expect(answer.status).toBe(422);
    expect(answer.detail).toHaveLength(1);
    expect(answer.detail[0]).toMatchObject({ type: 'value_error', ctx: { max_nodes: 256 } });
    expect(answer.detail[0]!.loc.slice(0, 3)).toEqual(['body', 'filters', 'AND']);
    expect((await post('search', { user_id: 'u', query: 'kites', filters: filters(4) })).status).toBe(200);
  });

  it('a 3 MB likes list answers one small issue', async () => {
    const likes = new Array(500_000).fill('"kites"').join(',');
    const answer = await post('profile', `{"user_id":"uma","profile_data":{"likes":[${likes}]}}`);
    const hit = expect422(answer, ['body', 'profile_data'], 'json_too_large');
    expect(hit.ctx).toEqual({ max_bytes: MAX_PROFILE_BYTES });
    expect(answer.text.length).toBeLessThan(4_000);
  });

  it('a profile list longer than a stored profile keeps is refused, not cut', async () => {
    const likes = Array.from({ length: MAX_PROFILE_LIST_ITEMS + 1 }, (_, i) => `like-${i}`);
    const hit = expect422(await post('profile', { user_id: 'uma', profile_data: { likes } }), ['body', 'profile_data', 'likes'], 'too_long');
    expect(hit.ctx).toMatchObject({ max_length: MAX_PROFILE_LIST_ITEMS, actual_length: MAX_PROFILE_LIST_ITEMS + 1 });
    expect((await post('profile', { user_id: 'uma', profile_data: { likes: likes.slice(1) } })).status).toBe(200);
  });

  it('100,000 unknown fields answer 50 issues and one too_many_errors', async () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":0`).join(',');
    const answer = await post('search', `{"user_id":"u","query":"kites",${keys}}`);
    expect422(answer, ['body', 'k0'], 'extra_forbidden');
    expect(answer.detail).toHaveLength(MAX_REPORTED_ISSUES + 1);
    expect(answer.detail.at(-1)).toEqual({ loc: ['body'], msg: expect.any(String), type: 'too_many_errors', ctx: { limit: MAX_REPORTED_ISSUES } });
    expect(answer.text.length).toBeLessThan(SMALL_422);
  });

  it('the largest 422 a crafted body can get stays small: 50 issues of long keys, messages and inputs', async () => {
    const long = (i: number) => `${i}`.padEnd(1_000, 'k');
    const value = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [long(i), ['v'.repeat(1_000), { deep: ['w'.repeat(1_000)] }]]));
    const extra = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [long(i), value]));
    const filters = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [long(i), { [long(i)]: value }]));
    for (const [route, body] of [['search', { user_id: 'u', query: 'q', ...extra }], ['search', { user_id: 'u', query: 'q', filters }]] as const) {
      const answer = await post(route, body);
      expect(answer.status).toBe(422);
      expect(answer.detail).toHaveLength(MAX_REPORTED_ISSUES + 1);
      expect(answer.text.length).toBeLessThan(SMALL_422);
    }
  });

  it('a 16,001-character query is echoed cut short, with a marker', async () => {
    const query = 'q'.repeat(16_001);
    const answer = await post('search', { user_id: 'u', query });
    const hit = expect422(answer, ['body', 'query'], 'string_too_long');
    expect(typeof hit.input).toBe('string');
    expect((hit.input as string).length).toBeLessThan(260);
    expect(query.startsWith((hit.input as string).slice(0, 200))).toBe(true);
    expect(hit.input as string).toMatch(/…\(\+15801 chars\)$/);
    expect(answer.text.length).toBeLessThan(1_000);
  });

  it('a key of a megabyte is clipped in loc and msg', async () => {
    const key = 'k'.repeat(1_000_000);
    const answer = await post('search', { user_id: 'u', query: 'kites', filters: { [key]: 'x' } });
    expect(answer.status).toBe(422);
    expect(answer.text.length).toBeLessThan(4_000);
    expect(answer.detail[0]!.type).toBe('value_error');
    expect(answer.detail[0]!.loc.slice(0, 2)).toEqual(['body', 'filters']);
  });
});

describe('every problem at once, in FastAPI order', () => {
  it("the README's example lists the query, top_k and the one-owner rule", async () => {
    const answer = await post('search', { user_id: 'alice', agent_id: 'bot', query: '', top_k: 0 });
    expect(answer.status).toBe(422);
    expect(answer.detail.map((d) => [d.loc.join('.'), d.type])).toEqual([
      ['body.query', 'string_too_short'],
      ['body.top_k', 'value_error'],
      ['body', 'value_error'],
    ]);
  });

  it('the owner rules come after the field errors on every owned route', async () => {
    const both = { user_id: 'u', agent_id: 'a' };
    const cases: [string, Record<string, unknown>, string][] = [
      ['get', { ...both, page_size: 0 }, 'body.page_size'],
      ['delete', { ...both, memory_id: 5 }, 'body.memory_id'],
      ['cases', { ...both, session_id: 's' }, 'body.task_intent'],
      ['knowledge', { ...both, title: '' }, 'body.title'],
      ['profile', { ...both, profile_data: 'x' }, 'body.profile_data'],
    ];
    for (const [route, body, first] of cases) {
      const answer = await post(route, body);
      expect(answer.status, route).toBe(422);
      const locs = answer.detail.map((d) => d.loc.join('.'));
      expect(locs[0], route).toBe(first);
      expect(locs.at(-1), route).toBe('body');
    }
    const wrongOwner = await post('profile', { agent_id: 'a', profile_data: 5 });
    expect(wrongOwner.detail.map((d) => d.loc.join('.'))).toEqual(['body.profile_data', 'body.user_id']);
    const notBoth = await post('delete', { user_id: 'u', memory_id: 'm', session_id: 's', extra: 1 });
    expect(notBoth.detail.map((d) => [d.loc.join('.'), d.type])).toEqual([['body.extra', 'extra_forbidden'], ['body', 'value_error']]);
  });
});

describe('the memory and its store are unaffected', () => {
  it('answers, deletes and reopens after every hostile request above', async () => {
    expect((await post('add', { session_id: 'after', messages: [message({ content: 'I fly kites on the beach every Sunday.' })] })).status).toBe(200);
    expect((await post('flush', { session_id: 'after' })).status).toBe(200);
    const found = await memory.search({ user_id: 'uma', query: 'kites beach' });
    expect(found.data.episodes.length).toBeGreaterThan(0);
    const deleted = await post('delete', { user_id: 'uma', session_id: 'after' });
    expect(deleted.status).toBe(200);
    // A second memory over the same store: everything stored loads and clones.
    const reopened = await createMemory({ store, embedder: hashEmbedderDouble() });
    const profile = await reopened.search({ user_id: 'uma', query: 'kites', include_profile: true });
    expect(profile.data.profiles).toHaveLength(1);
    expect((profile.data.profiles[0]!.profile_data['likes'] as unknown[]).length).toBe(MAX_PROFILE_LIST_ITEMS);
    expect(profile.data.episodes).toEqual([]);
    const kept = await reopened.get({ user_id: 'uma', memory_type: 'episode' });
    expect(kept.data.total_count).toBe(0);
  });
});

describe('the Node store on SQLite', () => {
  it('takes none of the deep bodies, keeps the 32-level one, and reopens with it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engram-bounds-'));
    try {
      const first = await createMemory({ store: await createSqliteStore(dir), embedder: hashEmbedderDouble() });
      const via = createFetchHandler(first);
      const hostile: [string, string][] = [
        ['add', withHostile({ session_id: 'd', messages: [message({ content: [{ type: 'text', text: 'hi', a: '__HOSTILE__' }] })] }, deepObject(2_500))],
        ['add', withHostile({ session_id: 'd', messages: [message({ content: [{ type: 'text', text: 'hi', a: '__HOSTILE__' }] })] }, deepArray(3_000))],
        ['profile', withHostile({ user_id: 'uma', profile_data: { likes: ['__HOSTILE__'] } }, deepArray(5_000))],
        ['add', withHostile({ session_id: 'd', messages: [message({ role: 'assistant', tool_calls: [{ name: 'x', arguments: '__HOSTILE__' }] })] }, deepObject(10_000))],
      ];
      for (const [route, body] of hostile) expect((await post(route, body, via)).status, route).toBe(422);
      const kept = withHostile({ session_id: 'd', messages: [message({ id: 'm-deep', content: [{ type: 'text', text: 'kites', meta: '__HOSTILE__' }] })] }, deepObject(30));
      expect((await post('add', kept, via)).status).toBe(200);
      expect((await post('delete', { user_id: 'someone-else' }, via)).status).toBe(200);
      await first.close();

      const second = await createMemory({ store: await createSqliteStore(dir), embedder: hashEmbedderDouble() });
      const { data } = await second.search({ user_id: 'uma', query: 'kites', filters: { session_id: 'd' } });
      expect(data.unprocessed_messages).toHaveLength(1);
      expect(depthOf(data.unprocessed_messages[0]!.content)).toBe(MAX_JSON_DEPTH);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the in-process API gets the same bounds', () => {
  const rejected = async (call: Promise<unknown>): Promise<ValidationDetail[]> => {
    const error = await call.then(() => undefined, (e: unknown) => e);
    expect(isMemoryError(error)).toBe(true);
    expect((error as MemoryError).code).toBe('VALIDATION_FAILED');
    return (error as MemoryError).details as ValidationDetail[];
  };

  it('a cyclic content item is too deep; a BigInt, NaN, Map or undefined element is no JSON', async () => {
    const cyclic: Record<string, unknown> = { type: 'text', text: 'loop' };
    cyclic['self'] = cyclic;
    const wide: unknown[] = [];
    for (let i = 0; i < 4; i++) wide.push(wide);
    for (const [content, type] of [
      [[cyclic], 'json_too_deep'],
      [[{ type: 'text', text: 'w', wide }], 'json_too_deep'],
      [[{ type: 'text', text: 'big', n: 10n }], 'json_type'],
      [[{ type: 'text', text: 'nan', n: Number.NaN }], 'json_type'],
      [[{ type: 'text', text: 'map', m: new Map() }], 'json_type'],
      [[{ type: 'text', text: 'hole', list: [1, undefined] }], 'json_type'],
    ] as const) {
      const details = await rejected(memory.add({ session_id: 'js', messages: [message({ content })] }));
      expect(details.map((d) => [d.loc.join('.'), d.type])).toEqual([['body.messages.0.content', type]]);
      // The error crosses a worker boundary by structured clone, and renders as JSON.
      expect(() => structuredClone(details)).not.toThrow();
      expect(JSON.stringify(details).length).toBeLessThan(SMALL_422);
    }
  });

  it('a huge object handed in whole is refused by size without walking all of it', () => {
    const huge: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) huge[`k${i}`] = i;
    expect(measureJson(huge, { maxBytes: 1_000 })).toEqual({ kind: 'bytes' });
    expect(measureJson({ a: [1, 'é', null, true] }, { maxBytes: 1_000 })).toEqual({ bytes: JSON.stringify({ a: [1, 'é', null, true] }).length + 1 });
  });
});

describe('rendering a 422 can never throw', () => {
  it('echoes cycles, BigInts, symbols, functions and 100,000-deep values as small JSON', () => {
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic['me'] = cyclic;
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const throwing = Object.defineProperty({}, 'boom', { enumerable: true, get: () => { throw new Error('getter'); } });
    for (const value of [cyclic, deep, 12n, Symbol('s'), () => 1, Number.NaN, throwing, new Array(1_000_000).fill('x'.repeat(1000)), 'y'.repeat(10_000_000)]) {
      const text = JSON.stringify(echoInput(value));
      expect(typeof text).toBe('string');
      expect(text.length).toBeLessThan(3_000);
    }
  });

  it('echoes every key as sent, "__proto__" among them', () => {
    const echoed = echoInput(JSON.parse('{"__proto__":"lost?","toString":"kept","nested":{"__proto__":{"a":1}}}')) as Record<string, unknown>;
    expect(Object.keys(echoed)).toEqual(['__proto__', 'toString', 'nested']);
    expect(JSON.stringify(echoed)).toBe('{"__proto__":"lost?","toString":"kept","nested":{"__proto__":{"a":1}}}');
    expect(Object.getPrototypeOf(echoed)).toBe(Object.prototype);
  });

  it('errorResponse renders any validation error, however it was built', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['me'] = cyclic;
    const raw = new MemoryError('VALIDATION_FAILED', { details: [{ loc: ['body', 'x'], msg: 'bad', type: 'value_error', input: cyclic, ctx: { n: 5n } }] });
    const response = errorResponse(raw);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: ValidationDetail[] };
    expect(body.detail[0]).toMatchObject({ loc: ['body', 'x'], type: 'value_error', ctx: { n: '5n' } });

    const many = Array.from({ length: 5_000 }, (_, i): ValidationDetail => ({ loc: ['body', `f${i}`], msg: 'm', type: 'value_error', input: 'z'.repeat(100_000) }));
    const capped = (await errorResponse(validationError(many)).json()) as { detail: ValidationDetail[] };
    expect(capped.detail).toHaveLength(MAX_REPORTED_ISSUES + 1);
    expect(capped.detail.at(-1)!.type).toBe('too_many_errors');
  });

  it('errorResponse falls back to the status and code when details cannot be serialised', async () => {
    const storage = errorResponse(new MemoryError('STORAGE_FAILED', { details: { n: 1n } }));
    expect(storage.status).toBe(503);
    expect(await storage.json()).toEqual({ detail: expect.any(String), code: 'STORAGE_FAILED' });
    const hostile = new Proxy([], { get: () => { throw new Error('trap'); } }) as unknown as ValidationDetail[];
    const validation = errorResponse(new MemoryError('VALIDATION_FAILED', { details: hostile }));
    expect(validation.status).toBe(422);
    expect(shapeProblems('HTTPValidationError', await validation.json())).toEqual([]);
  });

  it('a body nested deeper than any request can be is refused before anything recursive runs', () => {
    const deep = JSON.parse(deepArray(100_000)) as unknown;
    let error: unknown;
    try {
      assertBodyDepth(deep);
    } catch (e) {
      error = e;
    }
    expect(isMemoryError(error) && (error.details as ValidationDetail[])[0]!.type).toBe('json_too_deep');
    expect(() => assertBodyDepth(JSON.parse(deepArray(60)))).not.toThrow();
  });
});

describe('the dialects share the bounds', () => {
  const dialects = () => createFetchHandler(memory, { dialects: { breeth: { owner: { user_id: 'uma' } }, tablestore: {} } });
  const call = async (path: string, text: string) => {
    const response = await dialects()(new Request(`http://engram.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text }));
    return { status: response.status, text: await response.text() };
  };

  it('Breeth answers a 10,000-deep query with its own 400', async () => {
    const answer = await call('/v1/search', withHostile({ query: '__HOSTILE__' }, deepArray(10_000)));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_request', field: 'query' });
  });

  it('Tablestore answers 100,000 unknown fields or a 300-condition filter with one short INVALID_PARAMETER', async () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":0`).join(',');
    const wide = await call('/SearchMemories', `{"memoryStoreName":"default","query":"kites","scope":{"appId":"default"},${keys}}`);
    expect(wide.status).toBe(400);
    expect(JSON.parse(wide.text).Code).toBe('INVALID_PARAMETER');
    expect(wide.text.length).toBeLessThan(8_000);
    const eq = (i: number) => ({ op: 'eq', field: 'runId', value: `r${i}` });
    const filter = { op: 'and', conditions: Array.from({ length: 3 }, () => ({ op: 'or', conditions: Array.from({ length: 100 }, (_, i) => eq(i)) })) };
    const big = await call('/SearchMemories', JSON.stringify({ memoryStoreName: 'default', query: 'kites', scope: { appId: 'default' }, filter }));
    expect(big.status).toBe(400);
    expect(JSON.parse(big.text).Message).toMatch(/256/);
  });
});

describe('random deep or large JSON never yields a 5xx', () => {
  const ROUTES: Record<string, Record<string, unknown>> = {
    add: { session_id: 'p', messages: [message({ content: [{ type: 'text', text: 'hi', x: '__HOSTILE__' }] })] },
    flush: { session_id: '__HOSTILE__' },
    search: { user_id: 'u', query: 'kites', filters: { AND: ['__HOSTILE__'] } },
    get: { user_id: 'u', filters: '__HOSTILE__' },
    delete: { user_id: 'nobody', memory_id: '__HOSTILE__' },
    cases: { agent_id: 'a', session_id: 's', task_intent: 't', approach: '__HOSTILE__' },
    skills: { agent_id: 'a', name: 'n', description: 'd', content: 'c', source_case_ids: '__HOSTILE__' },
    knowledge: { user_id: 'u', title: '__HOSTILE__', content: 'c' },
    profile: { user_id: 'prop', profile_data: { likes: '__HOSTILE__' } },
    tools: { session_id: 'p', messages: [message({ role: 'assistant', tool_calls: ['__HOSTILE__'] })] },
  };
  const route = fc.constantFrom(...Object.keys(ROUTES));
  const check = async (name: string, hostile: string) => {
    const answer = await post(name === 'tools' ? 'add' : name, withHostile(ROUTES[name], hostile));
    expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
    if (answer.status === 422) {
      expect(answer.detail.length).toBeGreaterThan(0);
      expect(answer.detail.length).toBeLessThanOrEqual(MAX_REPORTED_ISSUES + 1);
      expect(answer.text.length).toBeLessThan(SMALL_422);
    }
  };

  it('deep nesting of any kind, anywhere', async () => {
    const open = fc.constantFrom('[', '{"a":', '{"AND":[', '[{"k":');
    const close: Record<string, string> = { '[': ']', '{"a":': '}', '{"AND":[': ']}', '[{"k":': '}]' };
    const deep = fc.tuple(fc.array(open, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 12_000 }), fc.jsonValue({ maxDepth: 1 })).map(([pattern, depth, leaf]) => {
      const opens = Array.from({ length: depth }, (_, i) => pattern[i % pattern.length]!);
      return `${opens.join('')}${JSON.stringify(leaf) ?? 'null'}${opens.reverse().map((o) => close[o]).join('')}`;
    });
    await fc.assert(fc.asyncProperty(route, deep, check), { numRuns: 60, seed: 20261130 });
  });

  it('large and wide values, anywhere', async () => {
    const wide = fc.oneof(
      fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.integer({ min: 1, max: 50_000 })).map(([v, n]) => `[${new Array(n).fill(JSON.stringify(v) ?? 'null').join(',')}]`),
      fc.tuple(fc.string({ maxLength: 4 }), fc.integer({ min: 1, max: 2_000_000 })).map(([s, n]) => JSON.stringify(s.repeat(n).slice(0, 3_000_000))),
      fc.integer({ min: 1, max: 20_000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"f${i}":{"x":[${i}]}`).join(',')}}`),
    );
    await fc.assert(fc.asyncProperty(route, wide, check), { numRuns: 40, seed: 20261201 });
  });
});
