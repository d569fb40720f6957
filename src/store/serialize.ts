/**
 * Items to and from JSON-safe form, for text that holds whole items (the export bundle, the old
 * JSONL log's reader). Vectors travel as base64 of their little-endian float32 bytes. SQL rows
 * keep vectors as BLOBs instead (sql-rows.ts).
 */
import type { StoredItem } from '../records.js';

/** A deep copy of an item (vectors copied, not shared). */
export function cloneItem<T extends StoredItem>(item: T): T {
  return structuredClone(item);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 of a byte array, without platform helpers (Buffer / btoa differ across runtimes). */
export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + '==';
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + '=';
  }
  return out;
}

const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) LOOKUP[B64.charCodeAt(i)] = i;

/** Bytes of a base64 string; throws on characters outside the alphabet. */
export function base64ToBytes(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const v = LOOKUP[clean.charCodeAt(i)] ?? -1;
    if (v < 0) throw new Error(`invalid base64 character at ${i}`);
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

/** A Float32Array as base64 (little-endian, as every supported platform is). */
export function vectorToBase64(vector: Float32Array): string {
  return bytesToBase64(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
}

/** The Float32Array encoded by `vectorToBase64`. */
export function base64ToVector(text: string): Float32Array {
  const bytes = base64ToBytes(text);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** An item as a JSON string (vector as base64). */
export function itemToJson(item: StoredItem): string {
  if (item.kind === 'message' || item.vector === null) return JSON.stringify(item);
  return JSON.stringify({ ...item, vector: vectorToBase64(item.vector) });
}

/** The item encoded by `itemToJson`. */
export function itemFromJson(text: string): StoredItem {
  const raw = JSON.parse(text) as StoredItem & { vector?: unknown };
  const vector: unknown = raw.vector;
  if (raw.kind !== 'message' && typeof vector === 'string') {
    return { ...raw, vector: base64ToVector(vector) } as StoredItem;
  }
  return raw as StoredItem;
}
