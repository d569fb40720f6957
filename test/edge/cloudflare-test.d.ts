/**
 * The few members of the pool's `cloudflare:test` module these tests use, typed without the
 * Workers global types (the repository type-checks against the DOM library).
 */
declare module 'cloudflare:test' {
  /** The Worker under test (its default export), called in-process. */
  export const SELF: { fetch(input: Request | string, init?: RequestInit): Promise<Response> };
  /** The Worker's bindings. */
  export const env: Record<string, unknown>;
  /** Runs `callback` inside the object behind `stub`, with its instance and state. */
  export function runInDurableObject<O, R>(stub: unknown, callback: (instance: O, state: any) => R | Promise<R>): Promise<R>;
  /** Drops every Durable Object instance, keeping their storage (what an eviction does). */
  export function abortAllDurableObjects(): Promise<void>;
  /** Ids of every object created in a namespace. */
  export function listDurableObjectIds(namespace: unknown): Promise<{ toString(): string; readonly name?: string }[]>;
}
