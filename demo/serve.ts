/**
 * Serves the built demo (dist/demo) over HTTP on 127.0.0.1: `npm start` builds it and runs this.
 * Service workers need a secure context, and http://127.0.0.1 is one, so this is all the PWA needs.
 *
 *   npx tsx demo/serve.ts [--port 5173] [--host 127.0.0.1] [--dir dist/demo]
 *
 * The EverOS routes (`/api/v1/memory/*`, `/health`) are answered by the app's service worker, in
 * the browser; this server only answers them, with a 503, before the app was ever opened.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build:demo` writes the app. */
export const DEFAULT_DIR = resolve(import.meta.dirname, '..', 'dist', 'demo');
/** The port `npm start` serves on. */
export const DEFAULT_PORT = 5173;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
};

/** Options of `serveDemo`. */
export interface ServeDemoOptions {
  /** The built demo. Default dist/demo. */
  dir?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 5173; 0 picks a free port. */
  port?: number;
  /** Called with the path of every request that reaches the server (tests use it to prove a page ran from its cache). */
  onRequest?: (path: string) => void;
}

/** A running demo server. */
export interface DemoServer {
  /** e.g. `http://127.0.0.1:5173/` */
  url: string;
  close(): Promise<void>;
}

/** Serves the built demo; rejects when the port is taken or the build is missing. */
export async function serveDemo(options: ServeDemoOptions = {}): Promise<DemoServer> {
  const root = resolve(options.dir ?? DEFAULT_DIR);
  if (!existsSync(resolve(root, 'index.html'))) throw new Error(`No built demo in ${root}: run \`npm run build:demo\` first.`);
  const host = options.host ?? '127.0.0.1';

  const server = createServer((request, response) => {
    const path = decodedPath(request.url ?? '/');
    if (path === undefined) {
      json(response, 400, { detail: 'Bad Request: the path is not a valid percent-encoded URL path.' });
      return;
    }
    options.onRequest?.(path);
    if (path === '/health' || path.startsWith('/api/')) {
      json(response, 503, { detail: 'The Engram API is answered by the demo\'s service worker, in the browser: open the app once, then call it from that origin.' });
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    void sendFile(root, path, request.method === 'HEAD', response);
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The decoded path of a request target, or undefined when it cannot be one (bad percent-encoding, say). */
export function decodedPath(target: string): string | undefined {
  try {
    return decodeURIComponent(new URL(target, 'http://localhost').pathname);
  } catch {
    // URIError or TypeError from what a client sent: answered 400 rather than ending the server.
    return undefined;
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

async function sendFile(root: string, path: string, headOnly: boolean, response: ServerResponse): Promise<void> {
  let file = resolve(root, `.${path.endsWith('/') ? `${path}index.html` : path}`);
  // resolve() has already collapsed `..`: anything outside the root is refused.
  if (file !== root && !file.startsWith(root + sep)) {
    response.writeHead(403).end();
    return;
  }
  // A path without an extension is a page of the app: the one page there is.
  if (!extname(file) && !existsSync(file)) file = resolve(root, 'index.html');
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a file');
    const hashed = path.startsWith('/assets/');
    response.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': info.size,
      // Hashed names never change content; everything else (sw.js above all) is revalidated.
      'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    response.end(headOnly ? undefined : await readFile(file));
  } catch {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
  }
}

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = argument('dir');
  const port = argument('port');
  serveDemo({ ...(dir ? { dir } : {}), ...(port ? { port: Number(port) } : {}), host: argument('host') ?? '127.0.0.1' }).then(
    (served) => console.log(`Engram demo: ${served.url}  (Ctrl+C stops it)`),
    (error: unknown) => {
      const code = (error as { code?: unknown }).code;
      console.error(code === 'EADDRINUSE' ? `Port ${port ?? DEFAULT_PORT} is in use: stop what runs there or pass --port.` : String((error as Error).message ?? error));
      process.exit(1);
    },
  );
}
