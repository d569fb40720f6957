/**
 * Opens the memory kept in a data directory the way every command of the CLI does (`serve`,
 * `mcp`, `export`, `import`): the SQLite store, the passphrase of `--passphrase-file` or
 * ENGRAM_PASSPHRASE, the bundled embedding model and, when ENGRAM_LLM_BASE_URL is set, an
 * OpenAI-compatible LLM; for the commands that search (`serve`, `mcp`), the teacher reranker for
 * agentic search unless `--reranker none` says otherwise. Notices go to stderr (stdout may belong
 * to a protocol, MCP over stdio), each distinct one at most once a minute (notice-log.ts).
 */
import { createMemory, type Memory } from '../engine.js';
import { createDefaultEmbedder } from '../models/load-static-model.js';
import { createOpenAiCompatibleLlm } from '../models/openai-compatible-llm.js';
import type { Reranker } from '../models/ports.js';
import { createTeacherReranker } from '../models/teacher-reranker.js';
import { isMemoryError } from '../errors.js';
import type { Notice } from '../search/search.js';
import { createNoticeLog } from './notice-log.js';
import { serveEncryption } from '../store/encryption-source.js';
import { createSqliteStore } from '../store/sqlite-store.js';

/** The rerankers a command line can name with `--reranker`. */
export const RERANKER_CHOICES = ['teacher', 'none'] as const;
export type RerankerChoice = (typeof RERANKER_CHOICES)[number];

/** A `--reranker` value, or an Error whose message is meant for the operator. */
export function readRerankerChoice(value: string | undefined, fallback: RerankerChoice): RerankerChoice {
  if (value === undefined) return fallback;
  if (!(RERANKER_CHOICES as readonly string[]).includes(value)) throw new Error(`--reranker must be ${RERANKER_CHOICES.join(' or ')}, not ${value}`);
  return value as RerankerChoice;
}

/**
 * The teacher as the CLI holds it: Universal Sentence Encoder lite on this machine's CPU (an
 * optional dependency, loaded in about a second), with `rerank` only. It is handed no records as
 * they are written (no `prime`): embedding every new fact would slow every write for the sake of
 * searches that may never come, so an agentic search embeds what it has not seen yet (about a
 * second the first time, a few milliseconds once its facts are cached). MODEL_UNAVAILABLE when
 * its package cannot load.
 */
export async function createUnprimedTeacher(): Promise<Reranker> {
  const teacher = await createTeacherReranker({ split: 'line' });
  return { id: teacher.id, rerank: (query, candidates, options) => teacher.rerank(query, candidates, options) };
}

/**
 * The reranker agentic search uses, or null. A teacher that cannot load leaves agentic search
 * with hybrid's order, said through `notice` (`reranker.unavailable`), never a failed start.
 */
export async function loadReranker(choice: RerankerChoice, notice: (notice: Notice) => void, create: () => Promise<Reranker> = createUnprimedTeacher): Promise<Reranker | null> {
  if (choice === 'none') return null;
  try {
    return await create();
  } catch (error) {
    notice({ code: 'reranker.unavailable', message: `the teacher reranker did not load (${isMemoryError(error) ? error.code : 'error'}); agentic search keeps the hybrid order (--reranker none hides this line)` });
    return null;
  }
}

/** What opening a data directory may add to the defaults. */
export interface OpenDataOptions {
  /** The reranker for agentic search (default none: `export` and `import` never search). */
  reranker?: RerankerChoice;
}

/** The memory in `data`; `args` is the command line (for `--passphrase-file`). */
export async function openDataDirectory(data: string, args: string[], env: Record<string, string | undefined> = process.env, options: OpenDataOptions = {}): Promise<Memory> {
  const baseUrl = env['ENGRAM_LLM_BASE_URL'];
  const apiKey = env['ENGRAM_LLM_API_KEY'];
  const llm = baseUrl ? createOpenAiCompatibleLlm({ baseUrl, model: env['ENGRAM_LLM_MODEL'] ?? 'default', ...(apiKey ? { apiKey } : {}) }) : null;
  const notices = createNoticeLog((line) => console.warn(line));
  const reranker = await loadReranker(options.reranker ?? 'none', notices);
  return createMemory({
    store: await createSqliteStore(data),
    ...(await serveEncryption(args, env)),
    embedder: await createDefaultEmbedder(),
    llm,
    reranker,
    onNotice: notices,
  });
}
