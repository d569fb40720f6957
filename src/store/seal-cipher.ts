/**
 * The primitives of a sealed store: AES-256-GCM sealing (IV ‖ ciphertext ‖ tag), HMAC-SHA-256 and
 * base64. WebCrypto everywhere; where the runtime also offers `node:crypto` (Node, found through
 * `process.getBuiltinModule`, so no bundle ever imports it), the same operations run through it
 * on the same CryptoKeys: Node's `crypto.subtle` spends ~0.1 ms per call validating arguments,
 * which is most of the cost of sealing 10k items. Both paths write the same bytes.
 */
import type * as NodeCrypto from 'node:crypto';
import { createError } from '../errors.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** WebCrypto, or STORAGE_FAILED where the runtime has none (an insecure browser context). */
export function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw createError('STORAGE_FAILED', { message: 'WebCrypto (crypto.subtle) is not available here: a sealed store needs a secure context (https or localhost) or Node 20+.', details: { reason: 'no_webcrypto' } });
  return s;
}

/** `node:crypto` where the runtime is Node and it converts CryptoKeys, else null (decided once). */
let nodeCrypto: typeof NodeCrypto | null | undefined;
function node(): typeof NodeCrypto | null {
  if (nodeCrypto !== undefined) return nodeCrypto;
  nodeCrypto = null;
  try {
    const proc = (globalThis as { process?: { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown } }).process;
    // workerd's Node compatibility layer has process too, but not every KeyObject path: Node only.
    if (proc?.versions?.node && !('WebSocketPair' in globalThis)) {
      const found = proc.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;
      if (found && typeof found.KeyObject?.from === 'function') nodeCrypto = found;
    }
  } catch {
    nodeCrypto = null;
  }
  return nodeCrypto;
}

const keyObjects = new WeakMap<CryptoKey, NodeCrypto.KeyObject>();
function keyObject(crypto: typeof NodeCrypto, key: CryptoKey): NodeCrypto.KeyObject {
  let found = keyObjects.get(key);
  if (!found) keyObjects.set(key, (found = crypto.KeyObject.from(key)));
  return found;
}

/**
 * Base64 through the runtime's own `btoa`/`atob` (every target has them: browsers, workers,
 * workerd, Node 16+). serialize.ts' portable encoder builds its string four characters at a time,
 * which at 10k sealed items a commit means millions of short-lived strings for the collector.
 */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]);
  return btoa(binary);
}

/** The bytes of `toBase64`'s output; throws on anything that is not base64. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Bytes as WebCrypto's parameter type (every array here is over a plain ArrayBuffer, never a shared one). */
export const buf = (bytes: Uint8Array | ArrayBuffer) => bytes as BufferSource;


/** IV ‖ AES-256-GCM(plain) ‖ tag, with `aad` authenticated alongside. */
export async function sealBytes(key: CryptoKey, plain: Uint8Array, aad: Uint8Array): Promise<Uint8Array> {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const fast = node();
  if (fast) {
    const cipher = fast.createCipheriv('aes-256-gcm', keyObject(fast, key), iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const body = cipher.update(plain);
    const tail = cipher.final();
    const out = new Uint8Array(IV_BYTES + body.length + tail.length + TAG_BYTES);
    out.set(iv);
    out.set(body, IV_BYTES);
    out.set(tail, IV_BYTES + body.length);
    out.set(cipher.getAuthTag(), IV_BYTES + body.length + tail.length);
    return out;
  }
  const sealed = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: buf(aad) }, key, buf(plain)));
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return out;
}

/** The plain bytes of `sealBytes`' output; rejects when the key, the bytes or `aad` differ. */
export async function openBytes(key: CryptoKey, sealed: Uint8Array, aad: Uint8Array): Promise<Uint8Array> {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
  const fast = node();
  if (fast) {
    const decipher = fast.createDecipheriv('aes-256-gcm', keyObject(fast, key), sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const body = decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES));
    const tail = decipher.final(); // throws when the tag does not match
    if (tail.length === 0) return new Uint8Array(body.buffer, body.byteOffset, body.length);
    const out = new Uint8Array(body.length + tail.length);
    out.set(body);
    out.set(tail, body.length);
    return out;
  }
  return new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: buf(sealed.subarray(0, IV_BYTES)), additionalData: buf(aad) }, key, buf(sealed.subarray(IV_BYTES))));
}

/** HMAC-SHA-256 of `data` under an HMAC CryptoKey. */
export async function hmac(key: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  const fast = node();
  if (fast) return fast.createHmac('sha256', keyObject(fast, key)).update(data).digest();
  return new Uint8Array(await subtle().sign('HMAC', key, buf(data)));
}

/** Which implementation runs here (for the benchmark and tests). */
export function cipherPath(): 'node:crypto' | 'webcrypto' {
  return node() ? 'node:crypto' : 'webcrypto';
}

/** Makes every later call use WebCrypto (tests and the benchmark compare both paths). */
export function useWebCryptoOnly(on: boolean): void {
  nodeCrypto = on ? null : undefined;
}
