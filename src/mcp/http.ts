/**
 * MCP over Streamable HTTP, as a Web-standard `Request → Response` function, so every host that
 * runs the fetch handler (Node server, Cloudflare Durable Object, service worker) serves `/mcp`
 * behind its own guard and keys. Stateless: each request gets a fresh server and transport and
 * a JSON answer, so no session state has to live in a host that may be evicted between requests.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Memory } from '../engine.js';
import { MAX_BODY_BYTES } from '../http/handler.js';
import { createMcpServer, type McpServerOptions } from './server.js';

/** Answers one MCP request (POST a JSON-RPC message; GET and DELETE are 405 in stateless mode). */
export async function handleMcpRequest(memory: Memory, request: Request, options: McpServerOptions = {}): Promise<Response> {
  // A stateless server has no stream to offer on GET and no session to end on DELETE (the spec's 405).
  if (request.method !== 'POST') {
    return new Response(JSON.stringify({ detail: 'Method Not Allowed' }), { status: 405, headers: { 'content-type': 'application/json', allow: 'POST' } });
  }
  const server = createMcpServer(memory, options);
  // No sessionIdGenerator: stateless.
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    // The JSON answer is complete once handleRequest resolves; the server holds nothing else.
    await server.close();
  }
}
