import { describe, expect, it } from 'vitest';
import { isMemoryError } from '../../src/errors.js';
import { createLlmReranker } from '../../src/models/llm-reranker.js';
import type { RerankCandidate } from '../../src/models/ports.js';
import { scriptedLlmDouble } from '../support/scripted-llm.js';

const candidates: RerankCandidate[] = [
  { id: 'ep-9f1c', text: 'Alice adopted a beagle named Rufus in March.' },
  { id: 'fact-77', text: 'Alice works as a nurse\nat the city hospital.' },
  { id: 'ep-0002', text: 'The weather was rainy all week.' },
];

describe('createLlmReranker', () => {
  it('scores every candidate in one call and sorts best first', async () => {
    const llm = scriptedLlmDouble(['{"scores": [{"id": "p1", "score": 0.2}, {"id": "p2", "score": 0.9}, {"id": "p3", "score": 0.05}]}']);
    const reranker = createLlmReranker(llm);
    const result = await reranker.rerank('What does Alice do for work?', candidates);

    expect(result).toEqual([
      { id: 'fact-77', score: 0.9 },
      { id: 'ep-9f1c', score: 0.2 },
      { id: 'ep-0002', score: 0.05 },
    ]);
    expect(llm.requests).toHaveLength(1);
    const prompt = llm.requests[0]?.messages.map((m) => m.content).join('\n') ?? '';
    expect(prompt).toContain('What does Alice do for work?');
    expect(prompt).toContain('[p2] Alice works as a nurse at the city hospital.');
    expect(llm.requests[0]?.jsonSchema).toMatchObject({ required: ['scores'] });
    expect(llm.requests[0]?.temperature).toBe(0);
    expect(reranker.id).toBe('llm-rerank:scripted-llm-double');
  });

  it('gives 0 to candidates the model left out and clamps scores to 0..1', async () => {
    const llm = scriptedLlmDouble(['{"scores": [{"id": "p1", "score": 1.7}, {"id": "p3", "score": -0.4}, {"id": "p9", "score": 0.8}]}']);
    const result = await createLlmReranker(llm).rerank('pets', candidates);

    expect(result).toEqual([
      { id: 'ep-9f1c', score: 1 },
      { id: 'fact-77', score: 0 },
      { id: 'ep-0002', score: 0 },
    ]);
  });

  it('accepts bracketed labels and numeric strings, first grade wins', async () => {
    const llm = scriptedLlmDouble(['```json\n{"scores": [{"id": "[p3]", "score": "0.6"}, {"id": "p3", "score": 0.1}, {"id": "p2", "score": 0.3}]}\n```']);
    const result = await createLlmReranker(llm).rerank('weather', candidates);

    expect(result).toEqual([
      { id: 'ep-0002', score: 0.6 },
      { id: 'fact-77', score: 0.3 },
      { id: 'ep-9f1c', score: 0 },
    ]);
  });

  it('keeps input order among equal scores', async () => {
    const llm = scriptedLlmDouble(['{"scores": []}']);
    const result = await createLlmReranker(llm).rerank('anything', candidates);

    expect(result.map((r) => r.id)).toEqual(['ep-9f1c', 'fact-77', 'ep-0002']);
  });

  it('does not call the model for no candidates', async () => {
    const llm = scriptedLlmDouble([]);

    expect(await createLlmReranker(llm).rerank('q', [])).toEqual([]);
    expect(llm.requests).toHaveLength(0);
  });

  it('cuts long candidate texts to maxCandidateChars', async () => {
    const llm = scriptedLlmDouble(['{"scores": [{"id": "p1", "score": 0.5}]}']);
    await createLlmReranker(llm, { maxCandidateChars: 10 }).rerank('q', [{ id: 'long', text: 'x'.repeat(5_000) }]);

    expect(llm.requests[0]?.messages[1]?.content).toContain(`[p1] ${'x'.repeat(10)}…`);
    expect(llm.requests[0]?.messages[1]?.content).not.toContain('x'.repeat(11));
  });

  it('passes the caller signal to the model and fails with LLM_BAD_OUTPUT on unusable answers', async () => {
    const llm = scriptedLlmDouble(['no idea', '{"scores": [{"id": 3}]}']);
    const signal = new AbortController().signal;
    const error: unknown = await createLlmReranker(llm).rerank('q', candidates, { signal }).catch((e: unknown) => e);

    expect(isMemoryError(error) && error.code).toBe('LLM_BAD_OUTPUT');
    expect(llm.requests[0]?.signal).toBe(signal);
    expect(llm.requests).toHaveLength(2);
  });
});
