/**
 * `npm run serve -- --port 8787 --data ./.engram`: the EverOS HTTP API over a memory kept in a
 * directory, with the bundled on-device embedding model. Set ENGRAM_LLM_BASE_URL (and
 * ENGRAM_LLM_MODEL, ENGRAM_LLM_API_KEY) to use an OpenAI-compatible LLM for agentic search.
 */
import { parseArgs } from 'node:util';
import { createMemory } from '../engine.js';
import { createDefaultEmbedder } from '../models/load-static-model.js';
import { createOpenAiCompatibleLlm } from '../models/openai-compatible-llm.js';
import { createFileStore } from '../store/file-store.js';
import { createFetchHandler } from './handler.js';
import { startNodeServer } from './node-server.js';

const HELP = `Usage: npm run serve -- [--port 8787] [--host 127.0.0.1] [--data ./.engram]

  --port   TCP port (default 8787; 0 picks a free one)
  --host   interface to listen on (default 127.0.0.1: this machine only)
  --data   directory holding the memory (created if missing; default ./.engram)
  --tablestore          also serve Tablestore's POST /SearchMemories (memoryStoreName = project_id)
  --breeth-user ID      also serve Breeth's POST /v1/search over user ID's memory (group_id = project_id)

Environment: ENGRAM_LLM_BASE_URL, ENGRAM_LLM_MODEL, ENGRAM_LLM_API_KEY for an OpenAI-compatible LLM.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8787' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string', default: './.engram' },
      tablestore: { type: 'boolean', default: false },
      'breeth-user': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, not ${values.port}`);
  const baseUrl = process.env['ENGRAM_LLM_BASE_URL'];
  const apiKey = process.env['ENGRAM_LLM_API_KEY'];
  const llm = baseUrl
    ? createOpenAiCompatibleLlm({ baseUrl, model: process.env['ENGRAM_LLM_MODEL'] ?? 'default', ...(apiKey ? { apiKey } : {}) })
    : null;
  const memory = await createMemory({
    store: await createFileStore(values.data!),
    embedder: await createDefaultEmbedder(),
    llm,
    onNotice: (n) => console.warn(`[engram] ${n.code}: ${n.message}`),
  });
  const server = await startNodeServer({
    port,
    host: values.host!,
    handler: createFetchHandler(memory, {
      onError: (e) => console.error('[engram] unexpected error', e),
      dialects: {
        ...(values.tablestore ? { tablestore: {} } : {}),
        ...(values['breeth-user'] ? { breeth: { owner: { user_id: values['breeth-user'] } } } : {}),
      },
    }),
  });
  const stats = memory.stats();
  console.log(`Engram listening on ${server.url}  (data: ${values.data}, ${stats.records} records, embedder ${stats.embedder.id}, llm ${stats.llm ?? 'none'})`);
  const stop = async () => {
    await server.close();
    await memory.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
