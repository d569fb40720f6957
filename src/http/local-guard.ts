/**
 * What a memory server on the user's own machine refuses before any route runs. A server on
 * 127.0.0.1 is reachable from every web page the user opens: a page can send "simple" cross-site
 * POSTs (text/plain bodies need no CORS preflight) and, through DNS rebinding, read answers under
 * its own host name. So: bodies must be JSON (a page can then only send them after a preflight), a
 * request carrying an `Origin` must come from an allowed origin, the `Host` must be a name this
 * server answers for, and an optional bearer token closes the rest. The policy is a function over
 * a Web-standard Request, so any host can apply it and tests need no sockets.
 */
import { MemoryError } from '../errors.js';

/** What a guard allows beyond the defaults (loopback names, no origins, no token). */
export interface LocalGuardPolicy {
  /** Origins (`scheme://host[:port]`) whose pages may call the API; they get CORS headers. None by default. */
  allowOrigins?: readonly string[];
  /** Extra `Host` names to answer for (`name` on any port, or `name:port`), e.g. a LAN address or a proxy's name. */
  allowHosts?: readonly string[];
  /** When set, every request needs `Authorization: Bearer <token>` (or `x-ots-apikey: <token>`, for Tablestore clients). */
  token?: string;
}

/** Where the server listens: `Host` headers must name it (or a loopback name) with this port. */
export interface LocalGuardOptions extends LocalGuardPolicy {
  host: string;
  port: number;
}

/** A guard's decision about one request. */
export interface GuardVerdict {
  /** Headers every response to this request carries (CORS for an allowed origin). */
  headers: Record<string, string>;
  /** Why the request is refused; absent when it may go on. */
  error?: MemoryError;
  /** The complete answer (a CORS preflight); the routes are not asked. */
  response?: Response;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '[::]', '']);
const ALLOWED_METHODS = 'GET, HEAD, POST';
const ALLOWED_HEADERS = 'authorization, content-type, x-ots-apikey, x-ots-instancename';
const EXPOSED_HEADERS = 'x-engram-rounds, x-engram-took-ms, x-engram-notices, www-authenticate';
const PREFLIGHT_MAX_AGE_S = '600';
/** `application/json`, optionally with `charset=utf-8`: what every JSON client sends and no HTML form can. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** True when an address only this machine can reach is bound (a name that resolves there included). */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** The normalised origin of an `--allow-origin` value; throws a plain Error naming the mistake. */
export function normaliseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--allow-origin ${value} is not a URL; give scheme://host[:port], e.g. http://localhost:3000`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new Error(`--allow-origin ${value} must be an origin: scheme://host[:port] with no path`);
  }
  return url.origin;
}

/** Splits a Host header (or an `--allow-host` value) into a lower-case name and its port, if any. */
export function parseHost(value: string): { name: string; port: number | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65535) return undefined;
  return { name: match[1]!.toLowerCase(), port };
}

/** Compares two secrets in time independent of where they differ (and of their lengths). */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([given, expected].map((s) => crypto.subtle.digest('SHA-256', encoder.encode(s))));
  const x = new Uint8Array(a!);
  const y = new Uint8Array(b!);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}

function presentedToken(request: Request): string | undefined {
  const authorization = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
  return authorization?.[1] ?? request.headers.get('x-ots-apikey') ?? undefined;
}

/**
 * Builds the guard of a server listening at `host:port`.
 *
 * @example
 * const guard = createLocalGuard({ host: '127.0.0.1', port: 8787, token: process.env.ENGRAM_TOKEN });
 * const verdict = await guard(request); // verdict.error → answer it; verdict.response → send it
 */
export function createLocalGuard(options: LocalGuardOptions): (request: Request) => Promise<GuardVerdict> {
  const origins = new Set((options.allowOrigins ?? []).map(normaliseOrigin));
  const bound = parseHost(options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host);
  const names = new Set(LOOPBACK_NAMES);
  if (bound && !WILDCARD_ADDRESSES.has(bound.name)) names.add(bound.name);
  const extra = (options.allowHosts ?? []).map((value) => {
    const parsed = parseHost(value);
    if (!parsed) throw new Error(`--allow-host ${value} is not a host name (name or name:port)`);
    return parsed;
  });
  const token = options.token === '' ? undefined : options.token;

  const hostAllowed = (value: string | null): boolean => {
    const host = value === null ? undefined : parseHost(value);
    if (!host) return false;
    const port = host.port ?? 80;
    if (names.has(host.name) && port === options.port) return true;
    return extra.some((e) => e.name === host.name && (e.port === undefined || e.port === port));
  };

  return async (request) => {
    if (!hostAllowed(request.headers.get('host'))) return { headers: {}, error: new MemoryError('MISDIRECTED_REQUEST') };
    const origin = request.headers.get('origin');
    const headers: Record<string, string> = {};
    if (origin !== null) {
      // A page's origin is all a browser vouches for; anything not listed (`null` included) is refused.
      if (!origins.has(origin)) return { headers: { vary: 'Origin' }, error: new MemoryError('ORIGIN_FORBIDDEN') };
      Object.assign(headers, { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' });
    }
    if (request.method === 'OPTIONS') {
      // Preflights carry no credentials by design: they are answered before the token check.
      const preflight: Record<string, string> = { ...headers, allow: `${ALLOWED_METHODS}, OPTIONS` };
      if (origin !== null) {
        Object.assign(preflight, {
          'access-control-allow-methods': ALLOWED_METHODS,
          'access-control-allow-headers': ALLOWED_HEADERS,
          'access-control-max-age': PREFLIGHT_MAX_AGE_S,
          vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
        });
        // Chrome asks before a public page may reach a private address; an allowed origin may.
        if (request.headers.get('access-control-request-private-network') === 'true') preflight['access-control-allow-private-network'] = 'true';
      }
      return { headers, response: new Response(null, { status: 204, headers: preflight }) };
    }
    if (token !== undefined) {
      const given = presentedToken(request);
      if (given === undefined || !(await sameSecret(given, token))) return { headers, error: new MemoryError('UNAUTHENTICATED') };
    }
    if (request.method === 'POST' && !JSON_MEDIA_TYPE.test(request.headers.get('content-type') ?? '')) {
      return { headers, error: new MemoryError('UNSUPPORTED_MEDIA_TYPE') };
    }
    return { headers };
  };
}

/**
 * Why a server may not start: a non-loopback address without a token serves the memory to the
 * whole network. Returns the message to print, or undefined when starting is fine.
 */
export function exposureProblem(options: { host: string; token?: string | undefined; insecureNoToken?: boolean }): string | undefined {
  if (isLoopbackAddress(options.host) || options.token || options.insecureNoToken) return undefined;
  return (
    `Refusing to listen on ${options.host} without a token: anyone who can reach this address could read and erase the memory. ` +
    'Pass --token <secret> (or set ENGRAM_TOKEN), or --insecure-no-token if the network itself is trusted.'
  );
}
