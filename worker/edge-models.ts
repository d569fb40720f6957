/**
 * The models of the edge host, chosen from `env`. The default embedder is the bundled static
 * model run in plain TypeScript (onnxruntime-web crashes workerd); its 9.5 MB file is a static
 * asset, not part of the Worker bundle, read through the ASSETS binding once per isolate.
 * `EMBEDDER=workers-ai` uses a Workers AI binding instead; `LLM_BASE_URL` adds an
 * OpenAI-compatible LLM.
 *
 * Only the model files needed here are imported (never load-static-model.ts or index.ts): their
 * lazy imports would pull onnxruntime-web and WebLLM into the bundle.
 */
import { MemoryError, wrapError } from '../src/errors.js';
import { createOpenAiCompatibleLlm } from '../src/models/openai-compatible-llm.js';
import type { Embedder, Llm } from '../src/models/ports.js';
import { createStaticEmbedder, type StaticEmbedder } from '../src/models/static-embedder.js';
import { parseStaticModel } from '../src/models/static-model.js';
import { createWorkersAiEmbedder } from '../src/models/workers-ai-embedder.js';
import type { EdgeEnv, FetcherLike } from './edge-env.js';

/** Where model.bin lives among the static assets (the assets directory is models/static-en). */
export const MODEL_ASSET_URL = 'https://assets.local/model.bin';

let staticEmbedder: Promise<StaticEmbedder> | undefined;

/** The bundled static model read from the ASSETS binding, once per isolate (a failure is retried next call). */
export function staticEmbedderFromAssets(assets: FetcherLike): Promise<StaticEmbedder> {
  staticEmbedder ??= (async () => {
    let response: Response;
    try {
      response = await assets.fetch(MODEL_ASSET_URL);
    } catch (error) {
      throw wrapError(error, 'MODEL_UNAVAILABLE', 'cannot read model.bin from the ASSETS binding');
    }
    if (!response.ok) throw new MemoryError('MODEL_UNAVAILABLE', { message: `model.bin is not among the static assets (HTTP ${response.status})`, details: { status: response.status } });
    return createStaticEmbedder(parseStaticModel(new Uint8Array(await response.arrayBuffer())));
  })().catch((error: unknown) => {
    staticEmbedder = undefined;
    throw error;
  });
  return staticEmbedder;
}

/** The embedder named by EMBEDDER (default `static`); MODEL_UNAVAILABLE when its binding is missing. */
export async function edgeEmbedder(env: EdgeEnv): Promise<Embedder> {
  const kind = (env.EMBEDDER ?? 'static').trim().toLowerCase() || 'static';
  if (kind === 'workers-ai') {
    if (!env.AI) throw new MemoryError('MODEL_UNAVAILABLE', { message: 'EMBEDDER=workers-ai needs an AI binding ([ai] binding = "AI" in wrangler.toml)' });
    return createWorkersAiEmbedder({ ai: env.AI, ...(env.AI_EMBEDDING_MODEL ? { model: env.AI_EMBEDDING_MODEL } : {}) });
  }
  if (kind === 'static') {
    if (!env.ASSETS) throw new MemoryError('MODEL_UNAVAILABLE', { message: 'the static embedder needs the ASSETS binding holding model.bin' });
    return staticEmbedderFromAssets(env.ASSETS);
  }
  throw new MemoryError('MODEL_UNAVAILABLE', { message: `EMBEDDER must be "static" or "workers-ai", not "${kind}"` });
}

/** The OpenAI-compatible LLM when LLM_BASE_URL is set, otherwise none. */
export function edgeLlm(env: EdgeEnv): Llm | null {
  const baseUrl = env.LLM_BASE_URL?.trim();
  if (!baseUrl) return null;
  return createOpenAiCompatibleLlm({ baseUrl, model: env.LLM_MODEL?.trim() || 'default', ...(env.LLM_API_KEY ? { apiKey: env.LLM_API_KEY } : {}) });
}
