/**
 * Many items in one stored value, for stores where each value costs (IndexedDB: reading 10k
 * structured-clone values, each with its own Float32Array, took a second in Chromium, and the
 * per-value overhead made the database 1.8× the raw text and vectors). A pack holds its items as
 * UTF-8 JSON rows (each row's keys named once per pack, by shape) and every vector in one
 * Float32Array, so a read is one decode of a few large values.
 *
 * Lossless or nothing: an item holding anything JSON cannot carry exactly (undefined, -0, a
 * non-finite number, a function, a typed array besides `vector`, a class instance) travels in
 * the pack as itself (`loose`), by structured clone, which keeps it exactly or fails the write.
 */
import type { StoredItem } from '../records.js';

/** The stored form of a pack. */
export interface PackValue {
  /** UTF-8 JSON of `{ shapes: string[][], rows: unknown[][] }`; each row is `[shape, ...values]`, a vector as its length. */
  body: Uint8Array;
  /** Every row's vector, one after another, in row order. */
  vectors: Float32Array;
  /** Items stored as they are (see above). */
  loose: StoredItem[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Whether JSON gives `value` back exactly (as `difference` in the storage contract would see it). */
function jsonExact(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (const v of value) if (!jsonExact(v)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (key === '__proto__' || !jsonExact((value as Record<string, unknown>)[key])) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** Packs items; the result is what a store puts (vectors copied into the pack's one array). */
export function encodePack(items: readonly StoredItem[]): PackValue {
  const shapes: string[][] = [];
  const shapeIds = new Map<string, number>();
  const rows: unknown[][] = [];
  const loose: StoredItem[] = [];
  const vectors: Float32Array[] = [];
  let floats = 0;
  for (const item of items) {
    const keys = Object.keys(item);
    const vector = (item as { vector?: unknown }).vector;
    let exact = !keys.includes('vector') || vector === null || vector instanceof Float32Array;
    if (exact) {
      for (const key of keys) {
        if (key === 'vector') continue;
        if (!jsonExact((item as unknown as Record<string, unknown>)[key])) {
          exact = false;
          break;
        }
      }
    }
    if (!exact) {
      loose.push(item);
      continue;
    }
    const signature = keys.join('\u0000');
    let shape = shapeIds.get(signature);
    if (shape === undefined) {
      shape = shapes.length;
      shapes.push(keys);
      shapeIds.set(signature, shape);
    }
    const row: unknown[] = [shape];
    for (const key of keys) {
      const value = (item as unknown as Record<string, unknown>)[key];
      if (key === 'vector' && value instanceof Float32Array) {
        row.push(value.length);
        vectors.push(value);
        floats += value.length;
      } else row.push(value);
    }
    rows.push(row);
  }
  const all = new Float32Array(floats);
  let at = 0;
  for (const v of vectors) {
    all.set(v, at);
    at += v.length;
  }
  return { body: encoder.encode(JSON.stringify({ shapes, rows })), vectors: all, loose };
}

/** The items of a pack, in the order they were packed (JSON rows first, then loose items). */
export function decodePack(pack: PackValue): StoredItem[] {
  const { shapes, rows } = JSON.parse(decoder.decode(pack.body)) as { shapes: string[][]; rows: unknown[][] };
  const out: StoredItem[] = [];
  let at = 0;
  for (const row of rows) {
    const keys = shapes[row[0] as number]!;
    const item: Record<string, unknown> = {};
    for (let j = 0; j < keys.length; j++) {
      const key = keys[j]!;
      const value = row[j + 1];
      if (key === 'vector' && typeof value === 'number') {
        // A copy, not a view: a record's vector is its own buffer, as structured clone gave it.
        item[key] = pack.vectors.slice(at, at + value);
        at += value;
      } else item[key] = value;
    }
    out.push(item as unknown as StoredItem);
  }
  for (const item of pack.loose) out.push(item);
  return out;
}

/** Whether a stored value has a pack's form (a damaged one is reported, never read as empty). */
export function isPackValue(value: unknown): value is PackValue {
  const v = value as Partial<PackValue> | null;
  return typeof v === 'object' && v !== null && v.body instanceof Uint8Array && v.vectors instanceof Float32Array && Array.isArray(v.loose);
}
