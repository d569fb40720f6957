/**
 * Where a user's own model files come from: bytes already in hand, a URL (fetched, so a browser
 * serves them from its own origin), or a path on disk (Node). node:fs is only imported on the disk
 * path, so a browser bundle that passes bytes or URLs never pulls it in.
 */

import { MemoryError } from '../errors.js';
import { fetchModelBytes, readModelFile, type FetchModelOptions } from './load-static-model.js';

/** A model file: its bytes, a URL to fetch, or (Node) a file path or `file:` URL. */
export type ModelFileSource = Uint8Array | ArrayBuffer | URL | string;

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const WINDOWS_DRIVE = /^[a-z]:[\\/]/i;

/** True in Node (not in browsers, workers or workerd). */
export function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: unknown } } }).process;
  return typeof p?.versions?.node === 'string';
}

/**
 * Reads a model file. `file:` URLs and plain strings are read from disk in Node; other URLs, and
 * every string outside Node (a path relative to the page), are fetched. Failures are MODEL_UNAVAILABLE.
 */
export async function loadModelFile(source: ModelFileSource, options: FetchModelOptions = {}): Promise<Uint8Array> {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (source instanceof URL) return source.protocol === 'file:' ? readModelFile(source) : fetchModelBytes(source, options);
  if (typeof source !== 'string' || source.length === 0) {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: 'A model file source must be bytes, a URL or a path.' });
  }
  if (source.startsWith('file:')) return readModelFile(new URL(source));
  const looksLikeUrl = SCHEME.test(source) && !WINDOWS_DRIVE.test(source);
  return looksLikeUrl || !isNode() ? fetchModelBytes(source, options) : readModelFile(source);
}

/** Reads a JSON model file (tokenizer.json, tokenizer_config.json); an object is passed through. */
export async function loadJsonFile(source: ModelFileSource | object, options: FetchModelOptions = {}): Promise<Record<string, unknown>> {
  if (typeof source === 'object' && !(source instanceof Uint8Array) && !(source instanceof ArrayBuffer) && !(source instanceof URL)) {
    return source as Record<string, unknown>;
  }
  const bytes = await loadModelFile(source, options);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: `Model file ${describeSource(source)} is not valid JSON.`, cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: `Model file ${describeSource(source)} is not a JSON object.` });
  }
  return parsed as Record<string, unknown>;
}

function describeSource(source: ModelFileSource): string {
  return typeof source === 'string' || source instanceof URL ? String(source) : `(${source.byteLength} bytes)`;
}

/**
 * A short fingerprint of model bytes for a default model id: FNV-1a over the length and ~64k bytes
 * sampled evenly, so a 100 MB model is identified in a millisecond. Pass an explicit id for a name
 * that survives re-exports of the same weights.
 */
export function fingerprint(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  const mix = (byte: number) => {
    h = Math.imul(h ^ byte, 0x01000193);
  };
  for (const b of String(bytes.length)) mix(b.charCodeAt(0));
  const step = Math.max(1, Math.floor(bytes.length / 65_536));
  for (let i = 0; i < bytes.length; i += step) mix(bytes[i] as number);
  return (h >>> 0).toString(16).padStart(8, '0');
}
