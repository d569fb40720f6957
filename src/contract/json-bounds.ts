/**
 * Bounds on free-form JSON (content items, tool calls, profile data, metadata). Such values are
 * stored as sent and later serialised, cloned, compared and re-read, mostly by recursive code
 * (`JSON.stringify`, `structuredClone`, a store's reader): 5,000 nested arrays overflow the stack
 * there, after the write was acknowledged. So depth and size are checked here, before anything
 * else reads the value, by a walk that is itself iterative, linear in the value's size and stops
 * at the first bound it crosses (a cycle handed in through the in-process API is just "too deep").
 */
import { validationError } from '../errors.js';

/** Levels of nesting a free-form value may have (`{}` and `[]` are one level). */
export const MAX_JSON_DEPTH = 32;
/** Levels of nesting a whole request body may have: the deepest free-form value plus the contract's own envelope. */
export const MAX_BODY_DEPTH = 64;

export interface JsonLimits {
  /** Bytes of the value's compact JSON text (UTF-8). */
  maxBytes: number;
  /** Levels of nesting (default `MAX_JSON_DEPTH`). */
  maxDepth?: number;
}

/** Why a value is out of bounds: nested too deep, too large, or holding something JSON cannot carry. */
export type JsonProblem = { kind: 'depth' } | { kind: 'bytes' } | { kind: 'type'; value: unknown };

/** A plain object or array as JSON sees it (not a Date, Map, typed array…), from any realm. */
const isPlainObject = (value: object): boolean => Object.prototype.toString.call(value) === '[object Object]';

/** UTF-8 bytes of `text` as a JSON string literal (quotes and escapes included); stops counting past `budget`. */
function stringBytes(text: string, budget: number): number {
  // Every code unit is at least one byte: a string longer than the budget is over without a look.
  if (text.length + 2 > budget) return text.length + 2;
  let n = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    else if (c === 0x22 || c === 0x5c) n += 2;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdfff) n += 6; // a lone surrogate is written as \uXXXX
    else n += 3;
    if (n > budget) return n;
  }
  return n;
}

/**
 * Measures a value against the limits without recursing: its JSON size in bytes, or the first
 * problem found. Work is bounded by `maxBytes` whatever the value (each node visited costs at
 * least one byte), so a huge or cyclic value is refused as soon as it crosses a bound.
 */
export function measureJson(value: unknown, limits: JsonLimits): { bytes: number } | JsonProblem {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const max = limits.maxBytes;
  const values: unknown[] = [value];
  const depths: number[] = [0];
  let bytes = 0;
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    switch (typeof v) {
      case 'string':
        bytes += stringBytes(v, max - bytes);
        break;
      case 'number':
        if (!Number.isFinite(v)) return { kind: 'type', value: v };
        bytes += String(v).length;
        break;
      case 'boolean':
        bytes += v ? 4 : 5;
        break;
      case 'object': {
        if (v === null) {
          bytes += 4;
          break;
        }
        if (depth + 1 > maxDepth) return { kind: 'depth' };
        if (Array.isArray(v)) {
          // Brackets and commas; each element is at least one byte more, checked before anything is queued.
          bytes += 1 + Math.max(1, v.length);
          if (bytes + v.length > max) return { kind: 'bytes' };
          for (let i = v.length - 1; i >= 0; i--) {
            const element: unknown = v[i];
            if (element === undefined) return { kind: 'type', value: element };
            values.push(element);
            depths.push(depth + 1);
          }
          break;
        }
        if (!isPlainObject(v)) return { kind: 'type', value: v };
        const record = v as Record<string, unknown>;
        const keys = Object.keys(record);
        // Braces, and `"":` plus a comma per entry; each value is at least one byte more.
        bytes += 1 + Math.max(1, 4 * keys.length);
        if (bytes + keys.length > max) return { kind: 'bytes' };
        for (const key of keys) {
          const entry = record[key];
          // An undefined property is absent in JSON, as it is in the contract's own fields.
          if (entry === undefined) continue;
          bytes += stringBytes(key, max - bytes) - 2;
          if (bytes > max) return { kind: 'bytes' };
          values.push(entry);
          depths.push(depth + 1);
        }
        break;
      }
      default:
        // undefined, bigint, symbol, function: nothing JSON can hold.
        return { kind: 'type', value: v };
    }
    if (bytes > max) return { kind: 'bytes' };
  }
  return { bytes };
}

/**
 * Refuses (422 `json_too_deep` at `["body"]`) a parsed body nested deeper than any request of
 * the contract can be. A host runs this right after `JSON.parse`, before anything recursive
 * (`JSON.stringify`, `structuredClone`) touches the body.
 */
export function assertBodyDepth(body: unknown, limit = MAX_BODY_DEPTH): void {
  // The byte budget only bounds the walk (a parsed body measures no more than its text): depth is what is checked here.
  const measured = measureJson(body, { maxBytes: 64 * 1024 * 1024, maxDepth: limit });
  if (!('kind' in measured) || measured.kind !== 'depth') return;
  throw validationError([{
    loc: ['body'], msg: `JSON nesting should be at most ${limit} levels deep`, type: 'json_too_deep', input: body, ctx: { max_depth: limit },
  }]);
}
