/**
 * Sends one fuzzed case over a real socket with node:http, so lies a `fetch` would not tell
 * (a content-length far beyond the body, a chunked body that never ends on its own, a forged
 * Host) reach the server as a hostile client would send them. Answers are read up to a cap:
 * an amplified error body is itself a finding.
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import type { HttpCase } from './cases.js';

/** What came back for one case. */
export interface HttpAnswer {
  status: number | null;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Why no (complete) answer came: the timeout, a reset, an answer over the cap. */
  failure: 'timeout' | 'reset' | 'too-large' | 'client' | null;
  detail?: string;
  ms: number;
  /** Body bytes sent before the answer (oversized cases). */
  sentBytes: number;
}

export interface SendOptions {
  port: number;
  timeoutMs: number;
  maxResponseBytes: number;
  agent?: Agent | undefined;
  /** Extra headers on every request (a bearer token). */
  extraHeaders?: Record<string, string>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/**
 * Sends `c` and resolves with its answer; never rejects. A reset on a kept-alive socket the
 * server had just closed as idle (a race of every keep-alive client, not the server's fault) is
 * retried once on a fresh connection, as Node's documentation advises.
 */
export async function send(c: HttpCase, options: SendOptions): Promise<HttpAnswer> {
  const first = await sendOnce(c, options);
  if (first.failure !== 'reset' || !first.reusedSocket || first.status !== null) return first;
  return sendOnce(c, { ...options, agent: undefined });
}

function sendOnce(c: HttpCase, options: SendOptions): Promise<HttpAnswer & { reusedSocket?: boolean }> {
  const started = performance.now();
  return new Promise<HttpAnswer & { reusedSocket?: boolean }>((resolve) => {
    let settled = false;
    let sentBytes = 0;
    let status: number | null = null;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (failure: HttpAnswer['failure'], detail?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, headers, body: Buffer.concat(chunks), failure, ...(detail ? { detail } : {}), ms: performance.now() - started, sentBytes, reusedSocket: req.reusedSocket });
      req.destroy();
    };
    const body = c.body === null ? null : typeof c.body === 'string' ? Buffer.from(c.body, 'utf8') : c.body;
    const headersOut: Record<string, string | number> = { ...options.extraHeaders, ...c.headers };
    if (c.oversize?.mode === 'declared') headersOut['content-length'] = c.oversize.declared;
    else if (c.oversize?.mode === 'exact') headersOut['content-length'] = c.oversize.bytes;
    else if (c.oversize?.mode === 'chunked') headersOut['transfer-encoding'] = 'chunked';
    else if (body) headersOut['content-length'] = body.length;
    let req: ReturnType<typeof request>;
    try {
      req = request({ host: '127.0.0.1', port: options.port, method: c.method, path: c.path, headers: headersOut, agent: c.oversize ? false : options.agent ?? false });
    } catch (error) {
      // The client library refused the request itself (a path it will not send): not the server's doing.
      resolve({ status: null, headers: {}, body: Buffer.alloc(0), failure: 'client', detail: String(error), ms: 0, sentBytes: 0 });
      return;
    }
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs);
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      headers = res.headers;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxResponseBytes) return finish('too-large', `more than ${options.maxResponseBytes} bytes`);
        chunks.push(chunk);
      });
      res.on('end', () => finish(null));
      res.on('error', (e) => finish('reset', e.message));
    });
    req.on('error', (e) => finish('reset', e.message));

    if (!c.oversize) {
      req.end(body ?? undefined);
      return;
    }
    // Oversized: write until the server answers, the cap is reached, or the socket breaks.
    const total = c.oversize.mode === 'exact' ? c.oversize.bytes : c.oversize.cap;
    const prefix = Buffer.from('{"user_id":"chaos-u0","query":"');
    const pump = () => {
      while (!settled && status === null && sentBytes < total) {
        const piece = sentBytes === 0 ? prefix : CHUNK.subarray(0, Math.min(CHUNK.length, total - sentBytes));
        sentBytes += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (settled || status !== null) return;
      // A chunked or exact body ends here; a declared one stays open: the server must not wait for it.
      if (c.oversize!.mode !== 'declared') req.end();
    };
    pump();
  });
}
