/**
 * Agentic retrieval with a scripted LLM double: the sufficiency check, the rules for
 * supplementary queries, round 2's fusion, and every degraded path reported as a notice.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/index.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { Embedder, Reranker } from '../../src/models/ports.js';
import { acceptQueries } from '../../src/search/agentic.js';
import { scriptedLlmDouble, type ScriptStep } from '../support/scripted-llm.js';

const T0 = Date.UTC(2026, 9, 1, 9);
let embedder: Embedder;

const sessions: [string, string][] = [
  ['trip', 'I booked flights to Lisbon for the conference in March.'],
  ['pet', 'My dog Biscuit learned to open the fridge door last week.'],
  ['work', 'I started a new job as a data engineer at a logistics company.'],
  ['food', 'I have been baking sourdough bread every Sunday morning.'],
  ['music', 'I am practising the cello for a recital at the community hall.'],
];

async function memoryWith(script: ScriptStep[], reranker?: Reranker): Promise<{ memory: Memory; llm: ReturnType<typeof scriptedLlmDouble> }> {
  const llm = scriptedLlmDouble(script);
  // The LLM double answers extraction too unless an extractor is pinned: use the rules here.
  const { createRulesExtractor } = await import('../../src/write/rules-extractor.js');
  const memory = await createMemory({ embedder, llm, extractor: createRulesExtractor(), ...(reranker ? { reranker } : {}) });
  for (const [i, [session, text]] of sessions.entries()) {
    await memory.add({ session_id: session, messages: [{ sender_id: 'u1', role: 'user', timestamp: T0 + i * 86_400_000, content: text }] });
    await memory.flush({ session_id: session });
  }
  return { memory, llm };
}

const sufficient = JSON.stringify({ is_sufficient: true, reasoning: 'the flight is there', missing_information: '' });
const insufficient = JSON.stringify({ is_sufficient: false, reasoning: 'no pet found', missing_information: 'what the dog did' });

beforeAll(async () => {
  embedder = await createDefaultEmbedder();
});

describe('agentic retrieval', () => {
  it('stops after round 1 when the LLM judges the memories sufficient', async () => {
    const { memory, llm } = await memoryWith([sufficient]);
    const { response, trace } = await memory.searchWithTrace({ user_id: 'u1', query: 'Where am I flying in March?', method: 'agentic', top_k: 3 });
    expect(trace.rounds).toBe(1);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.temperature).toBe(0);
    expect(llm.requests[0]!.jsonSchema).toMatchObject({ required: ['is_sufficient', 'reasoning', 'missing_information'] });
    expect(response.data.episodes[0]!.episode).toContain('Lisbon');
    expect(trace.notices.map((n) => n.code)).not.toContain('agentic.single_round');
  });

  it('runs round 2 with the valid supplementary queries when round 1 is insufficient', async () => {
    const queries = JSON.stringify({
      queries: [
        'abc', // too short
        'Where am I flying in March?', // the original
        'x'.repeat(301), // too long
        'dog opened the fridge',
        'DOG OPENED THE FRIDGE', // a repeat
        'new job data engineer',
        'sourdough baking on Sundays',
        'cello recital', // a fourth valid one: at most three are kept
      ],
    });
    const { memory, llm } = await memoryWith([insufficient, queries]);
    const { response, trace } = await memory.searchWithTrace({ user_id: 'u1', query: 'Where am I flying in March?', method: 'agentic', top_k: 5, radius: 0 });
    expect(trace.rounds).toBe(2);
    expect(llm.requests).toHaveLength(2);
    expect(trace.supplementary_queries).toEqual(['dog opened the fridge', 'new job data engineer', 'sourdough baking on Sundays']);
    const texts = response.data.episodes.map((e) => e.episode);
    expect(texts.some((t) => t.includes('Biscuit'))).toBe(true);
    expect(texts.some((t) => t.includes('data engineer'))).toBe(true);
    expect(response.data.episodes.length).toBeLessThanOrEqual(5);
    // Deduplicated: every episode once.
    expect(new Set(response.data.episodes.map((e) => e.id)).size).toBe(response.data.episodes.length);
  });

  it('returns round 1 with a notice when no supplementary query follows the rules', async () => {
    const { memory } = await memoryWith([insufficient, JSON.stringify({ queries: ['abc', 'Where am I flying in March?'] })]);
    const { trace } = await memory.searchWithTrace({ user_id: 'u1', query: 'Where am I flying in March?', method: 'agentic', top_k: 3 });
    expect(trace.rounds).toBe(1);
    expect(trace.notices.map((n) => n.code)).toContain('agentic.no_valid_queries');
  });

  it('answers round 1 with a notice when the LLM fails, never an error', async () => {
    const { memory } = await memoryWith([new Error('boom')]);
    const { response, trace } = await memory.searchWithTrace({ user_id: 'u1', query: 'Where am I flying in March?', method: 'agentic', top_k: 3 });
    expect(trace.rounds).toBe(1);
    expect(trace.notices.map((n) => n.code)).toContain('agentic.llm_failed');
    expect(response.data.episodes.length).toBeGreaterThan(0);
  });

  it('uses the reranker in round 1 and reports its scores', async () => {
    const calls: string[][] = [];
    const rerankerDouble: Reranker = {
      id: 'prefers-cello-double',
      async rerank(_query, candidates) {
        calls.push(candidates.map((c) => c.id));
        return candidates.map((c) => ({ id: c.id, score: c.text.includes('cello') ? 0.99 : 0.1 }));
      },
    };
    const { memory } = await memoryWith([sufficient], rerankerDouble);
    const { response, trace } = await memory.searchWithTrace({ user_id: 'u1', query: 'Where am I flying in March?', method: 'agentic', top_k: 3, radius: 0 });
    expect(calls.length).toBe(1);
    expect(response.data.episodes[0]!.episode).toContain('cello');
    expect(response.data.episodes[0]!.score).toBeCloseTo(0.99, 5);
    expect(trace.notices.map((n) => n.code)).not.toContain('agentic.no_reranker');
  });
});

describe('acceptQueries', () => {
  it('keeps 5..300 characters, drops the original and repeats, caps at three', () => {
    expect(acceptQueries('Original?', ['four', 'five!', 'original?', 'five!', ' padded query ', 'a'.repeat(300), 'extra one'])).toEqual(['five!', 'padded query', 'a'.repeat(300)]);
    expect(acceptQueries('q', [1, null, { q: 'x' }])).toEqual([]);
  });
});

describe('reranker priming', () => {
  it('hands every new record to the reranker off the write path', async () => {
    const primed: string[] = [];
    const reranker: Reranker = {
      id: 'priming-double',
      async rerank(_q, candidates) {
        return candidates.map((c) => ({ id: c.id, score: 0.5 }));
      },
      async prime(texts) {
        primed.push(...texts);
      },
    };
    const memory = await createMemory({ embedder, reranker });
    await memory.upsertKnowledge({ user_id: 'u1', title: 'Locker', content: 'Code 4417' });
    await new Promise((r) => setTimeout(r, 0));
    expect(primed).toEqual(['Locker\nCode 4417']);
  });
});
