/**
 * `bench:quality --haystack large`: a question's memory holds its own haystack and conversations of
 * other questions' haystacks that answer no question, so every one added is a rival and never a
 * hit, the same ones on every run, dated inside the question's own timeline.
 */
import { describe, expect, it } from 'vitest';
import { extraConversations, fillHaystack, holdsAnswer, LARGE_EXTRA, sessionsInOrder, type Dataset, type Question } from '../../bench/longmemeval.js';

function question(id: string, sessions: string[], answers: string[]): Question {
  return {
    question_id: id, question_type: 'single-session-user', question: `what about ${id}?`, question_date: '2023/06/01 (Thu) 10:00', answer: 'x',
    answer_session_ids: answers, haystack_session_ids: sessions, haystack_dates: sessions.map((_, i) => `2023/05/${String(10 + i).padStart(2, '0')} (Wed) 09:00`),
  } as Question;
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const others = ids('o', 600);
const dataset: Dataset = {
  questions: [question('q1', ['a0', 'a1', 'f0'], ['a1']), question('q2', ['b0', ...others.slice(0, 300)], ['b0']), question('q3', ['c0', 'f0', ...others.slice(300)], ['c0'])],
  sessions: Object.fromEntries([...['a0', 'a1', 'b0', 'c0', 'f0'], ...others].map((id) => [id, [{ role: 'user', content: `I talked about ${id}.` }]])),
} as unknown as Dataset;

describe('the large haystack', () => {
  it('adds LARGE_EXTRA sessions of other haystacks that answer no question and are not its own, the same on every call', () => {
    const q = dataset.questions[0]!;
    const extra = extraConversations(dataset, q, 'large');
    expect(extra).toHaveLength(LARGE_EXTRA);
    const answers = new Set(dataset.questions.flatMap((x) => x.answer_session_ids));
    for (const e of extra) {
      expect(q.haystack_session_ids).not.toContain(e.sessionId);
      expect(answers.has(e.sessionId)).toBe(false);
      expect(q.haystack_dates).toContain(e.date);
      // Stored as x<k>: it stands for itself, never for one of the question's sessions.
      expect(e.stored).toMatch(/^x\d+$/);
      expect(holdsAnswer(q, e.stored)).toBe(false);
    }
    expect(new Set(extra.map((e) => e.sessionId)).size).toBe(LARGE_EXTRA);
    expect(extraConversations(dataset, q, 'large')).toEqual(extra);
    // Another question draws another sample; other haystacks add nothing.
    expect(extraConversations(dataset, dataset.questions[2]!, 'large').map((e) => e.sessionId)).not.toEqual(extra.map((e) => e.sessionId));
    expect(extraConversations(dataset, q, 'full')).toEqual([]);
  });

  it('stores them after the question\'s own sessions, and ranks them as rivals', async () => {
    const q = dataset.questions[0]!;
    const added: { session_id: string; first: string }[] = [];
    const memory = {
      add: async (request: { session_id: string; messages: { id: string }[] }) => void added.push({ session_id: request.session_id, first: request.messages[0]!.id }),
      flush: async () => undefined,
    };
    await fillHaystack(memory as never, dataset, q, 'user', 'large');
    expect(added.slice(0, 3).map((a) => a.session_id)).toEqual(['s0', 's1', 's2']);
    expect(added).toHaveLength(3 + LARGE_EXTRA);
    const extra = extraConversations(dataset, q, 'large');
    expect(added.slice(3)).toEqual(extra.map((e) => ({ session_id: e.stored, first: `${e.stored}t0` })));
    expect(sessionsInOrder(q, [extra[0]!.stored, 's1'])).toEqual([extra[0]!.stored, 'a1']);
  });
});
