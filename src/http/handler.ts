/**
 * The runtime-agnostic HTTP face of a memory: Web-standard Request in, Response out. The same
 * function serves the Node server, the Cloudflare Worker / Durable Object and the PWA's service
 * worker. Errors come out in the EverOS shape: 422 `{detail: [...]}` for validation, otherwise
 * `{detail: message, code}` with the catalog's status. User input never produces a 500.
 */
import { BREETH_SEARCH_PATH, breethErrorResponse } from '../contract/dialects/breeth.js';
import { createDialectRoutes, type DialectOptions } from '../contract/dialects/routes.js';
import { TABLESTORE_SEARCH_PATH, tablestoreErrorResponse } from '../contract/dialects/tablestore.js';
import { boundedDetails } from '../contract/echo.js';
import { ERROR_CATALOG, isMemoryError, MemoryError, type ErrorCode } from '../errors.js';
import type { Memory } from '../engine.js';
import type { SearchTrace } from '../search/search.js';
import { openApiDocument, type RouteName } from './openapi.js';

export const API_PREFIX = '/api/v1/memory';
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

type Verb = (memory: Memory, body: unknown, signal: AbortSignal) => Promise<{ body: unknown; trace?: SearchTrace }>;

// Keyed by the contract's route names, so a route without a published schema does not compile.
const ROUTES: Record<RouteName, Verb> = {
  add: async (m, b, signal) => ({ body: await m.add(b, { signal }) }),
  flush: async (m, b, signal) => ({ body: await m.flush(b, { signal }) }),
  search: async (m, b, signal) => {
    const { response, trace } = await m.searchWithTrace(b, { signal });
    return { body: response, trace };
  },
  get: async (m, b) => ({ body: await m.get(b) }),
  delete: async (m, b) => ({ body: await m.delete(b) }),
  cases: async (m, b, signal) => ({ body: await m.upsertCase(b, { signal }) }),
  skills: async (m, b, signal) => ({ body: await m.upsertSkill(b, { signal }) }),
  knowledge: async (m, b, signal) => ({ body: await m.upsertKnowledge(b, { signal }) }),
  profile: async (m, b) => ({ body: await m.upsertProfile(b) }),
};

export interface HandlerOptions {
  /** Reports unexpected failures (a bug, never user input) to the host's log. */
  onError?: (error: unknown) => void;
  /** Path prefix the API is mounted under (default none). */
  basePath?: string;
  /**
   * Other services' search routes, each off unless configured: `breeth` serves `POST /v1/search`,
   * `tablestore` serves `POST /SearchMemories`, each with its own error shape (docs/dialects.md).
   */
  dialects?: DialectOptions;
  /**
   * Serves `/mcp` (MCP over Streamable HTTP) with this function, e.g. `handleMcpRequest` of
   * src/mcp/http.ts; default none (404). Passed in rather than imported, so hosts that do not
   * serve MCP (the PWA's service worker) never bundle the MCP SDK.
   */
  mcp?: (memory: Memory, request: Request) => Promise<Response>;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * The response for a thrown error, in the EverOS error shape. It never throws: validation
 * details are bounded (`boundedDetails`, whoever built them), and should any part still fail to
 * serialise, the answer keeps the status and code with a plain message.
 */
export function errorResponse(error: unknown): Response {
  try {
    if (isMemoryError(error)) {
      if (error.code === 'VALIDATION_FAILED' && Array.isArray(error.details)) return json(422, { detail: boundedDetails(error.details) });
      const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': 'Bearer' } : {};
      return json(error.status, { detail: error.message, code: error.code, ...(error.details && !Array.isArray(error.details) ? { details: error.details } : {}) }, headers);
    }
  } catch {
    const { status, code } = isMemoryError(error) && ERROR_CATALOG[error.code] ? error : { status: 500, code: 'INTERNAL' };
    const detail = status === 422 ? [{ loc: ['body'], msg: 'Invalid request', type: 'value_error' }] : ERROR_CATALOG[code as ErrorCode].message;
    return json(status, status === 422 ? { detail } : { detail, code });
  }
  return json(500, { detail: 'Internal Server Error', code: 'INTERNAL' });
}

const tooLarge = (limit: number) => new MemoryError('PAYLOAD_TOO_LARGE', { details: { limit_bytes: limit } });

/**
 * The body's bytes, counted while they stream: reading stops (and the stream is cancelled) as soon
 * as the count passes `limit`, so a client can make the server hold at most `limit` bytes, chunked
 * or not. A declared content-length over the limit is refused before anything is read.
 */
export async function readBodyBytes(request: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) {
    await request.body?.cancel().catch(() => undefined);
    throw tooLarge(limit);
  }
  if (request.body === null) {
    // Some hosts (older service workers) expose no stream but still hold a body; the size check follows.
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

const jsonInvalid = (position: number, message: string) =>
  new MemoryError('VALIDATION_FAILED', {
    details: [{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: message } }],
  });

/** Reads a JSON body with FastAPI's error for malformed JSON; bounded in bytes while it streams. */
export async function readJson(request: Request): Promise<unknown> {
  const bytes = await readBodyBytes(request);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // JSON is UTF-8 (RFC 8259); replacing bad bytes would store something the client never sent.
    throw jsonInvalid(0, 'the body is not valid UTF-8');
  }
  if (text.trim() === '') {
    throw new MemoryError('VALIDATION_FAILED', { details: [{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }] });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = String((error as Error).message);
    throw jsonInvalid(Number(/position (\d+)/.exec(message)?.[1] ?? 0), message);
  }
}

/** The route path of a request under `base` (no trailing slash; `/` for the root). */
const routePath = (request: Request, base: string): string => new URL(request.url).pathname.slice(base.length).replace(/\/+$/, '') || '/';

/**
 * Renders an error raised before the routes run (by a host's guard) in the shape of the route the
 * request was for: a dialect's own shape on its path, EverOS's everywhere else.
 */
export function createErrorRenderer(options: HandlerOptions = {}): (request: Request, error: unknown) => Response {
  const base = options.basePath ?? '';
  const shapes = new Map<string, (error: unknown) => Response>();
  if (options.dialects?.breeth) shapes.set(BREETH_SEARCH_PATH, breethErrorResponse);
  if (options.dialects?.tablestore) shapes.set(TABLESTORE_SEARCH_PATH, tablestoreErrorResponse);
  return (request, error) => (shapes.get(routePath(request, base)) ?? errorResponse)(error);
}

function traceHeaders(trace: SearchTrace | undefined): Record<string, string> {
  if (!trace) return {};
  const headers: Record<string, string> = { 'x-engram-rounds': String(trace.rounds), 'x-engram-took-ms': String(Math.round(trace.took_ms)) };
  if (trace.notices.length) headers['x-engram-notices'] = trace.notices.map((n) => n.code).join(', ');
  return headers;
}

/** Builds a fetch handler over a memory (or a function that picks the memory for a request). */
export function createFetchHandler(target: Memory | ((request: Request, body: unknown) => Promise<Memory>), options: HandlerOptions = {}): (request: Request) => Promise<Response> {
  const base = options.basePath ?? '';
  const pick = typeof target === 'function' ? target : async () => target;
  const dialectRoute = createDialectRoutes(options.dialects);
  return async (request) => {
    try {
      const path = routePath(request, base);
      if (path === '/health') {
        if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { detail: 'Method Not Allowed' }, { allow: 'GET' });
        const memory = typeof target === 'function' ? null : target;
        return json(200, { status: 'ok', ...(memory ? { memory: memory.stats() } : {}) });
      }
      if (path === '/openapi.json') {
        if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { detail: 'Method Not Allowed' }, { allow: 'GET' });
        return json(200, openApiDocument({ mcp: Boolean(options.mcp) }));
      }
      // The MCP body is a JSON-RPC message, not a memory request: the memory is picked without it.
      if (path === '/mcp' && options.mcp) return await options.mcp(await pick(request, undefined), request);
      const dialect = dialectRoute(path);
      if (dialect) return await dialect(request, { memory: pick, readJson, onError: options.onError });
      if (!path.startsWith(`${API_PREFIX}/`)) return json(404, { detail: 'Not Found' });
      const name = path.slice(API_PREFIX.length + 1);
      // Own keys only: `/api/v1/memory/__proto__` or `/toString` must not reach Object.prototype.
      const verb = Object.hasOwn(ROUTES, name) ? ROUTES[name as RouteName] : undefined;
      if (!verb) return json(404, { detail: 'Not Found' });
      if (request.method !== 'POST') return json(405, { detail: 'Method Not Allowed' }, { allow: 'POST' });
      const body = await readJson(request);
      const memory = await pick(request, body);
      const out = await verb(memory, body, request.signal);
      return json(200, out.body, traceHeaders(out.trace));
    } catch (error) {
      if (!isMemoryError(error)) options.onError?.(error);
      return errorResponse(error);
    }
  };
}
