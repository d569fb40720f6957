/**
 * Encryption at rest for the edge host: the secret ENGRAM_ENCRYPTION_KEY (base64 of 32 random
 * bytes, `openssl rand -base64 32`) seals every tenancy's Durable Object storage. A raw key, not a
 * passphrase: a passphrase would cost each object PBKDF2's deliberate CPU time on every cold
 * start. Each object's store has its own salt, so tenancies sharing the secret still use
 * different keys. A secret that is set but malformed refuses to open the memory rather than
 * storing anything in clear.
 */
import { createError } from '../src/errors.js';
import { base64ToBytes } from '../src/store/serialize.js';
import type { EncryptionOptions } from '../src/store/sealed-store.js';
import type { EdgeEnv } from './edge-env.js';

/** The `encryption` option of `createMemory` for this env: `{}` when the secret is not set. */
export function edgeEncryption(env: Pick<EdgeEnv, 'ENGRAM_ENCRYPTION_KEY'>): { encryption?: EncryptionOptions } {
  const secret = env.ENGRAM_ENCRYPTION_KEY;
  if (secret === undefined) return {};
  let key: Uint8Array | null = null;
  try {
    // Standard or URL-safe base64, surrounding white space ignored.
    key = base64ToBytes(secret.trim().replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    key = null;
  }
  if (!key || key.length !== 32) {
    throw createError('ENCRYPTION_KEY_INVALID', {
      message: 'ENGRAM_ENCRYPTION_KEY must be the base64 of 32 bytes (openssl rand -base64 32).',
      details: { reason: 'bad_secret' },
    });
  }
  return { encryption: { key } };
}
