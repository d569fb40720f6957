/**
 * The Cloudflare Worker: authenticates each request, pins its body to the key's tenancy and
 * forwards it to that tenancy's Durable Object, which runs the engine. One object per
 * (app_id, project_id): every engine behaviour that spans owners (a session's episodes going to
 * each user and its cases to the agent, forgetting a user reaching the agent's records that quote
 * them, unprocessed messages of a shared session) stays inside one object.
 *
 * Routes: GET /health (no key), POST /api/v1/memory/{add,flush,search,get,delete,cases,skills,
 * knowledge,profile} with `Authorization: Bearer <key>`.
 */
import { MemoryError, isMemoryError, wrapError } from '../src/errors.js';
import { API_PREFIX, errorResponse, readBodyBytes, readJson } from '../src/http/handler.js';
import { ApiKeysConfigError, authenticate, scopeBody, TENANCY_HEADER, tenancyName } from './auth.js';
import type { EdgeEnv } from './edge-env.js';
import { openApiDocument } from '../src/http/openapi.js';

export { MemoryObject } from './memory-object.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** Answers one request at the edge. */
export async function handleRequest(request: Request, env: EdgeEnv): Promise<Response> {
  try {
    const url = new URL(request.url);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/health') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { detail: 'Method Not Allowed' }, { allow: 'GET' });
      return json(200, { status: 'ok' });
    }
    if (path === '/openapi.json') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { detail: 'Method Not Allowed' }, { allow: 'GET' });
      return json(200, openApiDocument());
    }
    if (path === '/mcp') {
      // MCP (Streamable HTTP) behind the same keys: the object serves it pinned to the key's tenancy.
      const name = tenancyName(await authenticate(request, env.API_KEYS));
      const headers = new Headers(request.headers);
      headers.delete('authorization');
      headers.set(TENANCY_HEADER, name);
      const forwarded = new Request(url.toString(), { method: request.method, headers, body: request.method === 'POST' ? (await readBodyBytes(request)) as Uint8Array<ArrayBuffer> : null });
      return await env.MEMORY.get(env.MEMORY.idFromName(name)).fetch(forwarded);
    }
    if (!path.startsWith(`${API_PREFIX}/`)) return json(404, { detail: 'Not Found' });
    if (request.method !== 'POST') return json(405, { detail: 'Method Not Allowed' }, { allow: 'POST' });
    const tenancy = await authenticate(request, env.API_KEYS);
    const body = scopeBody(await readJson(request), tenancy);
    const name = tenancyName(tenancy);
    const stub = env.MEMORY.get(env.MEMORY.idFromName(name));
    // The object re-reads the route from the URL; the key stays here.
    const forwarded = new Request(url.toString(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [TENANCY_HEADER]: name },
      body: JSON.stringify(body),
    });
    try {
      return await stub.fetch(forwarded);
    } catch (error) {
      console.error('[engram] memory object failed', error);
      return errorResponse(wrapError(error, 'STORAGE_FAILED', 'the memory object is unavailable; retry'));
    }
  } catch (error) {
    if (error instanceof ApiKeysConfigError) {
      console.error(`[engram] ${error.message}`);
      return errorResponse(new MemoryError('INTERNAL', { message: 'The server is misconfigured.' }));
    }
    if (!isMemoryError(error)) console.error('[engram] unexpected error', error);
    return errorResponse(error);
  }
}

export default {
  fetch(request: Request, env: EdgeEnv): Promise<Response> {
    return handleRequest(request, env);
  },
};
