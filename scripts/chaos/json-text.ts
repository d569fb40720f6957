/**
 * JSON text a hostile client can send but `JSON.stringify` never writes: duplicate keys, numbers
 * out of range, nesting thousands deep. Values are built as ordinary objects with `Raw` and
 * `DupObject` nodes where such text goes, and written out by `emit`.
 */

/** Text spliced into the JSON as is. */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object whose key list may repeat a key (the last one wins in `JSON.parse`). */
export class DupObject {
  constructor(readonly entries: [string, unknown][]) {}
}

/** The JSON text of `value`, with Raw and DupObject nodes written as they say. */
export function emit(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof DupObject) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${emit(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(emit).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    // Object.keys lists an own `__proto__` key made with defineProperty, as JSON.parse makes it.
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj).map((k) => `${JSON.stringify(k)}:${emit(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `depth` nested objects (`{"a":{"a":…1}}`), arrays (`[[[…]]]`) or both alternating. */
export function deep(depth: number, style: 'object' | 'array' | 'mixed'): Raw {
  if (style === 'object') return new Raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
  if (style === 'array') return new Raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
  const half = Math.ceil(depth / 2);
  return new Raw(`${'[{"a":'.repeat(half)}0${'}]'.repeat(half)}`);
}

/** A list of `n` copies of `item`'s text, without building an n-element array first. */
export function longList(n: number, item: string): Raw {
  return new Raw(`[${`${item},`.repeat(Math.max(0, n - 1))}${n > 0 ? item : ''}]`);
}

/** Sets `value` at `path` in `root`, making containers where they are missing or not containers. */
export function setAt(root: Record<string, unknown>, path: readonly (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const nextKey = path[i + 1]!;
    let child = node[key];
    if (child === null || typeof child !== 'object' || child instanceof Raw || child instanceof DupObject) {
      child = typeof nextKey === 'number' ? [] : {};
      node[key] = child;
    }
    node = child as Record<string | number, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Every path to a value inside `root` (containers included), at most `max` of them. */
export function pathsOf(root: unknown, max = 200): (string | number)[][] {
  const out: (string | number)[][] = [];
  const walk = (node: unknown, path: (string | number)[]) => {
    if (out.length >= max || node === null || typeof node !== 'object' || node instanceof Raw || node instanceof DupObject) return;
    const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [k, v] of entries) {
      out.push([...path, k]);
      walk(v, [...path, k]);
    }
  };
  walk(root, []);
  return out;
}

/** Removes the value at `path` (a list element is spliced out). */
export function deleteAt(root: Record<string, unknown>, path: readonly (string | number)[]): void {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string | number, unknown>)[key];
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1);
  else if (node !== null && typeof node === 'object') delete (node as Record<string | number, unknown>)[last];
}

/** The value at `path`, or undefined. */
export function getAt(root: unknown, path: readonly (string | number)[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}
