/**
 * What the Worker and its Durable Object receive as `env`, typed structurally: only the members
 * used here, so the code type-checks without the platform's global types and tests can pass
 * doubles for any binding.
 */
import type { WorkersAiBinding } from '../src/models/workers-ai-embedder.js';
import type { DurableSqlStorage } from '../src/store/durable-object-store.js';

/** A fetch-style binding: a Durable Object stub, a service, the static-assets binding. */
export interface FetcherLike {
  fetch(input: Request | string, init?: RequestInit): Promise<Response>;
}

/** The Durable Object namespace binding (`env.MEMORY`). */
export interface MemoryNamespace {
  idFromName(name: string): object;
  get(id: object): FetcherLike;
}

/** The members of `ctx` (DurableObjectState) the memory object uses. */
export interface MemoryObjectState {
  readonly id: { readonly name?: string | undefined; toString(): string };
  readonly storage: DurableSqlStorage;
}

export interface EdgeEnv {
  /** One Durable Object per (app_id, project_id) tenancy. */
  MEMORY: MemoryNamespace;
  /** Secret: JSON object mapping sha256(key) in hex to {app_id, project_id}. */
  API_KEYS?: string;
  /** `static` (default: the bundled model, served from ASSETS) or `workers-ai` (needs AI). */
  EMBEDDER?: string;
  /** Static assets binding holding model.bin. */
  ASSETS?: FetcherLike;
  /** Workers AI binding, used when EMBEDDER = workers-ai. */
  AI?: WorkersAiBinding;
  /** Workers AI embedding model (default @cf/baai/bge-small-en-v1.5). */
  AI_EMBEDDING_MODEL?: string;
  /** OpenAI-compatible LLM for agentic search and LLM rerank, when set. */
  LLM_BASE_URL?: string;
  LLM_MODEL?: string;
  LLM_API_KEY?: string;
  /** Secret: base64 of 32 bytes; when set, every object's storage is sealed with AES-256-GCM (docs/encryption.md). */
  ENGRAM_ENCRYPTION_KEY?: string;
}
