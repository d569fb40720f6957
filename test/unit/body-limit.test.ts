/**
 * Bodies are limited in bytes while they stream: the reader stops at the limit (chunked or not),
 * a declared content-length over it is refused before reading, and over a real socket the Node
 * server answers 413, keeps serving, and writes nothing of the refused request.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError } from '../../src/errors.js';
import { createFetchHandler, MAX_BODY_BYTES, readBodyBytes, readJson } from '../../src/http/handler.js';
import { startNodeServer, type RunningServer } from '../../src/http/node-server.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const MiB = 1024 * 1024;

/** A body of `total` bytes made lazily in 1 MiB chunks, counting what was pulled from it. */
function countedBody(total: number, prefix = ''): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const head = new TextEncoder().encode(prefix);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      const chunk = pulled === 0 ? new Uint8Array(Math.min(MiB, total)).fill(0x61).map((b, i) => head[i] ?? b) : new Uint8Array(Math.min(MiB, total - pulled)).fill(0x61);
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

const streamed = (stream: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  new Request('http://engram.test/api/v1/memory/add', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: stream, duplex: 'half' } as RequestInit);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'none';
  } catch (error) {
    return isMemoryError(error) ? error.code : String(error);
  }
}

describe('the body reader', () => {
  it('stops reading a chunked body once it passes the limit', async () => {
    const body = countedBody(1024 * MiB, '{"session_id":"s","messages":"');
    expect(await codeOf(readJson(streamed(body.stream)))).toBe('PAYLOAD_TOO_LARGE');
    expect(body.pulled()).toBeGreaterThan(MAX_BODY_BYTES);
    expect(body.pulled()).toBeLessThanOrEqual(MAX_BODY_BYTES + 2 * MiB);
  });

  it('refuses a declared content-length over the limit before reading', async () => {
    const body = countedBody(1024 * MiB);
    expect(await codeOf(readJson(streamed(body.stream, { 'content-length': String(1024 * MiB) })))).toBe('PAYLOAD_TOO_LARGE');
    // A stream may be asked for its first chunk when it is made; nothing past that is read.
    expect(body.pulled()).toBeLessThanOrEqual(MiB);
  });

  it('takes a body of exactly the limit, and counts bytes, not characters', async () => {
    expect(await readBodyBytes(streamed(countedBody(MAX_BODY_BYTES).stream))).toHaveLength(MAX_BODY_BYTES);
    expect(await codeOf(readBodyBytes(streamed(countedBody(MAX_BODY_BYTES + 1).stream)))).toBe('PAYLOAD_TOO_LARGE');
    // 4 bytes a character: a string within the limit in characters is over it in bytes.
    const emoji = JSON.stringify({ user_id: 'u', query: '😀'.repeat(MAX_BODY_BYTES / 4) });
    expect(emoji.length).toBeLessThan(MAX_BODY_BYTES * 0.6);
    expect(await codeOf(readJson(new Request('http://engram.test/', { method: 'POST', body: emoji })))).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses bytes that are not UTF-8 rather than replacing them', async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]); // {"a":"\xff"}
    const error = await readJson(new Request('http://engram.test/', { method: 'POST', body: bytes })).catch((e: unknown) => e);
    expect(isMemoryError(error) && error.code).toBe('VALIDATION_FAILED');
    expect(isMemoryError(error) && Array.isArray(error.details) && error.details[0]?.type).toBe('json_invalid');
  });
});

interface Answer {
  status: number;
  body: any;
  /** Bytes the client had written when the answer came. */
  sent: number;
}

/** POSTs `total` bytes of a JSON-looking body in 1 MiB writes, chunked or with a content-length. */
function upload(server: RunningServer, total: number, mode: 'chunked' | 'length'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(mode === 'length' ? { 'content-length': String(total) } : {}) };
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path: '/api/v1/memory/add', method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        answered = true;
        resolve({ status: res.statusCode!, body: JSON.parse(text), sent });
      });
    });
    // Once the server has answered and closed, the rest of the upload fails to write: expected.
    req.on('error', (error) => {
      if (!answered) setTimeout(() => !answered && reject(error), 1000);
    });
    const prefix = Buffer.from(`{"session_id":"big","messages":[{"sender_id":"u","role":"user","timestamp":1,"content":"`);
    const pump = () => {
      while (sent < total && !req.destroyed) {
        const chunk = sent === 0 ? Buffer.concat([prefix, Buffer.alloc(MiB - prefix.length, 0x61)]) : Buffer.alloc(Math.min(MiB, total - sent), 0x61);
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('the Node server under oversized bodies', () => {
  let memory: Memory;
  let server: RunningServer;

  beforeEach(async () => {
    memory = await createMemory({ embedder: hashEmbedderDouble() });
    server = await startNodeServer({ port: 0, handler: createFetchHandler(memory) });
  });
  afterEach(async () => {
    await server.close();
    await memory.close();
  });

  async function stillServes(): Promise<void> {
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    const added = await fetch(`${server.url}/api/v1/memory/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'small', messages: [{ sender_id: 'u', role: 'user', timestamp: 1, content: 'A small message after the big one.' }] }),
    });
    expect(added.status).toBe(200);
  }

  it.each(['length', 'chunked'] as const)('a body over the limit (%s) is 413, writes nothing, and the server keeps answering', async (mode) => {
    const answer = await upload(server, 64 * MiB, mode);
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit_bytes: MAX_BODY_BYTES } });
    expect(memory.stats().records).toBe(0);
    expect((await memory.search({ user_id: 'u', query: 'aaaa', method: 'keyword' })).data.unprocessed_messages).toEqual([]);
    await stillServes();
  });

  it('a content-length over the limit is answered before the body is sent', async () => {
    const answer = await upload(server, 1024 * MiB, 'length');
    expect(answer.status).toBe(413);
    // The answer came while the client was still writing its first megabytes of the gigabyte.
    expect(answer.sent).toBeLessThan(256 * MiB);
    await stillServes();
  });
});
