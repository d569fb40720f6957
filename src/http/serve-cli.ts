/**
 * `npm run serve -- --port 8787 --data ./.engram`: the EverOS HTTP API over a memory kept in a
 * directory, with the bundled on-device embedding model. Set ENGRAM_LLM_BASE_URL (and
 * ENGRAM_LLM_MODEL, ENGRAM_LLM_API_KEY) to use an OpenAI-compatible LLM for agentic search.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openDataDirectory, readRerankerChoice, type RerankerChoice } from '../cli/open-memory.js';
import { isMemoryError } from '../errors.js';
import { handleMcpRequest } from '../mcp/http.js';
import { createErrorRenderer, createFetchHandler, type HandlerOptions } from './handler.js';
import { exposureProblem, normaliseOrigin, parseHost } from './local-guard.js';
import { startNodeServer } from './node-server.js';

export const SERVE_HELP = `Usage: npm run serve -- [--port 8787] [--host 127.0.0.1] [--data ./.engram] [--token T]

  --port   TCP port (default 8787; 0 picks a free one)
  --host   interface to listen on (default 127.0.0.1: this machine only)
  --data   directory holding the memory (created if missing; default ./.engram)
  --passphrase-file PATH  encrypt the memory at rest with the passphrase in PATH (or env ENGRAM_PASSPHRASE)
  --token T             require \`Authorization: Bearer T\` on every request (default: env ENGRAM_TOKEN)
  --allow-origin URL    let web pages of this origin call the API, with CORS (repeatable; none by default)
  --allow-host NAME     also answer requests addressed to NAME or NAME:PORT, e.g. a LAN address (repeatable)
  --insecure-no-token   listen on a non-loopback --host without a token (anyone who reaches it can read and erase)
  --tablestore          also serve Tablestore's POST /SearchMemories (memoryStoreName = project_id)
  --breeth-user ID      also serve Breeth's POST /v1/search over user ID's memory (group_id = project_id)
  --reranker teacher|none  what reorders agentic search's best candidates (default teacher: Universal
                        Sentence Encoder lite on this machine's CPU, about a second for a new question)

MCP (Streamable HTTP) is served at /mcp and the OpenAPI document at /openapi.json.
Refused before any route: POST bodies that are not application/json (415), requests from a web
origin not allowed (403), a Host name this server does not answer for (421), a missing or wrong
token when one is set (401). See the README's "Security model of the Node server".

Environment: ENGRAM_TOKEN; ENGRAM_LLM_BASE_URL, ENGRAM_LLM_MODEL, ENGRAM_LLM_API_KEY for an OpenAI-compatible LLM.`;

/** What the command line asks for, checked. */
export interface ServeSettings {
  port: number;
  host: string;
  data: string;
  tablestore: boolean;
  breethUser: string | undefined;
  /** The reranker of agentic search (`--reranker`, default teacher). */
  reranker: RerankerChoice;
  token: string | undefined;
  allowOrigins: string[];
  allowHosts: string[];
}

/**
 * Reads and checks the command line (and ENGRAM_TOKEN); 'help' when help was asked for. Throws an
 * Error whose message is meant for the operator, among others when a non-loopback address would be
 * served without a token and without --insecure-no-token.
 */
export function readServeSettings(args: string[], env: Record<string, string | undefined> = process.env): ServeSettings | 'help' {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '8787' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string', default: './.engram' },
      'passphrase-file': { type: 'string' },
      token: { type: 'string' },
      'allow-origin': { type: 'string', multiple: true, default: [] },
      'allow-host': { type: 'string', multiple: true, default: [] },
      'insecure-no-token': { type: 'boolean', default: false },
      tablestore: { type: 'boolean', default: false },
      'breeth-user': { type: 'string' },
      reranker: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port!) || port > 65535) throw new Error(`--port must be 0..65535, not ${values.port}`);
  const token = values.token ?? (env['ENGRAM_TOKEN'] || undefined);
  if (token !== undefined && !/^[\x21-\x7e]{16,}$/.test(token)) throw new Error('--token (or ENGRAM_TOKEN) must be at least 16 printable ASCII characters without spaces');
  const allowOrigins = values['allow-origin']!.map(normaliseOrigin);
  for (const host of values['allow-host']!) if (!parseHost(host)) throw new Error(`--allow-host ${host} is not a host name (name or name:port)`);
  const problem = exposureProblem({ host: values.host!, token, insecureNoToken: values['insecure-no-token']! });
  if (problem) throw new Error(problem);
  return {
    port,
    host: values.host!,
    data: values.data!,
    tablestore: values.tablestore!,
    breethUser: values['breeth-user'],
    reranker: readRerankerChoice(values.reranker, 'teacher'),
    token,
    allowOrigins,
    allowHosts: values['allow-host']!,
  };
}

/** Runs the server of the command line `args` until SIGINT or SIGTERM (`engram-memory serve` and `npm run serve`). */
export async function serve(args: string[] = process.argv.slice(2)): Promise<void> {
  const settings = readServeSettings(args);
  if (settings === 'help') {
    console.log(SERVE_HELP);
    return;
  }
  const values = settings;
  const memory = await openDataDirectory(values.data, args, process.env, { reranker: values.reranker });
  const handlerOptions: HandlerOptions = {
    onError: (e) => console.error('[engram] unexpected error', e),
    mcp: handleMcpRequest,
    dialects: {
      ...(values.tablestore ? { tablestore: {} } : {}),
      ...(values.breethUser ? { breeth: { owner: { user_id: values.breethUser } } } : {}),
    },
  };
  const server = await startNodeServer({
    port: values.port,
    host: values.host,
    handler: createFetchHandler(memory, handlerOptions),
    renderError: createErrorRenderer(handlerOptions),
    allowOrigins: values.allowOrigins,
    allowHosts: values.allowHosts,
    ...(values.token !== undefined ? { token: values.token } : {}),
  });
  const stats = memory.stats();
  console.log(`Engram listening on ${server.url}  (data: ${values.data}, ${stats.records} records, embedder ${stats.embedder.id}, reranker ${stats.reranker ?? 'none'}, llm ${stats.llm ?? 'none'})`);
  const stop = async () => {
    await server.close();
    await memory.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  serve().catch((error: unknown) => {
    // The catalog code first (STORAGE_CORRUPT, ENCRYPTION_KEY_INVALID…): what an operator or a script looks for.
    console.error(isMemoryError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
