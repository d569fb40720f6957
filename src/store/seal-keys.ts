/**
 * The keys of a sealed store, through WebCrypto (`crypto.subtle`: browsers, workers, workerd and
 * Node 20 alike). Whatever the app supplies (32 raw bytes, an HKDF CryptoKey, or a passphrase
 * stretched by PBKDF2-SHA-256) goes through HKDF-SHA-256 with the store's own random salt, so two
 * stores opened with the same master key still use different keys: an AES-256-GCM key for the
 * contents and an HMAC-SHA-256 key that turns ids into opaque storage ids. The salt, the KDF
 * parameters and a sealed known value (the key check) live in the store's header, which lets a
 * wrong key be told apart from damaged data at open.
 */
import { createError, type MemoryError } from '../errors.js';
import { buf, fromBase64, hmac, openBytes, sealBytes, subtle, toBase64 } from './seal-cipher.js';

/**
 * What seals a store: an app-held key or a passphrase.
 *
 * @example
 * { key: crypto.getRandomValues(new Uint8Array(32)) }     // keep these bytes safe: they are the memory
 * { passphrase: 'correct horse battery staple' }            // stretched with PBKDF2 (600 000 rounds)
 */
export type EncryptionOptions =
  | {
      /**
       * 32 raw bytes, or an `HKDF` CryptoKey made from them (`importKey('raw', bytes, 'HKDF', false,
       * ['deriveKey'])`): a non-extractable CryptoKey can be kept in IndexedDB without its bytes
       * ever being readable by script.
       */
      key: CryptoKey | Uint8Array | ArrayBuffer;
    }
  | {
      passphrase: string;
      /** PBKDF2-SHA-256 rounds for a new store (default 600 000, at least 100 000); an existing store keeps its own. */
      iterations?: number;
    };

/** The clear header of a sealed store: no user content, only what opening it needs. */
export interface SealHeader {
  v: 1;
  cipher: 'AES-256-GCM';
  /** What the master key came from, so a passphrase store opened with a key says so. */
  source: 'key' | 'passphrase';
  /** Base64 of 32 random bytes: the PBKDF2 salt (passphrase) and the HKDF salt. */
  salt: string;
  /** PBKDF2 rounds (passphrase stores only). */
  iterations?: number;
  /** Base64 of IV ‖ ciphertext of KEY_CHECK, sealed with CHECK_AAD. */
  check: string;
}

export const DEFAULT_ITERATIONS = 600_000;
const MIN_ITERATIONS = 100_000;
const CONTENT_INFO = new TextEncoder().encode('engram sealed store v1: contents');
const ID_INFO = new TextEncoder().encode('engram sealed store v1: ids');
const KEY_CHECK = new TextEncoder().encode('engram key check v1');
const CHECK_AAD = new TextEncoder().encode('engram:check');

function invalidOption(msg: string, input?: unknown): MemoryError {
  return createError('VALIDATION_FAILED', { message: `Invalid encryption option: ${msg}`, details: [{ loc: ['encryption'], msg, type: 'value_error', ...(input === undefined ? {} : { input }) }] });
}

function keyInvalid(reason: string, message: string): MemoryError {
  return createError('ENCRYPTION_KEY_INVALID', { message, details: { reason } });
}

/** Checks the option's shape before any work: a malformed option is a 422, never a silent plain store. */
export function checkEncryptionOptions(options: unknown): EncryptionOptions {
  if (typeof options !== 'object' || options === null) throw invalidOption('expected { key } or { passphrase }');
  const o = options as { key?: unknown; passphrase?: unknown; iterations?: unknown };
  if ('key' in o && 'passphrase' in o) throw invalidOption('give either key or passphrase, not both');
  if ('passphrase' in o) {
    if (typeof o.passphrase !== 'string' || o.passphrase.length === 0) throw invalidOption('passphrase must be a non-empty string');
    if (o.iterations !== undefined && (!Number.isSafeInteger(o.iterations) || (o.iterations as number) < MIN_ITERATIONS)) {
      throw invalidOption(`iterations must be an integer of at least ${MIN_ITERATIONS}`, o.iterations);
    }
    return o as EncryptionOptions;
  }
  if (!('key' in o)) throw invalidOption('expected { key } or { passphrase }');
  const key = o.key;
  if (key instanceof Uint8Array || key instanceof ArrayBuffer) {
    if (key.byteLength !== 32) throw invalidOption(`a raw key is 32 bytes, not ${key.byteLength}`);
    return o as EncryptionOptions;
  }
  if (isCryptoKey(key)) {
    if (key.algorithm.name === 'HKDF' && key.usages.includes('deriveKey')) return o as EncryptionOptions;
    throw invalidOption("a CryptoKey must be an HKDF key with the 'deriveKey' usage");
  }
  throw invalidOption('key must be 32 bytes (Uint8Array or ArrayBuffer) or a CryptoKey');
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return typeof CryptoKey !== 'undefined' ? value instanceof CryptoKey : typeof value === 'object' && value !== null && 'algorithm' in value && 'usages' in value;
}

/** The two keys of one store: contents, and ids. */
export interface SealKeys {
  /** AES-256-GCM: seals items and metadata values. */
  aes: CryptoKey;
  /** HMAC-SHA-256: maps an id to its storage id. */
  ids: CryptoKey;
}

/** The keys of the store described by `header` (a fresh store gets its header from `newHeader`). */
async function deriveKeys(options: EncryptionOptions, header: Pick<SealHeader, 'salt' | 'iterations'>): Promise<SealKeys> {
  const s = subtle();
  const salt = fromBase64(header.salt);
  let master: CryptoKey;
  if ('passphrase' in options) {
    const material = await s.importKey('raw', new TextEncoder().encode(options.passphrase), 'PBKDF2', false, ['deriveBits']);
    const bits = await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: buf(salt), iterations: header.iterations ?? DEFAULT_ITERATIONS }, material, 256);
    master = await s.importKey('raw', bits, 'HKDF', false, ['deriveKey']);
  } else if (isCryptoKey(options.key)) {
    master = options.key;
  } else {
    master = await s.importKey('raw', buf(options.key), 'HKDF', false, ['deriveKey']);
  }
  const hkdf = (info: Uint8Array) => ({ name: 'HKDF', hash: 'SHA-256', salt: buf(salt), info: buf(info) });
  const [aes, ids] = await Promise.all([
    s.deriveKey(hkdf(CONTENT_INFO), master, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']),
    s.deriveKey(hkdf(ID_INFO), master, { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['sign']),
  ]);
  return { aes, ids };
}

/**
 * The id an item is stored under: 128 bits of HMAC-SHA-256 of its id, in base64. Deterministic,
 * so deletes by id still find it; opaque, so ids that name people (a profile's owner, a caller's
 * key, an app and project) stay out of the raw bytes.
 */
export async function storageId(keys: SealKeys, id: string): Promise<string> {
  const mac = await hmac(keys.ids, new TextEncoder().encode(id));
  return `s:${toBase64(mac.subarray(0, 16)).replace(/=+$/, '')}`;
}

/** A new store's header and key: fresh salt, the option's KDF, and the key check sealed under it. */
export async function newHeader(options: EncryptionOptions): Promise<{ header: SealHeader; keys: SealKeys }> {
  const salt = toBase64(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  const passphrase = 'passphrase' in options;
  const iterations = passphrase ? options.iterations ?? DEFAULT_ITERATIONS : undefined;
  const keys = await deriveKeys(options, { salt, ...(iterations === undefined ? {} : { iterations }) });
  const check = toBase64(await sealBytes(keys.aes, KEY_CHECK, CHECK_AAD));
  const header: SealHeader = { v: 1, cipher: 'AES-256-GCM', source: passphrase ? 'passphrase' : 'key', salt, ...(iterations === undefined ? {} : { iterations }), check };
  return { header, keys };
}

/** The key of an existing store, once the key check opens under it: ENCRYPTION_KEY_INVALID otherwise. */
export async function keysForHeader(options: EncryptionOptions, stored: unknown): Promise<SealKeys> {
  const header = parseHeader(stored);
  const given = 'passphrase' in options ? 'passphrase' : 'key';
  if (header.source !== given) throw keyInvalid(`${header.source}_required`, `This memory was sealed with a ${header.source}, not a ${given}.`);
  const keys = await deriveKeys(options, header);
  let plain: Uint8Array;
  try {
    plain = await openBytes(keys.aes, fromBase64(header.check), CHECK_AAD);
  } catch {
    throw keyInvalid('wrong_key', `The ${given} does not open this memory.`);
  }
  if (plain.length !== KEY_CHECK.length || plain.some((b, i) => b !== KEY_CHECK[i])) throw keyInvalid('wrong_key', `The ${given} does not open this memory.`);
  return keys;
}

function parseHeader(stored: unknown): SealHeader {
  const h = stored as Partial<SealHeader> | null;
  const valid = typeof h === 'object' && h !== null && h.v === 1 && h.cipher === 'AES-256-GCM' && (h.source === 'key' || h.source === 'passphrase')
    && typeof h.salt === 'string' && typeof h.check === 'string'
    && (h.source === 'key' || (Number.isSafeInteger(h.iterations) && (h.iterations as number) > 0));
  if (!valid) throw createError('STORAGE_CORRUPT', { message: 'The memory’s encryption header is damaged or of an unknown version.', details: { reason: 'bad_header' } });
  try {
    fromBase64(h.salt!);
    fromBase64(h.check!);
  } catch {
    throw createError('STORAGE_CORRUPT', { message: 'The memory’s encryption header is damaged.', details: { reason: 'bad_header' } });
  }
  return h as SealHeader;
}
