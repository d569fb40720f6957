/**
 * The MCP server driven by the MCP SDK's own client: in process (the SDK's in-memory transport)
 * and over Streamable HTTP through the Node server, behind its token. A real memory (bundled
 * embedding model, memory store) answers; tool errors carry the catalog's codes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { jsonSchemaOf } from '../../src/contract/schema.js';
import { REQUEST_CHECKS } from '../../src/contract/requests.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { startNodeServer, type RunningServer } from '../../src/http/node-server.js';
import { handleMcpRequest } from '../../src/mcp/http.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/server.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';

const T0 = Date.UTC(2026, 10, 28, 10);
const MESSAGES = [
  { id: 'm1', sender_id: 'alice', sender_name: 'Alice', role: 'user', timestamp: T0, content: 'I adopted a cat named Miso yesterday.' },
  { id: 'm2', sender_id: 'bot', role: 'assistant', timestamp: T0 + 1000, content: 'Congratulations on Miso!' },
  { id: 'm3', sender_id: 'alice', sender_name: 'Alice', role: 'user', timestamp: T0 + 2000, content: 'I work as a nurse in Lisbon.' },
];

async function connected(memory: Memory, options: McpServerOptions = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(memory, options).connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const parsed = (result: Awaited<ReturnType<Client['callTool']>>): any => JSON.parse((result.content as { text: string }[])[0]!.text);

describe('MCP server (in process)', () => {
  let memory: Memory;
  let client: Client;
  beforeAll(async () => {
    memory = await createMemory({ embedder: await createDefaultEmbedder() });
    client = await connected(memory);
  });
  afterAll(async () => {
    await client.close();
    await memory.close();
  });

  it('lists the five tools with the contract’s own request schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add_memory', 'flush_memory', 'search_memory', 'get_memories', 'delete_memory']);
    const search = tools.find((t) => t.name === 'search_memory')!;
    expect(search.inputSchema).toEqual(jsonSchemaOf(REQUEST_CHECKS.search));
    expect(Object.keys(search.inputSchema.properties!)).toEqual(
      ['user_id', 'agent_id', 'app_id', 'project_id', 'query', 'method', 'top_k', 'radius', 'min_score', 'include_profile', 'enable_llm_rerank', 'filters'],
    );
    expect(search.inputSchema.required).toEqual(['query']);
    expect((search.inputSchema.properties as any).method.enum).toEqual(['keyword', 'vector', 'hybrid', 'agentic']);
  });

  it('adds, flushes, searches, lists, reads the profile resource and forgets', async () => {
    const added = await client.callTool({ name: 'add_memory', arguments: { session_id: 's1', messages: MESSAGES } });
    expect(added.isError).toBeFalsy();
    expect((await client.callTool({ name: 'flush_memory', arguments: { session_id: 's1' } })).isError).toBeFalsy();

    const found = await client.callTool({ name: 'search_memory', arguments: { user_id: 'alice', query: 'what pet does Alice have', method: 'hybrid', top_k: 3 } });
    expect(found.isError).toBeFalsy();
    const episodes = parsed(found).data.episodes as { episode: string }[];
    expect(episodes.length).toBeGreaterThan(0);
    expect(episodes[0]!.episode).toMatch(/Miso/);
    expect(found.structuredContent).toEqual(parsed(found));

    const facts = parsed(await client.callTool({ name: 'get_memories', arguments: { user_id: 'alice', memory_type: 'atomic_fact' } }));
    expect(facts.data.total_count).toBeGreaterThan(0);

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('engram://profile/alice');
    const profile = await client.readResource({ uri: 'engram://profile/alice' });
    expect(JSON.parse((profile.contents[0] as { text: string }).text).data).toBeDefined();

    const forgot = parsed(await client.callTool({ name: 'delete_memory', arguments: { user_id: 'alice' } }));
    expect(forgot.data.deleted_count).toBeGreaterThan(0);
    const after = parsed(await client.callTool({ name: 'search_memory', arguments: { user_id: 'alice', query: 'cat Miso', method: 'keyword' } }));
    expect(after.data.episodes).toEqual([]);
  });

  it('answers a call that breaks the contract with an error result and the 422 details', async () => {
    const result = await client.callTool({ name: 'search_memory', arguments: { user_id: 'alice', agent_id: 'bot', query: '', top_k: 0 } });
    expect(result.isError).toBe(true);
    const body = parsed(result);
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.status).toBe(422);
    expect(body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'))).toEqual(['body.query', 'body.top_k', 'body']);
  });

  it('refuses an unknown tool as a protocol error', async () => {
    await expect(client.callTool({ name: 'drop_tables', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('keeps a pinned server inside its tenancy', async () => {
    const pinned = await connected(memory, { tenancy: { app_id: 'acme', project_id: 'p1' } });
    const refused = await pinned.callTool({ name: 'search_memory', arguments: { user_id: 'alice', query: 'cat', app_id: 'other' } });
    expect(refused.isError).toBe(true);
    expect(parsed(refused).code).toBe('FORBIDDEN');
    await pinned.callTool({ name: 'add_memory', arguments: { session_id: 's9', messages: MESSAGES } });
    await pinned.callTool({ name: 'flush_memory', arguments: { session_id: 's9' } });
    expect(memory.owners('acme', 'p1').map((o) => o.owner_id)).toContain('alice');
    await pinned.close();
  });
});

describe('MCP server over Streamable HTTP (Node server)', () => {
  const token = 'test-token-0123456789abcdef';
  let memory: Memory;
  let server: RunningServer;
  beforeAll(async () => {
    memory = await createMemory({ embedder: await createDefaultEmbedder() });
    server = await startNodeServer({ port: 0, handler: createFetchHandler(memory, { mcp: handleMcpRequest }), token });
  });
  afterAll(async () => {
    await server.close();
    await memory.close();
  });

  const httpClient = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
    return client;
  };

  it('serves the tools behind the server’s token', async () => {
    const client = await httpClient({ authorization: `Bearer ${token}` });
    await client.callTool({ name: 'add_memory', arguments: { session_id: 's1', messages: MESSAGES } });
    await client.callTool({ name: 'flush_memory', arguments: { session_id: 's1' } });
    const found = parsed(await client.callTool({ name: 'search_memory', arguments: { user_id: 'alice', query: 'where does Alice work', top_k: 3 } }));
    expect(found.data.episodes[0].episode).toMatch(/nurse/);
    await client.close();
  });

  it('refuses a client without the token (401), like every other route', async () => {
    await expect(httpClient({})).rejects.toMatchObject({ code: 401 });
    const response = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBe('UNAUTHENTICATED');
  });

  it('answers GET /mcp with 405 (stateless: no stream to offer)', async () => {
    const response = await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
  });
});
