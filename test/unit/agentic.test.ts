/**
 * Agentic retrieval with a scripted LLM double: the sufficiency check, the rules for
 * supplementary queries, round 2's fusion, and every degraded path reported as a notice.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/index.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { Embedder, Reranker, RerankCandidate } from '../../src/models/ports.js';
import { acceptQueries, RERANK_CHILDREN, RERANK_HEAD, RERANK_UNITS, rerankUnits } from '../../src/search/agentic.js';
import type { UnitCandidate } from '../../src/search/episode-track.js';
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

  it('fuses the reranker\'s order with hybrid\'s by RRF, scores following places, and shows it each episode\'s best lines', async () => {
    const seen: RerankCandidate[][] = [];
    const rerankerDouble: Reranker = {
      id: 'prefers-cello-double',
      async rerank(_query, candidates) {
        seen.push([...candidates]);
        // Cello first, the dog last: hybrid's second place loses to what the reranker puts first.
        const order = ['cello', 'Lisbon', 'sourdough', 'engineer', 'dog'];
        return candidates.map((c) => ({ id: c.id, score: 1 - Math.max(0, order.findIndex((w) => c.text.includes(w))) / 10 }));
      },
    };
    const { memory } = await memoryWith([sufficient], rerankerDouble);
    const query = 'Where am I flying in March?';
    const hybrid = await memory.search({ user_id: 'u1', query, method: 'hybrid', top_k: 5, radius: 0 });
    const { response, trace } = await memory.searchWithTrace({ user_id: 'u1', query, method: 'agentic', top_k: 5, radius: 0 });

    expect(seen.length).toBe(1);
    const hybridOrder = hybrid.data.episodes.map((e) => e.id);
    const agenticOrder = response.data.episodes.map((e) => e.id);
    const cello = response.data.episodes.find((e) => e.episode.includes('cello'))!.id;
    // Hybrid's best stays first (both lists put it high); the reranker's favourite rises.
    expect(agenticOrder[0]).toBe(hybridOrder[0]);
    expect(agenticOrder.indexOf(cello)).toBeLessThan(hybridOrder.indexOf(cello));
    expect(new Set(agenticOrder)).toEqual(new Set(hybridOrder));
    // Scores follow places: the i-th episode shows hybrid's i-th calibrated score.
    expect(response.data.episodes.map((e) => e.score)).toEqual(hybrid.data.episodes.map((e) => e.score));
    // An episode is shown to the reranker as its subject and at most RERANK_CHILDREN best lines.
    for (const candidate of seen[0]!) {
      const lines = candidate.text.split('\n');
      expect(lines.length).toBeLessThanOrEqual(1 + RERANK_CHILDREN);
    }
    expect(seen[0]!.some((c) => c.text.split('\n').some((line) => line.includes('cello')))).toBe(true);
    expect(trace.notices.map((n) => n.code)).not.toContain('agentic.no_reranker');
  });
});

describe('rerankUnits', () => {
  const unit = (id: string, score: number): UnitCandidate => ({ record: { id, kind: 'atomic_fact', content: id } as never, score, children: [] } as unknown as UnitCandidate);
  const pool = Array.from({ length: RERANK_UNITS + 5 }, (_, i) => unit(`u${i}`, 1 - i / 100));
  const reversing: Reranker = { id: 'reversing-double', rerank: async (_q, c) => [...c].reverse().map((x, i) => ({ id: x.id, score: 1 - i / 100 })) };

  it('reranks only the first RERANK_UNITS, keeps the first RERANK_HEAD, fuses the rest by RRF and keeps the calibrated scores by place', async () => {
    const handed: number[] = [];
    const counting: Reranker = { id: 'counting-double', rerank: async (q, c) => (handed.push(c.length), reversing.rerank(q, c)) };
    const out = await rerankUnits(counting, 'q', pool, pool.length, {});
    expect(handed).toEqual([RERANK_UNITS]);
    expect(out.map((c) => c.score)).toEqual(pool.map((c) => c.score));
    // The best stays first; a full reversal of the rest ties under RRF; the tail keeps its order after the head.
    expect(out.slice(0, RERANK_HEAD).map((c) => c.record.id)).toEqual(['u0']);
    expect(new Set(out.slice(0, RERANK_UNITS).map((c) => c.record.id))).toEqual(new Set(pool.slice(0, RERANK_UNITS).map((c) => c.record.id)));
    expect(out.slice(RERANK_UNITS).map((c) => c.record.id)).toEqual(pool.slice(RERANK_UNITS).map((c) => c.record.id));
  });

  it('keeps the calibrated order when the reranker fails, and says so', async () => {
    const notices: string[] = [];
    const failing: Reranker = { id: 'failing-double', rerank: () => Promise.reject(new Error('session lost')) };
    const out = await rerankUnits(failing, 'q', [...pool].reverse(), 3, {}, (code) => notices.push(code));
    expect(out.map((c) => c.record.id)).toEqual(['u0', 'u1', 'u2']);
    expect(notices).toEqual(['agentic.reranker_failed']);
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
