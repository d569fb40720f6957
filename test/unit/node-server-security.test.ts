/**
 * The Node server against what a web page the user visits could send it, over real sockets on
 * 127.0.0.1: simple cross-site POSTs, foreign origins, DNS-rebound host names, a missing token.
 * Each refusal is checked for its code and for leaving the memory as it was.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { createErrorRenderer, createFetchHandler, type HandlerOptions } from '../../src/http/handler.js';
import { createLocalGuard, exposureProblem, parseHost } from '../../src/http/local-guard.js';
import { startNodeServer, type NodeServerOptions, type RunningServer } from '../../src/http/node-server.js';
import { readServeSettings } from '../../src/http/serve-cli.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One request with exactly these headers (node:http lets a test set Host, which fetch does not). */
function send(server: RunningServer, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path, method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Raw bytes on a socket, for CONNECT, which node:http's client treats as a tunnel. */
function rawRequest(server: RunningServer, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.end(head));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const FORGET_ALICE = JSON.stringify({ user_id: 'alice' });
const EVIL = 'https://evil.example';

describe('the Node server refuses what a web page could forge', () => {
  let memory: Memory;
  const servers: RunningServer[] = [];

  beforeEach(async () => {
    memory = await createMemory({ embedder: hashEmbedderDouble() });
    await memory.upsertKnowledge({ user_id: 'alice', title: 'Allergy', content: 'Alice is allergic to penicillin.' });
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    await memory.close();
  });

  async function serve(options: Partial<NodeServerOptions> & { handlerOptions?: HandlerOptions } = {}): Promise<RunningServer> {
    const { handlerOptions = {}, ...rest } = options;
    const server = await startNodeServer({ port: 0, handler: createFetchHandler(memory, handlerOptions), renderError: createErrorRenderer(handlerOptions), ...rest });
    servers.push(server);
    return server;
  }

  const records = () => memory.stats().records;

  it('a simple cross-site POST (text/plain) is 415 and deletes nothing', async () => {
    const server = await serve();
    const before = records();
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/jsonx']) {
      const answer = await send(server, '/api/v1/memory/delete', { headers: { 'content-type': type }, body: FORGET_ALICE });
      expect(answer.status, type).toBe(415);
      expect(answer.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const bare = await send(server, '/api/v1/memory/add', { body: FORGET_ALICE });
    expect(bare.status).toBe(415);
    expect(records()).toBe(before);
    expect(before).toBeGreaterThan(0);
    // JSON, with or without the charset, goes through.
    for (const type of ['application/json', 'Application/JSON; charset=utf-8', 'application/json;charset="UTF-8"']) {
      expect((await send(server, '/api/v1/memory/get', { headers: { 'content-type': type }, body: JSON.stringify({ user_id: 'alice', memory_type: 'knowledge' }) })).status, type).toBe(200);
    }
  });

  it('a request from a foreign origin is 403 and deletes nothing, whatever its content type', async () => {
    const server = await serve({ allowOrigins: ['http://localhost:3000'] });
    const before = records();
    for (const origin of [EVIL, 'null', 'http://localhost:3001', 'https://localhost:3000']) {
      for (const headers of [{ ...JSON_TYPE, origin }, { 'content-type': 'text/plain', origin }]) {
        const answer = await send(server, '/api/v1/memory/delete', { headers, body: FORGET_ALICE });
        expect(answer.status, origin).toBe(403);
        expect(answer.body.code).toBe('ORIGIN_FORBIDDEN');
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    expect(records()).toBe(before);
  });

  it('an allowed origin gets CORS headers on its answers', async () => {
    const origin = 'http://localhost:3000';
    const server = await serve({ allowOrigins: [`${origin}/`] });
    const answer = await send(server, '/api/v1/memory/search', { headers: { ...JSON_TYPE, origin }, body: JSON.stringify({ user_id: 'alice', query: 'allergy', method: 'keyword' }) });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(origin);
    expect(answer.headers['access-control-expose-headers']).toContain('x-engram-rounds');
    expect(answer.headers.vary).toContain('Origin');
    // Its refusals carry them too, so the page can read why.
    const refused = await send(server, '/api/v1/memory/search', { headers: { 'content-type': 'text/plain', origin }, body: '{}' });
    expect(refused.status).toBe(415);
    expect(refused.headers['access-control-allow-origin']).toBe(origin);
  });

  it('answers preflights: 204 with methods, headers and max-age for an allowed origin, 403 otherwise', async () => {
    const origin = 'http://localhost:3000';
    const server = await serve({ allowOrigins: [origin], token: 'a-token-of-sixteen-chars' });
    const preflight = (from: string, extra: Record<string, string> = {}) =>
      send(server, '/api/v1/memory/delete', { method: 'OPTIONS', headers: { origin: from, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization', ...extra } });
    const allowed = await preflight(origin, { 'access-control-request-private-network': 'true' });
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(origin);
    expect(allowed.headers['access-control-allow-methods']).toContain('POST');
    expect(allowed.headers['access-control-allow-headers']).toContain('content-type');
    expect(allowed.headers['access-control-allow-headers']).toContain('authorization');
    expect(Number(allowed.headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(allowed.headers['access-control-allow-private-network']).toBe('true');
    const refused = await preflight(EVIL);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ORIGIN_FORBIDDEN');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a Host name the server does not answer for is 421 (DNS rebinding), loopback names with its port pass', async () => {
    const server = await serve({ allowHosts: ['memory.lan', 'proxy.example:8443'] });
    const get = (host: string) => send(server, '/api/v1/memory/get', { headers: { ...JSON_TYPE, host }, body: JSON.stringify({ user_id: 'alice', memory_type: 'knowledge' }) });
    for (const host of [`evil.example:${server.port}`, 'evil.example', `127.0.0.1:${server.port + 1}`, `localhost:${server.port === 80 ? 81 : 80}`, 'localhost', `127.0.0.2:${server.port}`, 'proxy.example:8444', 'a b', `localhost.:${server.port}`]) {
      const answer = await get(host);
      expect(answer.status, host).toBe(421);
      expect(answer.body.code).toBe('MISDIRECTED_REQUEST');
    }
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`, `[::1]:${server.port}`, 'memory.lan', `memory.lan:${server.port}`, 'proxy.example:8443']) {
      const answer = await get(host);
      expect(answer.status, host).toBe(200);
      expect(answer.body.data.total_count).toBe(1);
    }
    expect((await send(server, '/health', { method: 'GET', headers: { host: 'evil.example' } })).status).toBe(421);
  });

  it('with a token, every route is 401 with www-authenticate without it and answers with it', async () => {
    const token = 'correct-horse-battery-staple';
    const server = await serve({ token });
    const before = records();
    for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${token}x`, `Basic ${token}`, `Bearer ${token.slice(0, -1)}`]) {
      const headers: Record<string, string> = { ...JSON_TYPE, ...(authorization ? { authorization } : {}) };
      const answer = await send(server, '/api/v1/memory/delete', { headers, body: FORGET_ALICE });
      expect(answer.status, authorization).toBe(401);
      expect(answer.body.code).toBe('UNAUTHENTICATED');
      expect(answer.headers['www-authenticate']).toBe('Bearer');
      expect((await send(server, '/health', { method: 'GET', headers })).status).toBe(401);
    }
    expect(records()).toBe(before);
    expect((await send(server, '/health', { method: 'GET', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const deleted = await send(server, '/api/v1/memory/delete', { headers: { ...JSON_TYPE, authorization: `bearer ${token}` }, body: FORGET_ALICE });
    expect(deleted.status).toBe(200);
    expect(records()).toBe(before - 1);
  });

  it('dialect routes pass the same guard and keep their own error shapes', async () => {
    const token = 'dialect-token-0123456789';
    const server = await serve({ token, handlerOptions: { dialects: { breeth: { owner: { user_id: 'alice' } }, tablestore: {} } } });
    const search = JSON.stringify({ query: 'allergy' });
    const breeth401 = await send(server, '/v1/search', { headers: JSON_TYPE, body: search });
    expect(breeth401.status).toBe(401);
    expect(breeth401.body.error).toBe('unauthenticated');
    const breeth403 = await send(server, '/v1/search', { headers: { ...JSON_TYPE, origin: EVIL, authorization: `Bearer ${token}` }, body: search });
    expect(breeth403.status).toBe(403);
    expect(breeth403.body.error).toBe('origin_forbidden');
    const breethOk = await send(server, '/v1/search', { headers: { ...JSON_TYPE, authorization: `Bearer ${token}` }, body: search });
    expect(breethOk.status).toBe(200);

    const tsBody = JSON.stringify({ memoryStoreName: 'default', query: 'allergy', scope: { userId: 'alice' } });
    const ts401 = await send(server, '/SearchMemories', { headers: JSON_TYPE, body: tsBody });
    expect(ts401.status).toBe(401);
    expect(ts401.body.Code).toBe('UNAUTHORIZED');
    const ts421 = await send(server, '/SearchMemories', { headers: { ...JSON_TYPE, host: 'evil.example', 'x-ots-apikey': token }, body: tsBody });
    expect(ts421.status).toBe(421);
    expect(ts421.body.Code).toBe('MISDIRECTED_REQUEST');
    // Tablestore clients send their key as x-ots-apikey; the token is accepted there.
    expect((await send(server, '/SearchMemories', { headers: { ...JSON_TYPE, 'x-ots-apikey': token }, body: tsBody })).status).not.toBe(401);
  });

  it('TRACE and CONNECT, which fetch cannot hold, are 405 in each route’s own error shape after the guard', async () => {
    const server = await serve({ handlerOptions: { dialects: { breeth: { owner: { user_id: 'alice' } }, tablestore: {} } } });
    const connect = await rawRequest(server, `CONNECT /api/v1/memory/add HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\n\r\n`);
    expect(connect).toMatch(/^HTTP\/1\.1 405 /);
    expect(connect).toContain('"METHOD_NOT_ALLOWED"');
    for (const method of ['TRACE']) {
      const engram = await send(server, '/api/v1/memory/add', { method });
      expect(engram.status).toBe(405);
      expect(engram.body.code).toBe('METHOD_NOT_ALLOWED');
      const breeth = await send(server, '/v1/search', { method });
      expect(breeth.status).toBe(405);
      expect(breeth.body.error).toBe('method_not_allowed');
      const tablestore = await send(server, '/SearchMemories', { method });
      expect(tablestore.status).toBe(405);
      expect(tablestore.body.Code).toBe('METHOD_NOT_ALLOWED');
    }
    // The guard still judges first: a foreign Host is 421, not 405.
    expect((await send(server, '/api/v1/memory/add', { method: 'TRACE', headers: { host: 'evil.example' } })).status).toBe(421);
    expect(await records()).toBe(1);
  });

  it('refuses to start on a mistaken origin', async () => {
    await expect(startNodeServer({ port: 0, handler: createFetchHandler(memory), allowOrigins: ['localhost:3000/app'] })).rejects.toThrow(/allow-origin/);
  });
});

describe('the CLI startup check', () => {
  it('refuses a non-loopback address without a token unless told explicitly', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'memory.lan']) {
      expect(() => readServeSettings(['--host', host], {}), host).toThrow(/--token/);
      expect(exposureProblem({ host })).toMatch(/--insecure-no-token/);
      expect(readServeSettings(['--host', host, '--insecure-no-token'], {})).toMatchObject({ host, token: undefined });
      expect(readServeSettings(['--host', host, '--token', 'sixteen-chars-ok'], {})).toMatchObject({ host, token: 'sixteen-chars-ok' });
      expect(readServeSettings(['--host', host], { ENGRAM_TOKEN: 'from-the-environment' })).toMatchObject({ token: 'from-the-environment' });
    }
    for (const host of ['127.0.0.1', '127.0.0.53', 'localhost', '::1', '[::1]']) {
      expect(exposureProblem({ host }), host).toBeUndefined();
      expect(readServeSettings(['--host', host], {})).toMatchObject({ host });
    }
  });

  it('reads the flags and refuses bad values', () => {
    expect(readServeSettings(['--port', '0', '--data', '/tmp/x', '--allow-origin', 'http://localhost:3000', '--allow-origin', 'https://app.example/', '--allow-host', 'memory.lan'], {})).toEqual({
      port: 0,
      host: '127.0.0.1',
      data: '/tmp/x',
      tablestore: false,
      breethUser: undefined,
      reranker: 'teacher',
      token: undefined,
      allowOrigins: ['http://localhost:3000', 'https://app.example'],
      allowHosts: ['memory.lan'],
    });
    expect(readServeSettings(['--help'], {})).toBe('help');
    expect(() => readServeSettings(['--port', '70000'], {})).toThrow(/--port/);
    expect(() => readServeSettings(['--allow-origin', '*'], {})).toThrow(/allow-origin/);
    expect(() => readServeSettings(['--allow-origin', 'http://localhost:3000/app'], {})).toThrow(/allow-origin/);
    expect(() => readServeSettings(['--allow-host', 'a/b'], {})).toThrow(/allow-host/);
    expect(() => readServeSettings(['--token', 'short'], {})).toThrow(/token/);
  });
});

describe('the guard as a function', () => {
  it('parses Host headers, IPv6 included', () => {
    expect(parseHost('[::1]:8787')).toEqual({ name: '[::1]', port: 8787 });
    expect(parseHost('LocalHost')).toEqual({ name: 'localhost', port: undefined });
    for (const bad of ['', 'a b', 'x:99999', 'user@host', '::1', 'host:port']) expect(parseHost(bad), bad).toBeUndefined();
  });

  it('judges a Web-standard Request without sockets, answering for the bound name', async () => {
    const guard = createLocalGuard({ host: 'memory.local', port: 8787 });
    const at = (host: string) => guard(new Request('http://x/api/v1/memory/get', { method: 'POST', headers: { host, 'content-type': 'application/json' }, body: '{}' }));
    expect((await at('memory.local:8787')).error).toBeUndefined();
    expect((await at('memory.local:8788')).error?.code).toBe('MISDIRECTED_REQUEST');
    const wildcard = createLocalGuard({ host: '0.0.0.0', port: 8787 });
    expect((await wildcard(new Request('http://x/health', { headers: { host: '0.0.0.0:8787' } }))).error?.code).toBe('MISDIRECTED_REQUEST');
  });
});
