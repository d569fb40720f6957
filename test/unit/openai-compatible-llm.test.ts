import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isMemoryError } from '../../src/errors.js';
import type { MemoryError } from '../../src/errors.js';
import { createOpenAiCompatibleLlm } from '../../src/models/openai-compatible-llm.js';

/** What the scripted server saw of one request. */
interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Reply = { status: number; body: string; headers?: Record<string, string> } | 'hang' | 'headers-then-hang';
type Behaviour = (attempt: number, request: SeenRequest) => Reply;

/** A real HTTP server speaking /v1/chat/completions whose answers the test scripts. */
interface ChatServer {
  baseUrl: string;
  seen: SeenRequest[];
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

function completion(content: string): Reply {
  return { status: 200, body: JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }) };
}

async function startChatServer(): Promise<ChatServer> {
  const seen: SeenRequest[] = [];
  let behaviour: Behaviour = () => completion('hello');
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      seen.push(request);
      const reply = behaviour(seen.length, request);
      if (reply === 'hang') return;
      if (reply === 'headers-then-hang') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices": [');
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    behave: (next) => {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging requests keep their sockets open; drop them so close() returns.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function caught(promise: Promise<unknown>): Promise<MemoryError> {
  try {
    await promise;
  } catch (error) {
    if (isMemoryError(error)) return error;
    throw new Error(`expected a MemoryError, got ${String(error)}`);
  }
  throw new Error('expected the promise to reject');
}

const messages = [{ role: 'user' as const, content: 'Say hello.' }];

describe('createOpenAiCompatibleLlm against a local chat-completions server', () => {
  let server: ChatServer;

  beforeEach(async () => {
    server = await startChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('posts to /chat/completions and returns choices[0].message.content', async () => {
    const llm = createOpenAiCompatibleLlm({ baseUrl: `${server.baseUrl}/`, model: 'tiny-model' });
    const text = await llm.complete({ messages, temperature: 0.2, maxTokens: 64 });

    expect(text).toBe('hello');
    expect(server.seen).toHaveLength(1);
    const [request] = server.seen;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({ model: 'tiny-model', messages, stream: false, temperature: 0.2, max_tokens: 64 });
    expect(llm.id).toBe('openai-compatible:tiny-model');
  });

  it('sends the API key as a bearer token, plus extra headers', async () => {
    server.behave((_, request) =>
      request.headers.authorization === 'Bearer sk-test' ? completion('authorised') : { status: 401, body: JSON.stringify({ error: { message: 'bad key' } }) },
    );
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', apiKey: 'sk-test', headers: { 'x-title': 'engram' } });

    expect(await llm.complete({ messages })).toBe('authorised');
    expect(server.seen[0]?.headers['x-title']).toBe('engram');
  });

  it('forwards a JSON schema as a strict json_schema response_format', async () => {
    const schema = { title: 'sufficiency check', type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm' });
    await llm.complete({ messages, jsonSchema: schema });

    expect(server.seen[0]?.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'sufficiency_check', schema, strict: true } });
  });

  it('retries a 429 and honours Retry-After: 0 instead of its own backoff', async () => {
    server.behave((attempt) => (attempt === 1 ? { status: 429, body: '{"error":"slow down"}', headers: { 'retry-after': '0' } } : completion('after 429')));
    // A 5 s base backoff would blow the time limit below if Retry-After were ignored.
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', retryBaseDelayMs: 5_000 });
    const started = Date.now();

    expect(await llm.complete({ messages })).toBe('after 429');
    expect(server.seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('caps a long Retry-After at retryMaxDelayMs', async () => {
    server.behave((attempt) => (attempt === 1 ? { status: 503, body: '', headers: { 'retry-after': '3600' } } : completion('capped')));
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', retryMaxDelayMs: 50 });

    expect(await llm.complete({ messages })).toBe('capped');
    expect(server.seen).toHaveLength(2);
  });

  it('retries a 500 twice and then succeeds', async () => {
    server.behave((attempt) => (attempt <= 2 ? { status: 500, body: '{"error":{"message":"boom"}}' } : completion('third time')));
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', retryBaseDelayMs: 10 });

    expect(await llm.complete({ messages })).toBe('third time');
    expect(server.seen).toHaveLength(3);
  });

  it('gives up with MODEL_FAILED after maxRetries when the server keeps failing', async () => {
    server.behave(() => ({ status: 500, body: '{"error":{"message":"still broken"}}' }));
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', maxRetries: 2, retryBaseDelayMs: 10 });
    const error = await caught(llm.complete({ messages }));

    expect(error.code).toBe('MODEL_FAILED');
    expect(error.details).toMatchObject({ status: 500, attempts: 3, providerMessage: 'still broken' });
    expect(server.seen).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    server.behave(() => ({ status: 400, body: '{"error":{"message":"unknown model"}}' }));
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', retryBaseDelayMs: 10 });
    const error = await caught(llm.complete({ messages }));

    expect(error.code).toBe('MODEL_FAILED');
    expect(error.details).toMatchObject({ status: 400, attempts: 1 });
    expect(server.seen).toHaveLength(1);
  });

  it('answers LLM_BAD_OUTPUT to a body that is not JSON, without retrying', async () => {
    server.behave(() => ({ status: 200, body: '{"choices": [ this is not json' }));
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', retryBaseDelayMs: 10 });

    expect((await caught(llm.complete({ messages }))).code).toBe('LLM_BAD_OUTPUT');
    expect(server.seen).toHaveLength(1);
  });

  it('answers LLM_BAD_OUTPUT when choices[0].message.content is missing', async () => {
    server.behave(() => ({ status: 200, body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: null }, finish_reason: 'length' }] }) }));
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm' });
    const error = await caught(llm.complete({ messages }));

    expect(error.code).toBe('LLM_BAD_OUTPUT');
    expect(error.details).toMatchObject({ finishReason: 'length' });
  });

  it('ends with LLM_TIMEOUT when the server never answers', async () => {
    server.behave(() => 'hang');
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', timeoutMs: 200, retryBaseDelayMs: 10 });
    const started = Date.now();
    const error = await caught(llm.complete({ messages }));

    expect(error.code).toBe('LLM_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(server.seen).toHaveLength(1);
  });

  it('ends with LLM_TIMEOUT when the server sends headers and then stalls', async () => {
    server.behave(() => 'headers-then-hang');
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', timeoutMs: 200 });

    expect((await caught(llm.complete({ messages }))).code).toBe('LLM_TIMEOUT');
  });

  it('ends with ABORTED when the caller aborts a pending request', async () => {
    server.behave(() => 'hang');
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', timeoutMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await caught(llm.complete({ messages, signal: controller.signal }));

    expect(error.code).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('ends with ABORTED when the caller aborts during a retry wait', async () => {
    server.behave(() => ({ status: 503, body: '', headers: { 'retry-after': '10' } }));
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm', retryMaxDelayMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();

    expect((await caught(llm.complete({ messages, signal: controller.signal }))).code).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.seen).toHaveLength(1);
  });

  it('does not send anything when the signal is already aborted', async () => {
    const llm = createOpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'm' });

    expect((await caught(llm.complete({ messages, signal: AbortSignal.abort() }))).code).toBe('ABORTED');
    expect(server.seen).toHaveLength(0);
  });
});

describe('createOpenAiCompatibleLlm without a server', () => {
  it('retries a refused connection and then answers MODEL_UNAVAILABLE', async () => {
    const closed = await startChatServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const llm = createOpenAiCompatibleLlm({ baseUrl, model: 'm', maxRetries: 2, retryBaseDelayMs: 10 });
    const error = await caught(llm.complete({ messages }));

    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.details).toMatchObject({ attempts: 3 });
  });
});
