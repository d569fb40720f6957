/**
 * Opens the memory kept in a data directory the way every command of the CLI does (`serve`,
 * `mcp`, `export`, `import`): the SQLite store, the passphrase of `--passphrase-file` or
 * ENGRAM_PASSPHRASE, the bundled embedding model and, when ENGRAM_LLM_BASE_URL is set, an
 * OpenAI-compatible LLM. Notices go to stderr (stdout may belong to a protocol, MCP over stdio),
 * each distinct one at most once a minute (notice-log.ts).
 */
import { createMemory, type Memory } from '../engine.js';
import { createDefaultEmbedder } from '../models/load-static-model.js';
import { createOpenAiCompatibleLlm } from '../models/openai-compatible-llm.js';
import { createNoticeLog } from './notice-log.js';
import { serveEncryption } from '../store/encryption-source.js';
import { createSqliteStore } from '../store/sqlite-store.js';

/** The memory in `data`; `args` is the command line (for `--passphrase-file`). */
export async function openDataDirectory(data: string, args: string[], env: Record<string, string | undefined> = process.env): Promise<Memory> {
  const baseUrl = env['ENGRAM_LLM_BASE_URL'];
  const apiKey = env['ENGRAM_LLM_API_KEY'];
  const llm = baseUrl ? createOpenAiCompatibleLlm({ baseUrl, model: env['ENGRAM_LLM_MODEL'] ?? 'default', ...(apiKey ? { apiKey } : {}) }) : null;
  return createMemory({
    store: await createSqliteStore(data),
    ...(await serveEncryption(args, env)),
    embedder: await createDefaultEmbedder(),
    llm,
    onNotice: createNoticeLog((line) => console.warn(line)),
  });
}
