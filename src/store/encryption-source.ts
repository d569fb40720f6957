/**
 * Where the Node server gets its passphrase: a file (`--passphrase-file PATH`, so it never shows in
 * `ps` or shell history) or the environment (`ENGRAM_PASSPHRASE`). Neither given: the memory is
 * plain. A given but unusable source (missing file, empty passphrase) stops the server rather
 * than opening the memory unencrypted.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { EncryptionOptions } from './seal-keys.js';

/**
 * The `encryption` option of `createMemory` for the server's command line and environment: `{}`
 * when neither names a passphrase. Throws an Error meant for the operator.
 *
 * @example
 * const memory = await createMemory({ store, embedder, ...(await serveEncryption(process.argv.slice(2))) });
 */
export async function serveEncryption(args: string[], env: Record<string, string | undefined> = process.env): Promise<{ encryption?: EncryptionOptions }> {
  // Only this flag is read here; the server's own parser checks the rest of the command line.
  const { values } = parseArgs({ args, strict: false, options: { 'passphrase-file': { type: 'string' } } });
  const file = values['passphrase-file'];
  let passphrase: string | undefined;
  if (file !== undefined) {
    if (typeof file !== 'string' || file === '') throw new Error('--passphrase-file needs a path');
    try {
      // One trailing line break is the file's, not the passphrase's (`echo secret > file`).
      passphrase = (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
    } catch (error) {
      throw new Error(`cannot read --passphrase-file ${file}: ${(error as Error).message}`);
    }
    if (passphrase === '') throw new Error(`--passphrase-file ${file} is empty`);
  } else if (env['ENGRAM_PASSPHRASE'] !== undefined) {
    passphrase = env['ENGRAM_PASSPHRASE'];
    if (passphrase === '') throw new Error('ENGRAM_PASSPHRASE is set but empty');
  }
  return passphrase === undefined ? {} : { encryption: { passphrase } };
}
