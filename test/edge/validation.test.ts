/**
 * Bad input through the Worker comes back as the contract's 4xx (422 detail[] for validation,
 * 413 for size), never a 500, and a 422 stays small whatever was sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, conversation } from './helpers.js';

const ROUTES = ['add', 'flush', 'search', 'get', 'delete', 'cases', 'skills', 'knowledge', 'profile'];

async function expect422(response: Response, loc?: (string | number)[]): Promise<void> {
  expect(response.status).toBe(422);
  const body = (await response.json()) as { detail: { loc: (string | number)[]; msg: string; type: string }[] };
  expect(Array.isArray(body.detail)).toBe(true);
  expect(body.detail.length).toBeGreaterThan(0);
  for (const d of body.detail) {
    expect(Array.isArray(d.loc)).toBe(true);
    expect(typeof d.type).toBe('string');
  }
  if (loc) expect(body.detail.map((d) => d.loc.join('.'))).toContain(loc.join('.'));
}

describe('validation at the edge', () => {
  it('malformed, empty and non-object bodies are 422 on every route', async () => {
    for (const route of ROUTES) {
      const malformed = await call(route, '{"user_id": ');
      expect(malformed.status, route).toBe(422);
      expect(((await malformed.json()) as any).detail[0].type).toBe('json_invalid');
      await expect422(await call(route, ''), ['body']);
      await expect422(await call(route, '[1, 2]'));
      await expect422(await call(route, '"text"'));
      await expect422(await call(route, 'null'));
    }
  });

  it('contract violations name the field', async () => {
    await expect422(await call('search', { user_id: 'u' }), ['body', 'query']);
    await expect422(await call('search', { user_id: 'u', agent_id: 'a', query: 'q' }), ['body']);
    await expect422(await call('search', { user_id: 'u', query: 'q', top_k: 0 }), ['body', 'top_k']);
    await expect422(await call('search', { user_id: 'u', query: 'q', method: 'psychic' }), ['body', 'method']);
    await expect422(await call('search', { user_id: 'u/../v', query: 'q' }), ['body', 'user_id']);
    await expect422(await call('search', { user_id: 'u', query: 'q', filters: { timestamp: { gt: 'yesterday-ish' } } }));
    await expect422(await call('add', { session_id: 's', messages: [] }), ['body', 'messages']);
    await expect422(await call('add', { ...conversation('s', 'u', 'a', ['hi']), messages: [{ sender_id: 'u', role: 'user', timestamp: 'when?', content: 'hi' }] }), ['body', 'messages', 0, 'timestamp']);
    await expect422(await call('add', conversation('s', 'u', 'a', Array.from({ length: 501 }, () => 'x'))), ['body', 'messages']);
    await expect422(await call('flush', {}), ['body', 'session_id']);
    await expect422(await call('get', { user_id: 'u', page_size: 1000 }), ['body', 'page_size']);
    await expect422(await call('delete', { user_id: 'u', memory_id: 'm', session_id: 's' }), ['body']);
    await expect422(await call('profile', { agent_id: 'a', profile_data: {} }), ['body', 'user_id']);
    await expect422(await call('cases', { user_id: 'u', session_id: 's', task_intent: 't', approach: 'a' }), ['body', 'agent_id']);
  });

  it('bounds hold at the edge: deep free-form JSON, filter amplification, long echoes, every problem at once', async () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const message = { sender_id: 'u', role: 'user', timestamp: 1_767_600_000_000, content: [{ type: 'text', text: 'hi', a: '__DEEP__' }] };
    const add = JSON.stringify({ session_id: 's-deep', messages: [message] }).replace('"__DEEP__"', deep(200));
    const deepAnswer = await call('add', add);
    expect(deepAnswer.status).toBe(422);
    expect(((await deepAnswer.json()) as any).detail).toEqual([expect.objectContaining({ loc: ['body', 'messages', 0, 'content'], type: 'json_too_deep', ctx: { max_depth: 32 } })]);

    const ones = new Array(100_000).fill('1').join(',');
    const filters = await call('search', `{"user_id":"u","query":"q","filters":{"AND":[${ones}]}}`);
    const filtersText = await filters.text();
    expect(filters.status).toBe(422);
    expect(filtersText.length).toBeLessThan(4_000);
    expect(JSON.parse(filtersText).detail).toHaveLength(1);

    const long = await call('search', { user_id: 'u', query: 'q'.repeat(16_001) });
    const longText = await long.text();
    expect(long.status).toBe(422);
    expect(longText.length).toBeLessThan(1_000);

    const deepQuery = await call('search', `{"user_id":"u","query":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(deepQuery.status).toBe(422);
    expect(((await deepQuery.json()) as any).detail[0]).toMatchObject({ loc: ['body', 'query'], type: 'string_type' });

    const readme = (await (await call('search', { user_id: 'alice', agent_id: 'bot', query: '', top_k: 0 })).json()) as any;
    expect(readme.detail.map((d: { loc: unknown[] }) => d.loc.join('.'))).toEqual(['body.query', 'body.top_k', 'body']);
  });

  it('a body over 10 MB is 413', async () => {
    const response = await call('knowledge', { user_id: 'u', title: 't', content: 'x'.repeat(10 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('arbitrary JSON on any route is never a 5xx', async () => {
    const scopeLike = fc.record(
      {
        user_id: fc.oneof(fc.constant('u1'), fc.string(), fc.integer(), fc.constant(null)),
        agent_id: fc.oneof(fc.constant('a1'), fc.string(), fc.constant(null)),
        session_id: fc.oneof(fc.constant('s1'), fc.string()),
        query: fc.oneof(fc.string(), fc.integer()),
        top_k: fc.oneof(fc.integer({ min: -5, max: 200 }), fc.string()),
        method: fc.oneof(fc.constantFrom('keyword', 'vector', 'hybrid', 'agentic'), fc.string()),
        messages: fc.array(fc.record({ sender_id: fc.string(), role: fc.constantFrom('user', 'assistant', 'x'), timestamp: fc.oneof(fc.integer(), fc.string()), content: fc.oneof(fc.string(), fc.jsonValue()) }), { maxLength: 3 }),
        filters: fc.jsonValue({ maxDepth: 3 }),
        memory_type: fc.string(),
        profile_data: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.oneof(scopeLike, fc.jsonValue({ maxDepth: 4 })), async (route, body) => {
        const response = await call(route, body);
        await response.arrayBuffer();
        return response.status < 500;
      }),
      { numRuns: 150, seed: 20260302 },
    );
  });
});
