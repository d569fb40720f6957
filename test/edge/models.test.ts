/**
 * The edge models: the Workers AI embedder (against a scripted binding double, since no
 * Cloudflare account is reachable from tests), the EMBEDDER switch, and the OpenAI-compatible LLM
 * configured from env, each through a real Durable Object.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isMemoryError } from '../../src/errors.js';
import { tokenize } from '../../src/index/tokenizer.js';
import { createWorkersAiEmbedder, type WorkersAiBinding } from '../../src/models/workers-ai-embedder.js';
import type { EdgeEnv } from '../../worker/edge-env.js';
import { edgeLlm } from '../../worker/edge-models.js';
import { MemoryObject } from '../../worker/memory-object.js';
import { conversation } from './helpers.js';

const namespace = env['MEMORY'] as { idFromName(name: string): object; get(id: object): unknown };

/** A TEST DOUBLE of the Workers AI binding: words hashed into `dim` slots; records every call. */
function workersAiDouble(dim = 384, fail?: (call: number) => unknown) {
  const calls: { model: string; text: string[] }[] = [];
  const ai: WorkersAiBinding = {
    async run(model, inputs) {
      calls.push({ model, text: [...inputs.text] });
      if (fail) {
        const answer = fail(calls.length);
        if (answer instanceof Error) throw answer;
        if (answer !== undefined) return answer;
      }
      const data = inputs.text.map((text) => {
        const v = new Array<number>(dim).fill(0);
        for (const token of tokenize(text)) {
          let h = 2166136261;
          for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 16777619);
          const slot = (h >>> 0) % dim;
          v[slot] = v[slot]! + 3; // deliberately not unit length: the embedder normalises
        }
        return v;
      });
      return { shape: [data.length, dim], data };
    },
  };
  return { ai, calls };
}

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  return isMemoryError(error) ? error.code : `not a MemoryError: ${String(error)}`;
}

/** Requests to a hand-built MemoryObject over the storage of object `name`, as the Worker would send them. */
function objectRequest(name: string, route: string, body: object): Request {
  const [app_id, project_id] = name.split('/');
  return new Request(`https://engram.test/api/v1/memory/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-engram-tenancy': name },
    body: JSON.stringify({ app_id, project_id, ...body }),
  });
}

describe('Workers AI embedder', () => {
  it('batches by 100, skips blank texts, normalises and names its model', async () => {
    const { ai, calls } = workersAiDouble();
    const embedder = createWorkersAiEmbedder({ ai });
    expect(embedder.id).toBe('workers-ai:@cf/baai/bge-small-en-v1.5');
    expect(embedder.dim).toBe(384);
    const texts = Array.from({ length: 250 }, (_, i) => (i === 7 ? '   ' : `text number ${i} about cats`));
    const vectors = await embedder.embed(texts);
    expect(calls.map((c) => c.text.length)).toEqual([100, 100, 49]);
    expect(calls.every((c) => c.model === '@cf/baai/bge-small-en-v1.5')).toBe(true);
    expect(calls.flatMap((c) => c.text)).not.toContain('   ');
    expect(vectors).toHaveLength(250);
    expect(vectors[7]!.every((x) => x === 0)).toBe(true);
    const norm = Math.hypot(...vectors[0]!);
    expect(norm).toBeCloseTo(1, 5);
    expect(await embedder.embed([])).toEqual([]);
    expect(calls).toHaveLength(3);
  });

  it('wraps binding failures and malformed answers as MODEL_FAILED', async () => {
    expect(await code(createWorkersAiEmbedder({ ai: workersAiDouble(384, () => new Error('3040: capacity exceeded')).ai }).embed(['hi']))).toBe('MODEL_FAILED');
    expect(await code(createWorkersAiEmbedder({ ai: workersAiDouble(384, () => ({ shape: [1, 3], data: [[1, 2, 3]] })).ai }).embed(['hi']))).toBe('MODEL_FAILED');
    expect(await code(createWorkersAiEmbedder({ ai: workersAiDouble(384, () => ({ result: 'nope' })).ai }).embed(['hi']))).toBe('MODEL_FAILED');
    expect(await code(createWorkersAiEmbedder({ ai: workersAiDouble(384, () => ({ data: [[...new Array(383).fill(0), Number.NaN]] })).ai }).embed(['hi']))).toBe('MODEL_FAILED');
    const aborted = new AbortController();
    aborted.abort();
    expect(await code(createWorkersAiEmbedder({ ai: workersAiDouble().ai }).embed(['hi'], { signal: aborted.signal }))).toBe('ABORTED');
    expect(() => createWorkersAiEmbedder({ ai: workersAiDouble().ai, model: '@cf/some/unknown' })).toThrow(/dim/);
    expect(createWorkersAiEmbedder({ ai: workersAiDouble().ai, model: '@cf/some/unknown', dim: 16 }).dim).toBe(16);
  });

  it('serves add → flush → search in a Durable Object with EMBEDDER=workers-ai', async () => {
    const { ai, calls } = workersAiDouble();
    const name = 'ai/prod';
    const stub = namespace.get(namespace.idFromName(name));
    await runInDurableObject(stub, async (_runtime: MemoryObject, state) => {
      const object = new MemoryObject(state, { ...(env as unknown as EdgeEnv), EMBEDDER: 'workers-ai', AI: ai });
      const turns = ['I keep bees on my roof in Lisbon.', 'How many hives?', 'Three hives, and the honey is orange blossom.'];
      expect((await object.fetch(objectRequest(name, 'add', conversation('bees', 'hana', 'bot', turns)))).status).toBe(200);
      expect((await object.fetch(objectRequest(name, 'flush', { session_id: 'bees' }))).status).toBe(200);
      const response = await object.fetch(objectRequest(name, 'search', { user_id: 'hana', query: 'honey hives roof', method: 'vector', top_k: 3 }));
      expect(response.status).toBe(200);
      const body = (await response.json()) as any;
      expect(body.data.episodes[0].episode).toContain('bees');
      expect(body.data.episodes[0].score).toBeGreaterThan(0);
      const stats = await object.stats();
      expect(stats.embedder).toEqual({ id: 'workers-ai:@cf/baai/bge-small-en-v1.5', dim: 384 });
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.at(-1)!.text).toEqual(['honey hives roof']);
    });
  });

  it('a missing AI binding or an unknown EMBEDDER is 503 MODEL_UNAVAILABLE, and the next request retries', async () => {
    const name = 'noai/prod';
    await runInDurableObject(namespace.get(namespace.idFromName(name)), async (_runtime: MemoryObject, state) => {
      for (const EMBEDDER of ['workers-ai', 'word2vec']) {
        const object = new MemoryObject(state, { ...(env as unknown as EdgeEnv), EMBEDDER });
        const response = await object.fetch(objectRequest(name, 'search', { user_id: 'u', query: 'q' }));
        expect(response.status).toBe(503);
        expect(((await response.json()) as any).code).toBe('MODEL_UNAVAILABLE');
        expect(object.opened).toBe(false);
      }
    });
  });
});

describe('OpenAI-compatible LLM from env', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is configured only when LLM_BASE_URL is set', () => {
    const base = env as unknown as EdgeEnv;
    expect(edgeLlm(base)).toBeNull();
    expect(edgeLlm({ ...base, LLM_BASE_URL: '  ' })).toBeNull();
    expect(edgeLlm({ ...base, LLM_BASE_URL: 'https://llm.test/v1', LLM_MODEL: 'tiny' })?.id).toBe('openai-compatible:tiny');
  });

  it('extraction and agentic search call it from inside the Durable Object', async () => {
    const seen: { url: string; auth: string | null; body: any }[] = [];
    const realFetch = globalThis.fetch;
    // A scripted double of the LLM server: only its URL is intercepted.
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input as RequestInfo, init);
      if (!request.url.startsWith('https://llm.test/')) return realFetch(input as RequestInfo, init);
      seen.push({ url: request.url, auth: request.headers.get('authorization'), body: await request.json() });
      // Answers the sufficiency check; anything else (extraction) gets an answer it must fall back from.
      const content = JSON.stringify({ is_sufficient: true, reasoning: 'enough', missing_information: '' });
      return Response.json({ choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
    });
    const name = 'llm/prod';
    await runInDurableObject(namespace.get(namespace.idFromName(name)), async (_runtime: MemoryObject, state) => {
      const object = new MemoryObject(state, { ...(env as unknown as EdgeEnv), LLM_BASE_URL: 'https://llm.test/v1', LLM_MODEL: 'tiny', LLM_API_KEY: 'sk-double' });
      await object.fetch(objectRequest(name, 'add', conversation('s', 'ivan', 'bot', ['I moved to Oslo in March.', 'Welcome to Norway!'])));
      await object.fetch(objectRequest(name, 'flush', { session_id: 's' }));
      const response = await object.fetch(objectRequest(name, 'search', { user_id: 'ivan', query: 'where did Ivan move', method: 'agentic', top_k: 3 }));
      expect(response.status).toBe(200);
      expect(((await response.json()) as any).data.episodes[0].episode).toContain('Oslo');
      expect((await object.stats()).llm).toBe('openai-compatible:tiny');
    });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const call of seen) {
      expect(call.url).toBe('https://llm.test/v1/chat/completions');
      expect(call.auth).toBe('Bearer sk-double');
      expect(call.body.model).toBe('tiny');
    }
    expect(seen.filter((call) => JSON.stringify(call.body.response_format ?? {}).includes('is_sufficient'))).toHaveLength(1);
  });
});
