/**
 * Bearer API keys for the Worker. The `API_KEYS` secret maps the SHA-256 (hex) of each key to the
 * one tenancy (app_id, project_id) it may reach; keys themselves are never stored. A request's
 * key decides its tenancy: a body that names another app_id or project_id is refused (403), one
 * that names none gets the key's.
 */
import { MemoryError } from '../src/errors.js';
import { SCOPE_ID_PATTERN } from '../src/contract/requests.js';

/** The memory partition a key is bound to; one Durable Object holds each. */
export interface Tenancy {
  app_id: string;
  project_id: string;
}

/** Header the Worker uses to tell the Durable Object which tenancy it forwarded for. */
export const TENANCY_HEADER = 'x-engram-tenancy';

/** The Durable Object name of a tenancy (scope ids cannot contain '/', so this is unambiguous). */
export function tenancyName(tenancy: Tenancy): string {
  return `${tenancy.app_id}/${tenancy.project_id}`;
}

/** The tenancy of a name made by `tenancyName`, or undefined. */
export function parseTenancyName(name: string): Tenancy | undefined {
  const [app_id, project_id, ...rest] = name.split('/');
  if (rest.length || !app_id || !project_id || !SCOPE_ID_PATTERN.test(app_id) || !SCOPE_ID_PATTERN.test(project_id)) return undefined;
  return { app_id, project_id };
}

interface KeyEntry {
  hash: Uint8Array;
  tenancy: Tenancy;
}

const HEX64 = /^[0-9a-f]{64}$/;
const MAX_KEY_LENGTH = 4096;

/** A malformed API_KEYS secret: an operator's mistake, reported as a 500 and logged. */
export class ApiKeysConfigError extends Error {
  override readonly name = 'ApiKeysConfigError';
}

/** Parses the API_KEYS secret; throws ApiKeysConfigError naming the first problem. */
export function parseApiKeys(source: string | undefined): KeyEntry[] {
  if (source === undefined || source.trim() === '') return [];
  let raw: unknown;
  try {
    raw = JSON.parse(source);
  } catch {
    throw new ApiKeysConfigError('API_KEYS is not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiKeysConfigError('API_KEYS must be a JSON object');
  return Object.entries(raw as Record<string, unknown>).map(([hash, value]) => {
    const hex = hash.toLowerCase();
    if (!HEX64.test(hex)) throw new ApiKeysConfigError('API_KEYS keys must be SHA-256 hashes in hex (64 characters)');
    const { app_id, project_id } = (value ?? {}) as Partial<Tenancy>;
    if (typeof app_id !== 'string' || typeof project_id !== 'string' || !SCOPE_ID_PATTERN.test(app_id) || !SCOPE_ID_PATTERN.test(project_id)) {
      throw new ApiKeysConfigError(`API_KEYS entry ${hex.slice(0, 8)}… needs app_id and project_id made of [A-Za-z0-9_.@+-]`);
    }
    return { hash: hexToBytes(hex), tenancy: { app_id, project_id } };
  });
}

let parsed: { source: string | undefined; entries: KeyEntry[] } | undefined;

function keyEntries(source: string | undefined): KeyEntry[] {
  if (parsed === undefined || parsed.source !== source) parsed = { source, entries: parseApiKeys(source) };
  return parsed.entries;
}

/** SHA-256 of a string's UTF-8 bytes. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** SHA-256 of a string, in lower-case hex: the form API_KEYS stores. */
export async function sha256Hex(text: string): Promise<string> {
  return [...(await sha256(text))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * The tenancy of the request's bearer key; UNAUTHENTICATED (401) when it has none or an unknown
 * one. Every configured hash is compared in full, so the time taken does not depend on which
 * entry matched or how much of it did.
 */
export async function authenticate(request: Request, apiKeys: string | undefined): Promise<Tenancy> {
  const entries = keyEntries(apiKeys);
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(request.headers.get('authorization') ?? '');
  const key = match?.[1];
  if (!key || key.length > MAX_KEY_LENGTH) throw new MemoryError('UNAUTHENTICATED');
  const presented = await sha256(key);
  let found: Tenancy | undefined;
  for (const entry of entries) {
    let diff = 0;
    for (let i = 0; i < presented.length; i++) diff |= presented[i]! ^ entry.hash[i]!;
    if (diff === 0) found ??= entry.tenancy;
  }
  if (!found) throw new MemoryError('UNAUTHENTICATED');
  return found;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The body with the key's tenancy filled in where it names none; FORBIDDEN (403) when it names
 * another. A body that is not an object passes unchanged: the contract rejects it (422) anyway.
 */
export function scopeBody(body: unknown, tenancy: Tenancy): unknown {
  if (!isPlainObject(body)) return body;
  const out: Record<string, unknown> = { ...body };
  for (const field of ['app_id', 'project_id'] as const) {
    if (body[field] === undefined) out[field] = tenancy[field];
    else if (body[field] !== tenancy[field]) throw new MemoryError('FORBIDDEN', { details: { field } });
  }
  return out;
}

/** Whether a (scoped) body stays inside the tenancy: the Durable Object's own check. */
export function bodyInTenancy(body: unknown, tenancy: Tenancy): boolean {
  return !isPlainObject(body) || (body['app_id'] === tenancy.app_id && body['project_id'] === tenancy.project_id);
}
