/**
 * The fuzzer's requests: start from a valid body for the route, then mutate it (types, deletions,
 * duplicated keys), nest thousands deep in a free-form field, blow up strings and lists, add
 * `__proto__` / `constructor` keys and odd unicode, break the JSON, send the wrong content type,
 * a foreign Origin or Host, a bad method or URL, or an oversized body. Every case says what it
 * is, so a failure names its cause, and whether a browser page could forge it (`forgeable`):
 * those must never be accepted.
 */
import { DupObject, Raw, deep, deleteAt, emit, getAt, longList, pathsOf, setAt } from './json-text.js';
import { FREE_FORM, ROUTES, validBody, type Family, type RouteName } from './requests.js';
import type { Rng } from './rng.js';

/** How an oversized body is sent. */
export type Oversize =
  /** Declares a content-length far beyond the limit, then streams up to the cap. */
  | { mode: 'declared'; declared: number; cap: number }
  /** Streams chunks (no content-length) up to the cap, then ends the body. */
  | { mode: 'chunked'; cap: number }
  /** A real body just over the limit, with a true content-length. */
  | { mode: 'exact'; bytes: number };

/** One fuzzed HTTP request. */
export interface HttpCase {
  route: RouteName;
  /** The error shape the answer must have. */
  family: Family;
  /** Also accept the not-found shape (a bad URL may leave the route). */
  mayLeaveRoute: boolean;
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | null;
  oversize: Oversize | null;
  /** A browser page could send this (wrong content type, foreign Origin or Host): it must not get a 2xx. */
  forgeable: string | null;
  /** The parsed body when it is JSON (the comlink fuzz sends the same values). */
  value?: unknown;
}

const UNICODE = [
  '\ud800', '\udfff', 'a\udc00b', '\ud83d', '\u202eevil\u202c', '\u0000', 'nul\u0000inside', '\ufeffbom', '\uffff\ufffe',
  'e\u0301\u0301\u0301', '🧠💾🔥', 'שלום עולם', 'مرحبا', '日本語のテキスト', '\u200b\u200d\u2060', 'Z̸̡̢͓̈́a̷̛̳̝l̶̼̊g̵̖̈o̸͔̊', '\r\n\t\b\f', '\\"\'`${x}', '<script>alert(1)</script>', "'; DROP TABLE records; --",
];

/** Limits of one generated case, so a run stays within a box's memory. */
export interface CaseLimits {
  /** Largest huge string (bytes). */
  hugeBytes: number;
  /** Deepest nesting. */
  maxDepth: number;
  /** Longest generated list. */
  maxList: number;
}

function weirdScalar(rng: Rng, limits: CaseLimits): unknown {
  return rng.pick<() => unknown>([
    () => null, () => true, () => false, () => 0, () => -1, () => 1.5, () => 1e21, () => -0.0000001,
    () => new Raw('1e400'), () => new Raw('-1e400'), () => new Raw('9007199254740993'), () => new Raw('-0'), () => new Raw('1E-400'),
    () => '', () => ' ', () => rng.pick(UNICODE), () => 'x'.repeat(rng.int(257, 5000)),
    () => [], () => {}, () => [null], () => ({ '': '' }), () => [[1, 'a'], { b: null }],
    () => huge(rng, limits), () => String(rng.int(-1e9, 1e9)),
    // An object's own property names as values (an id, a filter operator, a file name): a lookup by them must find nothing.
    () => rng.pick(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'notes.constructor', '&constructor;']),
  ])();
}

function huge(rng: Rng, limits: CaseLimits): string {
  const size = rng.pick([10_001, 16_001, 100_001, 1_000_000, limits.hugeBytes]);
  return rng.pick(['a', 'é', '日', '🧠', 'word ']).repeat(Math.max(1, Math.floor(Math.min(size, limits.hugeBytes) / 5)));
}

function deepValue(rng: Rng, limits: CaseLimits): Raw {
  const depth = Math.min(limits.maxDepth, rng.pick([33, 64, 200, 1000, 2500, 3000, 5000, 10_000]));
  return deep(depth, rng.pick(['object', 'array', 'mixed'] as const));
}

function protoValue(rng: Rng): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const key = rng.pick(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']);
  const value = rng.pick<unknown>([{ polluted: true }, { prototype: { polluted: true } }, 'x', 1, null, [1]]);
  Object.defineProperty(o, key, { value, enumerable: true, configurable: true, writable: true });
  return o;
}

/** Adds a key to a (parsed-clone) object as an own property, `__proto__` included. */
function addOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

/** Where the free-form path of `route` makes sense for this body (add: content items as a list). */
function prepare(route: RouteName, body: Record<string, unknown>, path: readonly (string | number)[], rng: Rng): void {
  if (route === 'add' && path[2] === 'content' && path.length > 3) {
    setAt(body, ['messages', 0, 'content'], [{ type: 'text', text: `nested payload ${rng.int(0, 1e6)}` }]);
  }
  if (route === 'add' && path[2] === 'tool_calls') setAt(body, ['messages', 0, 'role'], 'assistant');
}

function mutate(route: RouteName, body: Record<string, unknown>, rng: Rng, limits: CaseLimits): string {
  const paths = pathsOf(body);
  const which = rng.pick(['type', 'type', 'delete', 'dup', 'add-key', 'unicode', 'number']);
  const path = paths.length ? rng.pick(paths) : ['x'];
  switch (which) {
    case 'type':
      setAt(body, path, weirdScalar(rng, limits));
      return `type@${path.join('.')}`;
    case 'delete':
      deleteAt(body, path);
      return `delete@${path.join('.')}`;
    case 'dup': {
      const parentPath = path.slice(0, -1);
      const parent = parentPath.length ? getAt(body, parentPath) : body;
      if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) return 'dup-skip';
      const entries = Object.entries(parent as Record<string, unknown>);
      const key = String(path[path.length - 1]);
      const dup = new DupObject([...entries, [key, weirdScalar(rng, limits)], ...(rng.chance(0.5) ? entries : [])]);
      if (parentPath.length) setAt(body, parentPath, dup);
      else return `dup-root@${key}:${emit(dup).length}`;
      return `dup@${path.join('.')}`;
    }
    case 'add-key':
      addOwn(body, rng.pick(['extra', 'USER_ID', 'user_id ', 'owner_id', 'owner_type', '', '\u0000']), weirdScalar(rng, limits));
      return 'add-key';
    case 'unicode':
      setAt(body, path, rng.pick(UNICODE) + (typeof getAt(body, path) === 'string' ? String(getAt(body, path)) : ''));
      return `unicode@${path.join('.')}`;
    default:
      setAt(body, path, rng.pick([new Raw('1e400'), new Raw('-1e400'), new Raw('123456789012345678901234567890'), -1, 0, 2 ** 31, 2 ** 53, -(2 ** 53), 0.5]));
      return `number@${path.join('.')}`;
  }
}

function freeFormPath(route: RouteName, rng: Rng): (string | number)[] {
  const paths = FREE_FORM[route];
  return paths.length ? [...rng.pick(paths)] : ['x'];
}

const FORGED_TYPES = ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz', ''];
const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'Application/JSON'];
const ORIGINS = ['http://evil.example', 'null', 'https://attacker.test:8443', 'http://127.0.0.1.evil.example'];
const HOSTS = ['evil.example', 'evil.example:80', 'attacker.127.0.0.1.nip.io', '192.168.1.66:8787'];
const MALFORMED = ['{', '{"a":', '{"a":1,}', "{'a':1}", '{"a":1}}', '[1,2', 'nul', 'tru', '{"a":"\\x"}', '{"a":"\\ud800"', '\u0000', '{"a":NaN}', '{"a":Infinity}', '{"a":undefined}', '{"a":01}', '{"a":.5}', '//c\n{}', '{"a" 1}'];

/** One case for `route`. `n` is its index in the run (mixed into ids so reruns differ per index only). */
export function generateCase(route: RouteName, rng: Rng, limits: CaseLimits): HttpCase {
  const spec = ROUTES.find((r) => r.name === route)!;
  const base: HttpCase = {
    route, family: spec.family, mayLeaveRoute: false, kind: 'valid',
    method: route === 'health' ? 'GET' : 'POST', path: spec.path,
    headers: route === 'health' ? {} : { 'content-type': rng.pick(JSON_TYPES) },
    body: null, oversize: null, forgeable: null,
  };
  let body: Record<string, unknown> = validBody(route, rng);
  const r = rng.next();
  let raw: string | null = null;
  const setBody = (value: unknown) => {
    raw = emit(value);
  };

  if (route === 'health') {
    if (r < 0.7) return base;
    if (r < 0.8) return { ...base, kind: 'method', method: rng.pick(['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']), body: rng.chance(0.5) ? '{}' : null, headers: { 'content-type': 'application/json' } };
    if (r < 0.88) return { ...base, kind: 'host', headers: { host: rng.pick(HOSTS) }, forgeable: 'host' };
    if (r < 0.94) return { ...base, kind: 'origin', headers: { origin: rng.pick(ORIGINS) }, forgeable: 'origin' };
    return { ...base, kind: 'url', path: rng.pick(['/health/', '/health?x=1', '/health/%E0%A4%A', '/HEALTH', '/health/..', '/%E0%A4%A', '/health%00']), mayLeaveRoute: true };
  }

  if (r < 0.08) {
    base.kind = 'valid';
    setBody(body);
  } else if (r < 0.5) {
    const kinds: string[] = [];
    for (let i = rng.int(1, 3); i > 0; i--) kinds.push(mutate(route, body, rng, limits));
    base.kind = `mutated:${kinds[0]!.split('@')[0]}`;
    setBody(body);
  } else if (r < 0.6) {
    const path = freeFormPath(route, rng);
    prepare(route, body, path, rng);
    setAt(body, path, deepValue(rng, limits));
    base.kind = `deep@${path.join('.')}`;
    setBody(body);
  } else if (r < 0.63) {
    const path = rng.chance(0.5) ? freeFormPath(route, rng) : rng.pick(pathsOf(body));
    prepare(route, body, path, rng);
    setAt(body, path, huge(rng, limits));
    base.kind = 'huge-string';
    setBody(body);
  } else if (r < 0.66) {
    const path = freeFormPath(route, rng);
    prepare(route, body, path, rng);
    const n = rng.pick([101, 1000, 100_000, limits.maxList]);
    setAt(body, path, route === 'search' || route === 'get' ? { AND: longList(n, rng.pick(['1', '{}', '{"session_id":"s-1"}'])) } : longList(n, rng.pick(['1', '"like"', '{}', '[]'])));
    base.kind = 'long-list';
    setBody(body);
  } else if (r < 0.71) {
    const paths = pathsOf(body);
    for (let i = rng.int(1, 4); i > 0; i--) setAt(body, rng.pick(paths), rng.pick(UNICODE));
    base.kind = 'unicode';
    setBody(body);
  } else if (r < 0.76) {
    const parents = [[], ...pathsOf(body).filter((p) => { const v = getAt(body, p); return v !== null && typeof v === 'object' && !Array.isArray(v); })];
    const at = rng.pick(parents);
    const target = at.length ? (getAt(body, at) as Record<string, unknown>) : body;
    const extra = protoValue(rng);
    for (const key of Object.keys(extra)) addOwn(target, key, extra[key]);
    base.kind = 'proto';
    setBody(body);
  } else if (r < 0.82) {
    base.kind = 'malformed';
    const text = emit(body);
    raw = rng.pick<() => string>([
      () => rng.pick(MALFORMED),
      () => text.slice(0, rng.int(0, text.length - 1)),
      () => { const i = rng.int(0, text.length); return text.slice(0, i) + rng.pick(['"', '}', ']', ',', '\\', ':', '\u0000']) + text.slice(i); },
      () => '',
      () => '   \n\t ',
    ])();
    if (rng.chance(0.15)) {
      base.body = Buffer.concat([Buffer.from(text.slice(0, 10)), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(text.slice(10))]);
      base.kind = 'malformed:bad-utf8';
      return base;
    }
  } else if (r < 0.85) {
    base.kind = 'non-object';
    raw = rng.pick(['null', '[]', '[{}]', '"text"', '1', 'true', '{}', '[' + emit(body) + ']']);
  } else if (r < 0.88) {
    const type = rng.pick(FORGED_TYPES);
    base.kind = `content-type:${type || 'none'}`;
    base.headers = type ? { 'content-type': type } : {};
    base.forgeable = 'content-type';
    setBody(body);
  } else if (r < 0.91) {
    base.kind = 'origin';
    base.headers['origin'] = rng.pick(ORIGINS);
    base.forgeable = 'origin';
    setBody(body);
  } else if (r < 0.93) {
    base.kind = 'host';
    base.headers['host'] = rng.pick(HOSTS);
    base.forgeable = 'host';
    setBody(body);
  } else if (r < 0.96) {
    base.method = rng.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE']);
    base.kind = `method:${base.method}`;
    if (base.method !== 'GET' && base.method !== 'HEAD' && base.method !== 'TRACE') setBody(body);
  } else {
    base.kind = 'url';
    base.mayLeaveRoute = true;
    base.path = rng.pick([
      `${spec.path}/`, `${spec.path}?user_id=x`, `${spec.path}//`, `/${spec.path}`, `${spec.path}/%E0%A4%A`, `${spec.path}%00`, spec.path.toUpperCase(),
      `${spec.path}/..`, `${spec.path}/../health`, `/api/v1/memory/${'x'.repeat(rng.int(1, 4000))}`, '/%E0%A4%A', '/api/v1/memory/%2e%2e/health', `${spec.path}#frag`,
      '/api/v1/memory', '/api/v1/', '/', '/api/v1/memory/__proto__', '/api/v1/memory/constructor', '/api/v1/memory/toString',
    ]);
    setBody(body);
  }
  if (raw !== null) {
    base.body = raw;
    try {
      base.value = JSON.parse(raw) as unknown;
    } catch {
      // Malformed on purpose: only the HTTP fuzz sends it.
    }
  }
  return base;
}

/** The oversized-body cases for a route (sent once each, apart from the random ones). */
export function oversizedCases(route: RouteName, capBytes: number): HttpCase[] {
  const spec = ROUTES.find((r) => r.name === route)!;
  if (route === 'health') return [];
  const base = { route, family: spec.family, mayLeaveRoute: false, method: 'POST', path: spec.path, headers: { 'content-type': 'application/json' }, body: null, forgeable: null } as const;
  return [
    { ...base, kind: 'oversized:declared', oversize: { mode: 'declared', declared: 1024 ** 3, cap: capBytes } },
    { ...base, kind: 'oversized:chunked', oversize: { mode: 'chunked', cap: capBytes } },
    { ...base, kind: 'oversized:exact', oversize: { mode: 'exact', bytes: 11 * 1024 * 1024 } },
  ];
}

/** Mutates a parsed value in place 1 to 3 times (the comlink fuzz uses it on export bundles). */
export function mutateValue(route: RouteName, value: Record<string, unknown>, rng: Rng, limits: CaseLimits): string {
  const kinds: string[] = [];
  for (let i = rng.int(1, 3); i > 0; i--) kinds.push(mutate(route, value, rng, limits));
  return kinds.join(',');
}
