/**
 * Granularity competition (`competeGranularity`): the best `size` episodes form the list, and up
 * to 3 facts of each listed episode win a place under it when there is room or they beat the
 * lowest item; an episode keeps its own score, and no fact brings in an episode from outside.
 */
import { describe, expect, it } from 'vitest';
import { createMemory } from '../../src/engine.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { AtomicFactRecord, EpisodeRecord } from '../../src/records.js';
import type { ScoredChild, UnitCandidate } from '../../src/search/episode-track.js';
import { competeGranularity, FACTS_PER_EPISODE, type CompetitionWinner } from '../../src/search/granularity.js';
import { MINUTE, MONDAY_9AM, remember, said } from '../support/conversations.js';

function episode(id: string): EpisodeRecord {
  return {
    id, kind: 'episode', app_id: 'default', project_id: 'default', owner_type: 'user', owner_id: 'u', session_id: 's', timestamp: 0, created_at: 0, updated_at: 0,
    sender_ids: ['u'], source_message_ids: [], parent_type: 'memcell', parent_id: 'mc', vector: null, vector_model: null, subject: id, summary: id, episode: id,
  };
}

function fact(id: string, parent: string, score: number): ScoredChild {
  const record = {
    id, kind: 'atomic_fact', app_id: 'default', project_id: 'default', owner_type: 'user', owner_id: 'u', session_id: 's', timestamp: 0, created_at: 0, updated_at: 0,
    sender_ids: ['u'], source_message_ids: [], parent_type: 'episode', parent_id: parent, vector: null, vector_model: null, content: id, evidence: id,
  } as AtomicFactRecord;
  return { record, cos: score, bm25: 0, fused: score, score };
}

/** A candidate episode with its own score and its facts' scores (given best first). */
function candidate(id: string, score: number, factScores: number[] = []): UnitCandidate {
  return {
    record: episode(id), cos: score, bm25: 0, fused: score, score, legs: ['vector'],
    children: factScores.map((s, i) => fact(`${id}.f${i + 1}`, id, s)),
    population: 10,
  };
}

/** The result as `[episode id, score, [fact ids]]`, in order. */
const view = (winners: CompetitionWinner[]) => winners.map((w) => [w.candidate.record.id, w.score, w.facts.map((f) => f.record.id)]);

describe('competeGranularity', () => {
  it('a fact of an episode outside the list never evicts an episode', () => {
    const winners = competeGranularity([candidate('A', 0.8), candidate('B', 0.3), candidate('C', 0.2, [0.9, 0.5])], 2);
    expect(view(winners)).toEqual([
      ['A', 0.8, []],
      ['B', 0.3, []],
    ]);
  });

  it('a fact that beats the lowest item is nested under its episode; one that does not stays out', () => {
    const winners = competeGranularity([candidate('A', 0.8, [0.5, 0.25]), candidate('B', 0.3, [0.2]), candidate('C', 0.2, [0.9])], 2);
    expect(view(winners)).toEqual([
      ['A', 0.8, ['A.f1']],
      ['B', 0.3, []],
    ]);
  });

  it('a fact equal to the lowest does not win', () => {
    expect(view(competeGranularity([candidate('A', 0.8, [0.3]), candidate('B', 0.3)], 2))).toEqual([
      ['A', 0.8, []],
      ['B', 0.3, []],
    ]);
  });

  it('an episode keeps its own score when its facts win', () => {
    // Its evidence already counts its best fact: the fact adds detail, not a second vote.
    expect(view(competeGranularity([candidate('A', 0.9, [0.7]), candidate('B', 0.3)], 2))).toEqual([
      ['A', 0.9, ['A.f1']],
      ['B', 0.3, []],
    ]);
    expect(view(competeGranularity([candidate('A', 0.6, [0.95, 0.92]), candidate('B', 0.5)], 2))).toEqual([
      ['A', 0.6, ['A.f1', 'A.f2']],
      ['B', 0.5, []],
    ]);
  });

  it('every fact wins while the list is not full', () => {
    // One candidate for five places: the list has room, so its facts get in whatever their score.
    expect(view(competeGranularity([candidate('A', 0.9, [0.7, 0.01])], 5))).toEqual([['A', 0.9, ['A.f1', 'A.f2']]]);
  });

  it('takes at most 3 facts of an episode', () => {
    expect(FACTS_PER_EPISODE).toBe(3);
    const winners = competeGranularity([candidate('A', 0.1, [0.95, 0.9, 0.85, 0.8, 0.75]), candidate('B', 0.05)], 2);
    expect(view(winners)).toEqual([
      ['A', 0.1, ['A.f1', 'A.f2', 'A.f3']],
      ['B', 0.05, []],
    ]);
  });

  it('respects the list size and keeps the best episodes', () => {
    const many = Array.from({ length: 12 }, (_, i) => candidate(`E${i}`, 0.5 - i / 100, [0.9 - i / 50, 0.6 - i / 50, 0.55 - i / 50]));
    for (const size of [0, 1, 2, 3, 5, 8, 12, 20]) {
      const winners = competeGranularity(many, size);
      expect(winners.map((w) => w.candidate.record.id), `size ${size}`).toEqual(many.slice(0, size).map((c) => c.record.id));
      for (const w of winners) expect(w.facts.length).toBeLessThanOrEqual(3);
    }
  });

  it('orders the winners by score and their facts best first', () => {
    // Agentic search may hand candidates over out of score order (search/agentic.ts `mergeRounds`).
    const winners = competeGranularity([candidate('A', 0.2, [0.3]), candidate('B', 0.6), candidate('C', 0.1, [0.4, 0.8]), candidate('D', 0.5)], 10);
    expect(view(winners)).toEqual([
      ['B', 0.6, []],
      ['D', 0.5, []],
      ['A', 0.2, ['A.f1']],
      ['C', 0.1, ['C.f2', 'C.f1']],
    ]);
  });

  it('returns nothing for no candidates', () => {
    expect(competeGranularity([], 5)).toEqual([]);
  });
});

describe('granularity through search', () => {
  it('a precise question gets its episode with the winning fact nested', async () => {
    const memory = await createMemory({ embedder: await createDefaultEmbedder() });
    await remember(memory, 'life', [
      said('ann', 'I work as a pharmacist in Porto.', MONDAY_9AM, { sender_name: 'Ann' }),
      said('ann', 'My sister Lena lives in Berlin with her two cats.', MONDAY_9AM + MINUTE, { sender_name: 'Ann' }),
      said('ann', 'I bought a blue bicycle at the market yesterday.', MONDAY_9AM + 2 * MINUTE, { sender_name: 'Ann' }),
    ]);
    await remember(memory, 'other', [said('ann', 'The weather in Porto was rainy all week.', MONDAY_9AM + 3 * MINUTE, { sender_name: 'Ann' })]);
    const { data } = await memory.search({ user_id: 'ann', query: 'What did Ann buy at the market?', method: 'hybrid', top_k: 3 });
    const top = data.episodes[0]!;
    expect(top.session_id).toBe('life');
    expect(top.atomic_facts.length).toBeGreaterThan(0);
    expect(top.atomic_facts[0]!.content).toMatch(/bicycle/);
    expect(top.score).toBeGreaterThan(data.episodes[1]?.score ?? 0);
    expect(top.atomic_facts.length).toBeLessThanOrEqual(3);
    await memory.close();
  });
});
