/**
 * `bench:quality` reports turn-level recall (is an evidence turn's text among what a search
 * returned?) overall and per question type. These pin what counts as found and how questions
 * without a stored evidence turn are averaged: left out, never counted as misses.
 */
import { describe, expect, it } from 'vitest';
import { meanTurnRecall, turnRecall } from '../../bench/longmemeval.js';
import type { SearchEpisodeItem } from '../../src/index.js';

function episode(text: string, facts: string[] = []): SearchEpisodeItem {
  return {
    id: text, user_id: 'user', app_id: 'default', project_id: 'default', session_id: 's', timestamp: '2023-05-06T00:00:00Z',
    sender_ids: ['user'], summary: '', subject: '', episode: text, type: 'Conversation', score: 0.5,
    atomic_facts: facts.map((content, i) => ({ id: `${text}-${i}`, content, score: 0.5 })),
  };
}

describe('bench turn-level recall', () => {
  it('finds an evidence turn in an episode or its facts, dates the write path inserted taken out, within k', () => {
    const evidence = ['i bought a red bike yesterday', 'we met at the lake'];
    const returned = [episode('Nothing here'), episode('Chat', ['I bought a red bike yesterday (2023-05-05)'])];
    expect(turnRecall(evidence, returned, 10)).toBe(0.5);
    expect(turnRecall(evidence, returned, 1)).toBe(0);
    expect(turnRecall(evidence, [...returned, episode('We met at the  lake')], 10)).toBe(1);
    expect(turnRecall([], returned, 10)).toBeNull();
  });

  it('averages over the questions that hold an evidence turn, a question without one left out', () => {
    expect(meanTurnRecall([{ turn5: 1, turn10: 1 }, { turn5: null, turn10: null }, { turn5: 0, turn10: 0.5 }])).toEqual({ turn_recall_at_5: 0.5, turn_recall_at_10: 0.75 });
    expect(meanTurnRecall([{ turn5: null, turn10: null }])).toEqual({ turn_recall_at_5: null, turn_recall_at_10: null });
    expect(meanTurnRecall([])).toEqual({ turn_recall_at_5: null, turn_recall_at_10: null });
  });
});
