/**
 * The OpenAPI document against the routes and validator it describes: every API route is in it,
 * every field it lists is one the validator accepts and every field the validator accepts is
 * listed, its references resolve, and each host serves it at GET /openapi.json.
 */
import { describe, expect, it } from 'vitest';
import { createMemory } from '../../src/engine.js';
import { REQUEST_CHECKS } from '../../src/contract/requests.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { handleMcpRequest } from '../../src/mcp/http.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { handleRequest } from '../../worker/cloudflare.js';
import type { EdgeEnv } from '../../worker/edge-env.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const doc = openApiDocument() as any;
const ROUTES = Object.keys(REQUEST_CHECKS);

const schemaOf = (route: string): any => {
  const ref: string = doc.paths[`/api/v1/memory/${route}`].post.requestBody.content['application/json'].schema.$ref;
  return doc.components.schemas[ref.split('/').pop()!];
};

/** Every `$ref` in a value. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with every route of the handler, /health, /openapi.json and /mcp', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([...ROUTES.map((r) => `/api/v1/memory/${r}`), '/health', '/mcp', '/openapi.json'].sort());
    for (const ref of refs(doc)) expect(doc.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
  });

  it('lists exactly the routes the handler answers', async () => {
    const handler = createFetchHandler(await createMemory({ store: createMemoryStore(), embedder: hashEmbedderDouble() }));
    for (const route of ROUTES) {
      const response = await handler(new Request(`http://x/api/v1/memory/${route}`, { method: 'POST', body: '{}' }));
      expect(response.status, route).toBe(422);
    }
    expect((await handler(new Request('http://x/api/v1/memory/nope', { method: 'POST', body: '{}' }))).status).toBe(404);
  });

  // Every documented field is accepted by the validator (no extra_forbidden), and an undocumented
  // one is refused: the document and the validator list the same fields.
  it.each(ROUTES)('documents exactly the fields %s accepts', async (route) => {
    const memory = await createMemory({ store: createMemoryStore(), embedder: hashEmbedderDouble() });
    const handler = createFetchHandler(memory);
    const schema = schemaOf(route);
    const fields = Object.keys(schema.properties);
    expect(fields.length).toBeGreaterThan(0);
    expect(schema.additionalProperties).toBe(false);
    const body = Object.fromEntries([...fields, 'not_a_field'].map((f) => [f, { wrong: true }]));
    const answer = await (await handler(new Request(`http://x/api/v1/memory/${route}`, { method: 'POST', body: JSON.stringify(body) }))).json();
    const extra = answer.detail.filter((d: any) => d.type === 'extra_forbidden').map((d: any) => d.loc.slice(1).join('.'));
    expect(extra).toEqual(['not_a_field']);
    for (const name of schema.required ?? []) expect(fields).toContain(name);
  });

  it('documents the fields of a message, each accepted, and a field outside them refused', async () => {
    const handler = createFetchHandler(await createMemory({ store: createMemoryStore(), embedder: hashEmbedderDouble() }));
    const message = schemaOf('add').properties.messages.items;
    const fields = Object.keys(message.properties);
    expect(fields).toEqual(expect.arrayContaining(['sender_id', 'role', 'timestamp', 'content']));
    const body = { session_id: 's', messages: [Object.fromEntries([...fields, 'nope'].map((f) => [f, { wrong: true }]))] };
    const answer = await (await handler(new Request('http://x/api/v1/memory/add', { method: 'POST', body: JSON.stringify(body) }))).json();
    expect(answer.detail.filter((d: any) => d.type === 'extra_forbidden').map((d: any) => d.loc.join('.'))).toEqual(['body.messages.0.nope']);
  });

  it('carries the validator’s bounds and defaults', () => {
    const search = schemaOf('search').properties;
    expect(search.method).toMatchObject({ enum: ['keyword', 'vector', 'hybrid', 'agentic'], default: 'hybrid' });
    expect(search.top_k).toMatchObject({ type: 'integer', minimum: -1, maximum: 100, default: -1 });
    expect(search.user_id.type).toEqual(['string', 'null']);
    expect(schemaOf('add').properties.messages).toMatchObject({ minItems: 1, maxItems: 500 });
    expect(schemaOf('get').properties.page_size).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
  });

  it('is served at GET /openapi.json by the fetch handler and by the Cloudflare Worker', async () => {
    const memory = await createMemory({ store: createMemoryStore(), embedder: hashEmbedderDouble() });
    const handler = createFetchHandler(memory, { mcp: handleMcpRequest });
    const fromHandler = await handler(new Request('http://x/openapi.json'));
    expect(fromHandler.status).toBe(200);
    expect(await fromHandler.json()).toEqual(doc);
    const fromWorker = await handleRequest(new Request('https://edge.example/openapi.json'), {} as EdgeEnv);
    expect(fromWorker.status).toBe(200);
    expect(await fromWorker.json()).toEqual(doc);
    expect((await handler(new Request('http://x/openapi.json', { method: 'POST', body: '{}' }))).status).toBe(405);
    // A host that does not serve MCP (the PWA's service worker) does not list it.
    const withoutMcp = await (await createFetchHandler(memory)(new Request('http://x/openapi.json'))).json();
    expect(Object.keys(withoutMcp.paths)).not.toContain('/mcp');
    expect((await createFetchHandler(memory)(new Request('http://x/mcp', { method: 'POST', body: '{}' }))).status).toBe(404);
  });
});
