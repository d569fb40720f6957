/**
 * The rules extractor with its tagging on worker threads (Node) writes what the in-thread one
 * writes: the same extraction for the same segment, a text holding the wire's separator
 * included, and a tagging thread that fails costs speed, never a message or a different memory.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createThreadedAnalyser, createThreadedRulesExtractor } from '../../src/models/threaded-analyser.js';
import type { BufferedMessage } from '../../src/records.js';
import type { Segment } from '../../src/write/extraction.js';
import { english } from '../../src/write/language.js';
import { createRulesExtractor } from '../../src/write/rules-extractor.js';
import { analyse } from '../../src/write/sentences.js';
import { packSentences, unpackSentences } from '../../src/write/sentence-wire.js';

const MONDAY = Date.UTC(2026, 10, 30, 10);

function segment(turns: [role: 'user' | 'assistant', text: string][]): Segment {
  return {
    id: 'mc', app_id: 'default', project_id: 'default', session_id: 's',
    messages: turns.map(([role, text], i) => ({
      kind: 'message', id: `m${i + 1}`, app_id: 'default', project_id: 'default', session_id: 's', seq: i, role, content: text,
      timestamp: MONDAY + i * 60_000, sender_id: role === 'user' ? 'u1' : 'assistant', sender_name: role === 'user' ? 'Maya' : null, tool_calls: null, tool_call_id: null, message_id: null,
    }) as BufferedMessage),
  };
}

const CONVERSATION = segment([
  ['user', "I'm Maya. I have a cat named Pixel, a grey tabby. She is three and hates the vet."],
  ['assistant', 'That sounds lovely! How is Pixel doing after the move?'],
  ['user', 'I moved to Porto yesterday.\nNext Friday I fly to Tokyo with my sister Ana — she lives in Braga.'],
  ['user', '我明天去北京。 I like green tea, and I am allergic to peanuts.'],
  ['user', 'A message with a \u0000 in it: I work as a nurse at St. Mary hospital.'],
  ['user', ''],
]);

const threaded = createThreadedRulesExtractor({ threads: 2 });
afterAll(() => threaded.close());

describe('tagging on worker threads', () => {
  it('extracts what the in-thread rules extract, segment after segment', async () => {
    const here = createRulesExtractor();
    for (const s of [CONVERSATION, segment([['user', 'My brother Tom works at Google in London.']]), segment([['assistant', 'Here is the plan: book the flight on the 14th.']])]) {
      expect(await threaded.extract(s)).toEqual(await here.extract(s));
    }
    expect(threaded.id).toBe('rules');
  });

  it('packs sentences into one string and back token for token, and leaves a text with the separator unpacked', async () => {
    const language = await english();
    for (const [text] of CONVERSATION.messages.map((m) => [m.content as string])) {
      const sentences = analyse(text!, language);
      const packed = packSentences(text!, sentences);
      if (text!.includes('\u0000')) expect(packed).toBeNull();
      else expect(unpackSentences(packed!)).toEqual(sentences);
    }
  });

  it('tags on the calling thread when the analyser fails, and a closed pool starts again', async () => {
    const failing = (() => {
      throw new Error('no threads here');
    }) as never;
    const rejecting = (texts: readonly string[]) => texts.map(() => Promise.reject(new Error('thread died')));
    const expected = await createRulesExtractor().extract(CONVERSATION);
    expect(await createRulesExtractor({ analyser: failing }).extract(CONVERSATION)).toEqual(expected);
    expect(await createRulesExtractor({ analyser: rejecting }).extract(CONVERSATION)).toEqual(expected);

    const language = await english();
    const pool = createThreadedAnalyser({ threads: 1 });
    // Answered by the thread (a thread that failed would reject): packed, and as objects for the separator.
    const texts = ['I live in Lisbon.', 'A \u0000 here: I work as a nurse.'];
    expect(await Promise.all(pool.analyse(texts))).toEqual(texts.map((t) => analyse(t, language)));
    await pool.close();
    // A closed pool starts its threads again on the next call.
    expect(await Promise.all(pool.analyse(['My dog is called Rex.', 'Hi!']))).toEqual([analyse('My dog is called Rex.', language), analyse('Hi!', language)]);
    await pool.close();
  });
});
