/**
 * What counts as a proper answer. Every answer is a 2xx with the route's success shape, or a
 * 4xx in the route's own error shape: EverOS `{detail: [{loc, msg, type}]}` (422) or
 * `{detail, code}`; Breeth `{error, message}`; Tablestore `{Code, Message, RequestId}`. A 5xx,
 * a hang, a body that is not JSON or not in shape, or a forgeable request that was accepted is
 * a violation, with the reason that names it.
 */
import { ERROR_CATALOG } from '../../src/errors.js';
import type { HttpCase } from './cases.js';
import type { HttpAnswer } from './http.js';
import type { Family } from './requests.js';

/** A status class or the violation an answer is. */
export type Verdict =
  | { ok: true; status: number }
  | { ok: false; status: number | null; violation: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

function everosError(body: Obj, status: number): string | null {
  const detail = body['detail'];
  if (Array.isArray(detail)) {
    if (status !== 422) return 'detail[] with a status other than 422';
    if (detail.length === 0) return 'empty detail[]';
    for (const d of detail) {
      if (!isObj(d) || !Array.isArray(d['loc']) || !isStr(d['msg']) || !isStr(d['type'])) return 'detail[] item without loc/msg/type';
    }
    return null;
  }
  if (!isStr(detail)) return 'no detail';
  const code = body['code'];
  if (code !== undefined && (!isStr(code) || !(code in ERROR_CATALOG))) return `code ${String(code)} is not in the catalog`;
  // 404 / 405 for routes that do not exist are FastAPI's bare {detail}; every other error names its code.
  if (code === undefined && status !== 404 && status !== 405) return 'error without a catalog code';
  if (isStr(code) && ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].status !== status) return `code ${code} with status ${status}`;
  return null;
}

function breethError(body: Obj): string | null {
  return isStr(body['error']) && isStr(body['message']) ? null : 'not Breeth {error, message}';
}

function tablestoreError(body: Obj): string | null {
  return isStr(body['Code']) && isStr(body['Message']) && isStr(body['RequestId']) ? null : 'not Tablestore {Code, Message, RequestId}';
}

function success(family: Family, route: string, body: Obj): string | null {
  switch (family) {
    case 'everos':
      return isStr(body['request_id']) && isObj(body['data']) ? null : `${route}: 2xx without request_id/data`;
    case 'health':
      return body['status'] === 'ok' ? null : 'health: status is not ok';
    case 'breeth':
      return Array.isArray(body['edges']) && isObj(body['_cache']) ? null : 'breeth: 2xx without edges/_cache';
    case 'tablestore':
      return isStr(body['memoryStoreName']) && Array.isArray(body['results']) && Array.isArray(body['fileResults']) && isObj(body['scope']) ? null : 'tablestore: 2xx without results/scope';
    case 'notfound':
      return 'a 2xx for a route that does not exist';
  }
}

function errorShape(family: Family, body: Obj, status: number): string | null {
  switch (family) {
    case 'breeth':
      return breethError(body);
    case 'tablestore':
      return tablestoreError(body);
    default:
      return everosError(body, status);
  }
}

/** Statuses a host's own guard answers before any route runs (token, Origin, Host, content type, size). */
const GUARD = new Set([401, 403, 413, 415, 421]);

/** Judges one answer. `allow5xx` lists statuses a scenario expects (507 on a full disk). */
export function judge(c: HttpCase, a: HttpAnswer, allow5xx: ReadonlySet<number> = new Set()): Verdict {
  if (a.failure === 'client') return { ok: true, status: 0 };
  if (a.failure === 'timeout') return { ok: false, status: a.status, violation: 'hang' };
  if (a.failure === 'too-large') return { ok: false, status: a.status, violation: 'answer-too-large' };
  if (a.failure === 'reset' || a.status === null) {
    // A server that refuses an oversized upload may close the socket while the client still writes.
    if (c.oversize && a.status === null) return { ok: true, status: 0 };
    if (a.status === null) return { ok: false, status: null, violation: 'reset-without-answer' };
  }
  const status = a.status!;
  if (status >= 500 && !allow5xx.has(status)) return { ok: false, status, violation: `5xx:${status}` };
  if (c.forgeable && status >= 200 && status < 300) return { ok: false, status, violation: `forgeable-accepted:${c.forgeable}` };
  if (status < 200 || (status >= 300 && status < 400) || status >= 600) return { ok: false, status, violation: `status:${status}` };
  const bodyless = c.method === 'HEAD' || status === 204 || (c.method === 'OPTIONS' && status < 300);
  if (bodyless) return { ok: true, status };
  const type = String(a.headers['content-type'] ?? '');
  if (!/^application\/json\b/i.test(type)) return { ok: false, status, violation: `not-json-content-type:${type || 'none'}` };
  let body: unknown;
  try {
    body = JSON.parse(a.body.toString('utf8'));
  } catch {
    return { ok: false, status, violation: 'malformed-json-answer' };
  }
  if (!isObj(body)) return { ok: false, status, violation: 'answer-not-an-object' };
  if (status < 300) {
    const problem = success(c.family, c.route, body);
    return problem ? { ok: false, status, violation: `bad-2xx:${problem}` } : { ok: true, status };
  }
  let problem = errorShape(c.family, body, status);
  // A bad URL may normalise onto another route (`/SearchMemories/../health` is /health): its EverOS answer is fine.
  if (problem && c.mayLeaveRoute) problem = everosError(body, status);
  // A host guard may answer for every route in the EverOS shape before a dialect sees the request.
  if (problem && GUARD.has(status) && c.family !== 'everos') problem = everosError(body, status);
  return problem ? { ok: false, status, violation: `bad-error-shape:${problem}` } : { ok: true, status };
}
