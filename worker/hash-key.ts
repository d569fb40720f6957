/**
 * Prints what to put in the API_KEYS secret for a key:
 *
 *   npx tsx worker/hash-key.ts <key> [app_id] [project_id]
 *
 * Without a key it makes a random one. The output is the key's SHA-256 and a ready API_KEYS
 * entry; merge entries of several keys into one JSON object.
 */
import { randomBytes } from 'node:crypto';
import { SCOPE_ID_PATTERN } from '../src/contract/requests.js';
import { sha256Hex } from './auth.js';

const [given, app_id = 'default', project_id = 'default'] = process.argv.slice(2);
for (const id of [app_id, project_id]) {
  if (!SCOPE_ID_PATTERN.test(id)) {
    console.error(`"${id}" is not a valid id: use [A-Za-z0-9_.@+-]`);
    process.exit(1);
  }
}
const key = given || `eg_${randomBytes(24).toString('base64url')}`;
const hash = await sha256Hex(key);
if (!given) console.log(`key:      ${key}`);
console.log(`sha256:   ${hash}`);
console.log(`API_KEYS: ${JSON.stringify({ [hash]: { app_id, project_id } })}`);
