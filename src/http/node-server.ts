/**
 * The Node host: node:http in front of the fetch handler. It listens on 127.0.0.1 by default:
 * a memory server holds someone's private memory and is not exposed unless asked. Every request
 * passes the local guard first (./local-guard.ts: JSON bodies only, allowed origins and host names,
 * an optional token), and bodies reach the handler as a stream, so the handler's byte limit holds
 * memory to that limit whatever a client sends.
 */
import { createServer, type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { MemoryError } from '../errors.js';
import { errorResponse } from './handler.js';
import { createLocalGuard, type LocalGuardPolicy } from './local-guard.js';

export interface NodeServerOptions extends LocalGuardPolicy {
  port?: number;
  host?: string;
  handler: (request: Request) => Promise<Response>;
  /**
   * Renders a refusal of the guard (a 401, 403, 415 or 421) for the request's route; default the
   * EverOS shape. `createErrorRenderer(handlerOptions)` gives dialect routes their own shapes.
   */
  renderError?: (request: Request, error: unknown) => Response;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Bytes of a request body buffered ahead of the handler's reads. */
const BODY_HIGH_WATER_MARK = 64 * 1024;
/**
 * How long a connection whose body was not read to its end stays open after the answer, reading
 * and dropping what still arrives. Closing at once would reset the connection while the client is
 * still sending, and a reset can destroy the answer before the client reads it.
 */
const LINGER_MS = 500;

/** The request body as a pull stream: the socket is read only as fast as the handler reads. */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk: Buffer) => {
          if (!open) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once('end', () => {
          if (open) controller.close();
          open = false;
        });
        req.once('close', () => {
          // A client that goes away mid-body is an aborted request, not a server failure.
          if (open) controller.error(new MemoryError('ABORTED', { message: 'The client closed the connection before the body ended.' }));
          open = false;
        });
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        open = false;
        req.pause();
      },
    },
    { highWaterMark: BODY_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  );
}

/** Methods the fetch standard forbids in a Request (it throws a TypeError on them). */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

function toRequest(req: IncomingMessage, base: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.set(key, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  // The URL is built on the bound address, not the Host header: the guard judges the Host header,
  // and a hostile one must not be able to make URL parsing throw.
  const init: RequestInit & { duplex?: 'half' } = { method: req.method ?? 'GET', headers, signal, ...(hasBody ? { body: bodyStream(req), duplex: 'half' } : {}) };
  return new Request(new URL(req.url ?? '/', base), init);
}

async function send(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  response.headers.forEach((value, key) => res.setHeader(key, value));
  if (!req.complete) {
    // The body was refused or never needed: say the connection ends, drop what still arrives, and
    // close it shortly after the answer (see LINGER_MS) rather than read the rest of it.
    res.setHeader('connection', 'close');
    res.once('finish', () => linger(req));
  }
  res.end(body);
}

function linger(req: IncomingMessage): void {
  const socket = req.socket;
  // node:http half-closed the socket for `connection: close` and destroys it as soon as its FIN
  // is out; with the client's bytes still unread that destroy sends a reset. Wait instead.
  socket.removeListener('finish', socket.destroy);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  req.removeAllListeners('data');
  req.on('data', () => undefined);
  req.once('end', () => socket.destroy());
  req.resume();
}

const withHeaders = (response: Response, headers: Record<string, string>): Response => {
  if (Object.keys(headers).length === 0) return response;
  const merged = new Headers(response.headers);
  for (const [key, value] of Object.entries(headers)) if (!merged.has(key)) merged.set(key, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
};

/** Starts serving `handler` over HTTP behind the local guard. */
export async function startNodeServer(options: NodeServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const shown = host.includes(':') ? `[${host}]` : host;
  const renderError = options.renderError ?? ((_request: Request, error: unknown) => errorResponse(error));
  const policy: LocalGuardPolicy = {
    ...(options.allowOrigins ? { allowOrigins: options.allowOrigins } : {}),
    ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  };
  // Built once here so a mistaken origin or host name fails before the port is taken; rebuilt
  // with the port the system picked when asked for port 0.
  let guard = createLocalGuard({ ...policy, host, port: options.port ?? 8787 });
  let base = `http://${shown}`;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    let request: Request;
    // TRACE, CONNECT and TRACK are methods fetch's Request refuses to hold: they are judged by the
    // guard and answered 405 on a bodiless GET stand-in, so the route's error shape still applies.
    let refusedMethod = false;
    try {
      refusedMethod = FORBIDDEN_METHODS.has((req.method ?? '').toUpperCase());
      request = refusedMethod ? toRequest(Object.assign(Object.create(req) as IncomingMessage, { method: 'GET' }), base, controller.signal) : toRequest(req, base, controller.signal);
    } catch {
      // Only a request-target no URL can hold gets here (the guard has not seen it yet).
      void send(req, res, new Response(JSON.stringify({ detail: 'Bad Request' }), { status: 400, headers: { 'content-type': 'application/json' } }));
      return;
    }
    const answer = async (): Promise<Response> => {
      const verdict = await guard(request);
      if (verdict.error) return withHeaders(renderError(request, verdict.error), verdict.headers);
      if (verdict.response) return verdict.response;
      if (refusedMethod) return withHeaders(renderError(request, new MemoryError('METHOD_NOT_ALLOWED')), verdict.headers);
      return withHeaders(await options.handler(request), verdict.headers);
    };
    answer()
      .catch((error: unknown) => errorResponse(error))
      .then((response) => send(req, res, response))
      .catch(() => res.destroy());
  };
  const server = createServer(handle);
  // node:http hands CONNECT to a 'connect' listener with the bare socket (no listener: it is
  // dropped); it is answered like any other request, 405 after the guard, and the socket closed.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    res.shouldKeepAlive = false;
    res.once('finish', () => socket.end());
    handle(req, res);
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8787, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      base = `http://${shown}:${port}`;
      guard = createLocalGuard({ ...policy, host, port });
      resolve({
        url: base,
        port,
        server,
        close: () =>
          new Promise((done) => {
            server.closeIdleConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
