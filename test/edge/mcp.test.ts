/**
 * MCP through the Cloudflare Worker, inside workerd, driven by the MCP SDK's own client: the
 * Worker checks the key and forwards /mcp to the key's Durable Object, whose server is pinned to
 * that tenancy. Also: the OpenAPI document at /openapi.json.
 */
import { SELF } from 'cloudflare:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { ORIGIN, T0, ok } from './helpers.js';
import { TEST_TENANCIES } from './keys.js';

async function mcpClient(key: string | null): Promise<Client> {
  const client = new Client({ name: 'edge-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
    fetch: (url, init) => SELF.fetch(String(url), init as RequestInit),
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  });
  await client.connect(transport);
  return client;
}

describe('MCP at the edge', () => {
  it('serves the tools to a key, inside the key’s tenancy', async () => {
    const client = await mcpClient(TEST_TENANCIES.acme.key);
    await client.callTool({
      name: 'add_memory',
      arguments: { session_id: 'mcp-1', messages: [{ sender_id: 'mia', role: 'user', timestamp: T0, content: 'I keep bees on my roof in Oslo.' }] },
    });
    await client.callTool({ name: 'flush_memory', arguments: { session_id: 'mcp-1' } });
    const found = await client.callTool({ name: 'search_memory', arguments: { user_id: 'mia', query: 'what does mia keep on her roof', top_k: 3 } });
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as any).data.episodes[0].episode).toMatch(/bees/);
    expect((found.structuredContent as any).data.episodes[0].app_id).toBe('acme');

    const elsewhere = await client.callTool({ name: 'search_memory', arguments: { user_id: 'mia', query: 'bees', app_id: 'beta' } });
    expect(elsewhere.isError).toBe(true);
    expect((elsewhere.structuredContent as any).code).toBe('FORBIDDEN');
    await client.close();

    // Another tenancy's key reaches another object: nothing of acme's there.
    const beta = await mcpClient(TEST_TENANCIES.beta.key);
    const none = await beta.callTool({ name: 'search_memory', arguments: { user_id: 'mia', query: 'bees', method: 'keyword' } });
    expect((none.structuredContent as any).data.episodes).toEqual([]);
    await beta.close();
    // And the HTTP API sees what MCP wrote.
    const viaApi = await ok('search', { user_id: 'mia', query: 'bees', method: 'keyword' });
    expect(viaApi.data.episodes.length).toBe(1);
  });

  it('refuses /mcp without a valid key (401), like every other route', async () => {
    await expect(mcpClient(null)).rejects.toMatchObject({ code: 401 });
    await expect(mcpClient('not-a-key')).rejects.toMatchObject({ code: 401 });
  });

  it('serves the OpenAPI document without a key', async () => {
    const response = await SELF.fetch(`${ORIGIN}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/memory/search', '/mcp']));
  });
});
