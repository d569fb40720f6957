/**
 * The rule-based write path never throws on what people actually type: random messages built from
 * the phrases the rules react to (relative dates, first-person forms, plans, profile statements,
 * CJK, punctuation runs) always extract, and every stored date is a real date.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemory } from '../../src/index.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const PHRASES = [
  'I', "I'm", 'I am', 'my', 'me', 'myself', "I don't", 'we', 'our', 'My name is Zoë', 'I work as a', 'I live in', 'I love', 'I hate',
  "I'm allergic to", 'my dog', 'my wife', 'I will', "I'm going to", 'I plan to', 'next week', 'last Friday', 'on Monday', 'tomorrow',
  'yesterday', 'the day before yesterday', 'a few days ago', 'a couple of weeks ago', 'in 3 months', 'in 999 years', '12 years ago',
  'an hour ago', 'in a few days', 'this evening', 'today', '?', '!', '.', '...', '\n', '—', '2026-02-30', 'Lisbon', 'nurse', 'ramen',
  '用户喜欢喝咖啡', '東京に行きます', 'café', '🙂', "''", '"', '(', ')', 'http://x.y/z?a=1', '$(rm -rf /)', '<script>', 'a'.repeat(70),
];

describe('rule-based extraction', () => {
  it('extracts any mix of the phrases it reacts to, and keeps every date valid', async () => {
    const notices: string[] = [];
    const memory = await createMemory({ embedder: hashEmbedderDouble(), onNotice: (n) => notices.push(n.code) });
    let session = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...PHRASES), { minLength: 1, maxLength: 25 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        async (messages, start) => {
          const id = `p${session++}`;
          await memory.add({
            session_id: id,
            messages: messages.map((words, i) => ({ sender_id: i % 2 ? 'bot' : 'zoe', sender_name: i % 2 ? null : 'Zoë', role: i % 2 ? 'assistant' : 'user', timestamp: start + i * 60_000, content: words.join(' ') })),
          });
          const flushed = await memory.flush({ session_id: id });
          expect(flushed.data.status).toBe('extracted');
        },
      ),
      { numRuns: 150 },
    );
    expect(notices).toEqual([]); // the safety net below never had to catch the rules
    const bundle = await memory.export();
    for (const entry of bundle.items) {
      const item = (typeof entry === 'string' ? JSON.parse(entry) : entry) as { timestamp: number; due_at?: number | null; content?: string };
      expect(Number.isFinite(new Date(item.timestamp).getTime())).toBe(true);
      if (item.due_at !== undefined && item.due_at !== null) expect(Number.isFinite(new Date(item.due_at).getTime())).toBe(true);
      if (item.content !== undefined) expect(item.content).not.toMatch(/Invalid Date|NaN/);
    }
  });
});

describe('when extraction itself fails', () => {
  it('keeps the segment as a plain transcript episode, with a notice, and loses no message', async () => {
    const notices: string[] = [];
    const broken = { id: 'rules', extract: async () => { throw new Error('a bug'); } };
    const memory = await createMemory({ embedder: hashEmbedderDouble(), extractor: broken, onNotice: (n) => notices.push(n.code) });
    await memory.add({ session_id: 's', messages: [{ id: 'm1', sender_id: 'zoe', role: 'user', timestamp: Date.UTC(2026, 2, 3), content: 'Keep this sentence safe.' }] });
    expect((await memory.flush({ session_id: 's' })).data.status).toBe('extracted');
    expect(notices).toEqual(['extract.rules_failed']);
    const { data } = await memory.search({ user_id: 'zoe', query: 'sentence safe', method: 'keyword' });
    expect(data.episodes[0]!.episode).toBe('zoe: Keep this sentence safe.');
  });
});
