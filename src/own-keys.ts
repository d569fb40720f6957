/**
 * Objects keyed by what a client wrote (ids, metadata keys, filter fields). A key such as
 * "__proto__" or "constructor" is data like any other: it is written as an own property (a plain
 * assignment of "__proto__" would set the object's prototype and keep nothing) and read only when
 * the object holds it (a plain read of "constructor" finds Object.prototype's).
 */

/** The object's own value at `key`, or undefined when it has none (never an inherited one). */
export function ownValue<T>(object: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return object !== undefined && Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Sets `key` on the object as an own, enumerable data property, whatever the key is. */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** An empty object for keys a client chose: no prototype, so no key reads or writes anything inherited. */
export function ownMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
