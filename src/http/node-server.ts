/**
 * The Node host: node:http in front of the fetch handler. It listens on 127.0.0.1 by default:
 * a memory server holds someone's private memory and is not exposed unless asked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NodeServerOptions {
  port?: number;
  host?: string;
  handler: (request: Request) => Promise<Response>;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.set(key, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), { method: req.method ?? 'GET', headers, signal, ...(hasBody ? { body: Buffer.concat(chunks) } : {}) });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, key) => res.setHeader(key, value));
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** Starts serving `handler` over HTTP. */
export function startNodeServer(options: NodeServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const origin = `http://${req.headers.host ?? host}`;
    toRequest(req, origin, controller.signal)
      .then(options.handler)
      .then((response) => send(res, response))
      .catch(() => {
        if (!res.headersSent) {
          res.statusCode = 400;
          res.setHeader('content-type', 'application/json');
        }
        res.end(JSON.stringify({ detail: 'Bad Request' }));
      });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8787, host, () => {
      const { port } = server.address() as AddressInfo;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${port}`,
        port,
        server,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
