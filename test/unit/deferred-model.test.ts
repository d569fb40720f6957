/** The stand-ins for a loading LLM or reranker: unavailable until loaded, then the model; a failed load stays a typed error. */
import { describe, expect, it } from 'vitest';
import { createMemory } from '../../src/index.js';
import { createDeferredLlm, createDeferredReranker } from '../../src/models/deferred-model.js';
import { MemoryError } from '../../src/errors.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';
import { scriptedLlmDouble } from '../support/scripted-llm.js';

describe('deferred LLM', () => {
  it('answers MODEL_UNAVAILABLE while loading, then delegates to the loaded model', async () => {
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const deferred = createDeferredLlm('webllm:test', async () => {
      await gate;
      return scriptedLlmDouble(['hello']);
    });
    expect(deferred.state()).toBe('loading');
    await expect(deferred.complete({ messages: [] })).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE', details: { reason: 'loading' } });
    finish();
    expect(await deferred.ready).toBe('ready');
    expect(await deferred.complete({ messages: [] })).toBe('hello');
  });

  it('keeps the load failure as a typed error, and the engine degrades with notices', async () => {
    const deferred = createDeferredLlm('webllm:missing', async () => {
      throw new MemoryError('WEBGPU_UNAVAILABLE');
    });
    expect(await deferred.ready).toBe('failed');
    expect(deferred.error()?.code).toBe('WEBGPU_UNAVAILABLE');
    await expect(deferred.complete({ messages: [] })).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE', details: { reason: 'WEBGPU_UNAVAILABLE' } });

    const notices: string[] = [];
    const memory = await createMemory({ embedder: hashEmbedderDouble(), llm: deferred, onNotice: (n) => notices.push(n.code) });
    await memory.add({ session_id: 's', messages: [{ sender_id: 'u', role: 'user', timestamp: Date.UTC(2026, 0, 5), content: 'I keep bees on my roof.' }] });
    await memory.flush({ session_id: 's' });
    const { trace, response } = await memory.searchWithTrace({ user_id: 'u', query: 'bees', method: 'agentic' });
    expect(response.data.episodes).toHaveLength(1);
    expect(trace.rounds).toBe(1);
    expect(notices).toEqual(['extract.fallback', 'agentic.no_reranker', 'agentic.llm_failed']);
  });
});

describe('deferred reranker', () => {
  const reverse = { id: 'reverse', rerank: async (_q: string, candidates: readonly { id: string }[]) => candidates.map((c, i) => ({ id: c.id, score: i / candidates.length })) };

  it('keeps hybrid\'s order while loading, with a notice, then reranks once loaded', async () => {
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const deferred = createDeferredReranker('teacher:test', async () => {
      await gate;
      return reverse;
    });
    await expect(deferred.rerank('q', [{ id: 'a', text: 'a' }])).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE', details: { reason: 'loading' } });
    const notices: string[] = [];
    const memory = await createMemory({ embedder: hashEmbedderDouble(), reranker: deferred, onNotice: (n) => notices.push(n.code) });
    await memory.add({ session_id: 's', messages: [{ sender_id: 'u', role: 'user', timestamp: Date.UTC(2026, 0, 5), content: 'I keep bees on my roof.' }] });
    await memory.flush({ session_id: 's' });
    const before = await memory.search({ user_id: 'u', query: 'bees', method: 'agentic' });
    expect(before.data.episodes).toHaveLength(1);
    expect(notices).toContain('agentic.reranker_failed');
    finish();
    expect(await deferred.ready).toBe('ready');
    expect(await deferred.rerank('q', [{ id: 'a', text: 'a' }, { id: 'b', text: 'b' }])).toEqual([{ id: 'a', score: 0 }, { id: 'b', score: 0.5 }]);
    await memory.close();
  });

  it('keeps the load failure as a typed error', async () => {
    const deferred = createDeferredReranker('teacher:missing', async () => {
      throw new MemoryError('MODEL_UNAVAILABLE', { message: 'no weights' });
    });
    expect(await deferred.ready).toBe('failed');
    expect(deferred.state()).toBe('failed');
    await expect(deferred.rerank('q', [{ id: 'a', text: 'a' }])).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE', details: { reason: 'MODEL_UNAVAILABLE' } });
  });
});
