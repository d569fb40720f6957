/**
 * `bench:conversations` measures retrieval on its conversation sets: every evidence pointer must
 * name a turn that exists (a broken one would count a question as missed, or found, by accident),
 * and the sets must be stored as the bench says, both speakers retrievable from the first one's
 * memory.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fillConversation, fromLocomo, loadConversations, locomoDate, speakerId, type ConversationSet } from '../../bench/conversations.js';
import { createMemory } from '../../src/index.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';

const FIXTURES = fileURLToPath(new URL('../../bench/fixtures/conversations/', import.meta.url));

describe('bench conversation sets', () => {
  const sets = loadConversations(FIXTURES);

  it('hold eleven conversations whose every question points at turns that exist', () => {
    expect(sets.map((s) => s.id).sort()).toEqual(Array.from({ length: 11 }, (_, i) => `conv${i + 1}`).sort());
    const ids = new Set<string>();
    for (const set of sets) {
      expect(set.speakers).toHaveLength(2);
      const sessions = new Map(set.sessions.map((s) => [s.id, s]));
      let previous = '';
      for (const session of set.sessions) {
        expect(Number.isNaN(Date.parse(`${session.date}Z`)), `${set.id} ${session.id}`).toBe(false);
        expect(session.date > previous, `${set.id} ${session.id} after ${previous}`).toBe(true);
        previous = session.date;
        for (const turn of session.turns) expect(set.speakers).toContain(turn.speaker);
      }
      for (const q of set.questions) {
        expect(ids.has(q.id), q.id).toBe(false);
        ids.add(q.id);
        expect(['single-hop', 'multi-hop', 'temporal', 'open-domain']).toContain(q.category);
        expect(q.evidence.length, q.id).toBeGreaterThan(0);
        for (const e of q.evidence) expect(sessions.get(e.session)?.turns[e.turn], `${q.id} ${e.session}:${e.turn}`).toBeDefined();
      }
    }
    expect(ids.size).toBe(495);
  });

  it('stores both speakers in the first one\'s memory, so the second one\'s words are found by name', async () => {
    const set: ConversationSet = {
      id: 'tiny',
      speakers: ['Caroline', 'Melanie'],
      sessions: [
        { id: 'S1', date: '2023-05-08T13:56', turns: [{ speaker: 'Caroline', text: 'Hey Mel! How have you been?' }, { speaker: 'Melanie', text: 'Hey Caroline! I painted a sunrise by the lake last week.' }] },
        { id: 'S2', date: '2023-06-02T10:00', turns: [{ speaker: 'Melanie', text: 'Hi Caroline! We went camping at the beach.' }, { speaker: 'Caroline', text: 'I am researching adoption agencies now.' }] },
      ],
      questions: [],
    };
    const memory = await fillConversation(await createMemory({ embedder: await createDefaultEmbedder() }), set);
    for (const [query, session] of [['What did Melanie paint?', 's1'], ['What is Caroline researching?', 's2']] as const) {
      const { data } = await memory.search({ user_id: speakerId('Caroline'), query, method: 'hybrid', top_k: 1 });
      expect(data.episodes[0]?.session_id, query).toBe(session);
    }
    await memory.close();
  });

  it('reads LoCoMo\'s release as it is: sessions by number and date, evidence by dialogue id, category 5 left out', () => {
    expect(locomoDate('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56');
    expect(locomoDate('12:09 am on 13 September, 2023')).toBe('2023-09-13T00:09');
    expect(locomoDate('12:30 pm on 2 January, 2024')).toBe('2024-01-02T12:30');
    expect(() => locomoDate('sometime in May')).toThrow(/unreadable/);
    const [set] = fromLocomo([{
      sample_id: 'conv-1',
      conversation: {
        speaker_a: 'Caroline', speaker_b: 'Melanie',
        session_2_date_time: '2:00 pm on 20 May, 2023',
        session_2: [{ speaker: 'Melanie', dia_id: 'D2:1', text: 'Look what I painted!', blip_caption: 'a painting of a sunrise over a lake' }, { speaker: 'Caroline', dia_id: 'D2:2', text: 'Wow!' }],
        session_1_date_time: '1:56 pm on 8 May, 2023',
        session_1: [{ speaker: 'Caroline', dia_id: 'D1:1', text: 'I went to a support group yesterday.' }, { speaker: 'Melanie', dia_id: 'D1:2', text: 'So proud of you.' }],
      },
      qa: [
        { question: 'What did Melanie paint?', answer: 'a sunrise', evidence: ['D2:1'], category: 4 },
        { question: 'When did Caroline go to the support group?', answer: '7 May 2023', evidence: ['D1:1; D2:2', 'D9:9'], category: 2 },
        { question: 'What did Caroline paint?', evidence: ['D2:1'], category: 5 },
        { question: 'Nothing to point at?', answer: 'x', evidence: ['D7'], category: 1 },
      ],
    }]);
    expect(set!.speakers).toEqual(['Caroline', 'Melanie']);
    expect(set!.sessions.map((s) => [s.id, s.date])).toEqual([['S1', '2023-05-08T13:56'], ['S2', '2023-05-20T14:00']]);
    expect(set!.sessions[1]!.turns[0]).toEqual({ speaker: 'Melanie', text: 'Look what I painted! [shares a photo: a painting of a sunrise over a lake]' });
    expect(set!.questions).toEqual([
      { id: 'conv-1-q1', question: 'What did Melanie paint?', answer: 'a sunrise', category: 'locomo-4', evidence: [{ session: 'S2', turn: 0 }] },
      { id: 'conv-1-q2', question: 'When did Caroline go to the support group?', answer: '7 May 2023', category: 'locomo-2', evidence: [{ session: 'S1', turn: 0 }, { session: 'S2', turn: 1 }] },
    ]);
  });
});
