/** Shared helpers of the edge tests: calls through the Worker with a tenancy's key. */
import { runInDurableObject, SELF } from 'cloudflare:test';
import { createDurableObjectStore, type DurableSqlStorage } from '../../src/store/durable-object-store.js';
import type { StorageAdapter } from '../../src/store/port.js';
import { TEST_TENANCIES } from './keys.js';

export type TenancyName = keyof typeof TEST_TENANCIES;

export const ORIGIN = 'https://engram.test';
export const T0 = Date.UTC(2026, 2, 2, 9);

/** POSTs a JSON body to /api/v1/memory/<route> with the tenancy's key (or the given headers). */
export function call(route: string, body: unknown, as: TenancyName | { headers: Record<string, string> } = 'acme'): Promise<Response> {
  const headers: Record<string, string> = typeof as === 'string' ? { authorization: `Bearer ${TEST_TENANCIES[as].key}` } : as.headers;
  return SELF.fetch(`${ORIGIN}/api/v1/memory/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Like `call`, expecting 200 and returning the parsed body. */
export async function ok<T = any>(route: string, body: unknown, as: TenancyName = 'acme'): Promise<T> {
  const response = await call(route, body, as);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${route} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** A short conversation between a user and an assistant, one minute apart. */
export function conversation(session_id: string, user: string, agent: string, turns: string[], start = T0) {
  return {
    session_id,
    messages: turns.map((content, i) => ({
      sender_id: i % 2 === 0 ? user : agent,
      role: i % 2 === 0 ? 'user' : 'assistant',
      timestamp: start + i * 60_000,
      content,
    })),
  };
}

/**
 * A Durable Object store whose every call runs inside the object `stub` names, as the engine's
 * calls do (storage-contract and sealed-store suites).
 */
export async function openStoreInside(stub: unknown): Promise<StorageAdapter> {
  const store = await runInDurableObject(stub, (_instance: unknown, state) => createDurableObjectStore(state.storage as DurableSqlStorage));
  const inside = <R>(fn: () => Promise<R>): Promise<R> => runInDurableObject(stub, () => fn());
  return {
    kind: store.kind,
    loadAll: () => inside(() => store.loadAll()),
    commit: (batch) => inside(() => store.commit(batch)),
    getMeta: (key) => inside(() => store.getMeta(key)),
    setMeta: (key, value) => inside(() => store.setMeta(key, value)),
    close: () => inside(() => store.close()),
  };
}
