/**
 * The teacher reranker inside the memory worker, in real Chromium: Universal Sentence Encoder lite
 * on WebAssembly, loaded from the app's origin while the memory opens, reranks agentic search
 * exactly as `npm run serve`'s teacher does in Node (same engine, same vectors, same answers); a
 * teacher whose files are missing leaves agentic search with hybrid's order and says so once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/index.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import { createTeacherReranker, type TeacherReranker } from '../../src/models/teacher-reranker.js';
import { chromiumMissingFor } from '../support/browser.js';
import { driver, useMemoryPages, value, within } from '../support/memory-pages.js';

/** Ten short chats on ten topics, three days apart; the questions name none of their words. */
const CHATS = [
  ['I finally went to see Billie Eilish live at the arena with my sister today.', 'The lights and the crowd were unforgettable.'],
  ['I am learning to play the guitar, practicing scales every evening.', 'My teacher says my rhythm is improving.'],
  ['We adopted a puppy named Biscuit from the shelter.', 'He chews every shoe in the house.'],
  ['I ran the Midsummer 5K this morning and finished in 27 minutes.', 'My legs are sore but it was worth it.'],
  ['I bought 20 pounds of organic scratch grains for the hens.', 'The coop needs a new roof before winter.'],
  ['My favourite podcast episode was about the history of jazz.', 'I listen to it on my commute.'],
  ['I presented a poster at the biology conference last week.', 'Several professors asked about my method.'],
  ['We planned a trip to Lisbon for the spring.', 'I booked a hotel near the river.'],
  ['I repainted the kitchen a pale green colour.', 'It took the whole weekend.'],
  ['The new phone I ordered arrived with a cracked screen.', 'Customer support promised a replacement.'],
];
const QUESTIONS = ['what music event did I attend', 'which sports event did I take part in', 'what feed did I purchase for my animals', 'what projects have I led or presented'];
const TEACHER = { provider: 'teacher' as const, modelUrl: '/teacher/model.json', wasmPaths: '/tfjs/' };

const adds = CHATS.map((lines, i) => ({
  session_id: `s${i}`,
  messages: lines.map((content, k) => ({ sender_id: 'ann', role: 'user' as const, timestamp: Date.UTC(2026, 0, 1 + i * 3, 10) + k * 60_000, content })),
}));
/** What a search answers that does not depend on random ids: each episode's session and score. */
const shape = (r: SearchResponse) => r.data.episodes.map((e) => [e.session_id, e.score]);

const chromiumMissing = chromiumMissingFor('test/browser/teacher-reranker.test.ts');
describe.skipIf(chromiumMissing)('the teacher reranker in the memory worker', () => {
  const pages = useMemoryPages();
  let node: Memory;
  let teacher: TeacherReranker;

  beforeAll(async () => {
    teacher = await createTeacherReranker({ split: 'line' });
    node = await createMemory({ embedder: await createDefaultEmbedder(), reranker: teacher });
    for (const add of adds) {
      await node.add(add);
      await node.flush({ session_id: add.session_id });
    }
  }, 120_000);
  afterAll(async () => {
    await node?.close();
    await teacher?.close();
  });

  it('reranks agentic search as the teacher does in Node', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('teacher', undefined, undefined, undefined, TEACHER));
    for (const add of adds) {
      value(await d.call('teacher', 'add', add));
      value(await d.call('teacher', 'flush', { session_id: add.session_id }));
    }
    await within(60_000, async () => (await d.progress('teacher')).some((p) => p.phase === 'reranker' && p.loaded === 1), 'the teacher loaded');

    let differs = false;
    for (const query of QUESTIONS) {
      const ask = (method: string) => ({ user_id: 'ann', query, method, top_k: 5 });
      const agentic = value(await d.call<SearchResponse>('teacher', 'search', ask('agentic')));
      expect(shape(agentic)).toEqual(shape(await node.search(ask('agentic'))));
      const hybrid = value(await d.call<SearchResponse>('teacher', 'search', ask('hybrid')));
      expect(shape(hybrid)).toEqual(shape(await node.search(ask('hybrid'))));
      differs ||= JSON.stringify(shape(agentic)) !== JSON.stringify(shape(hybrid));
    }
    // The reranker did reorder something: these are not hybrid's answers passed through.
    expect(differs).toBe(true);
    const codes = (await d.notices('teacher')).map((n) => n.code);
    expect(codes).not.toContain('agentic.no_reranker');
    expect(codes).not.toContain('agentic.reranker_failed');
    expect(codes).not.toContain('reranker.unavailable');
    expect(pages().pageErrors).toEqual([]);
    await page.context().close();
  });

  it('runs on a worker of its own: the memory worker answers other calls while a cold rerank runs', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('busy', undefined, undefined, undefined, TEACHER));
    await within(60_000, async () => (await d.progress('busy')).some((p) => p.phase === 'reranker' && p.loaded === 1), 'the teacher loaded');
    // 25 walks of 6 lines each, none embedded yet: the rerank reads about 100 new lines (about a second).
    for (let i = 0; i < 25; i++) {
      const lines = Array.from({ length: 6 }, (_, k) => `On walk ${i}-${k} we covered ${3 + i + k} miles to the lake and counted ${7 * i + k} herons near the pier.`);
      value(await d.call('busy', 'add', { session_id: `w${i}`, messages: lines.map((content, k) => ({ sender_id: 'ann', role: 'user', timestamp: Date.UTC(2026, 1, 1 + i, 9) + k * 60_000, content })) }));
      value(await d.call('busy', 'flush', { session_id: `w${i}` }));
    }
    let agenticDone = false;
    const agentic = d.call<SearchResponse>('busy', 'search', { user_id: 'ann', query: 'how far did we walk to the lake', method: 'agentic', top_k: 10 }).then((outcome) => {
      agenticDone = true;
      return outcome;
    });
    // Sent after the search: on the memory worker's thread, TensorFlow.js would answer it only after.
    value(await d.call('busy', 'stats'));
    expect(agenticDone).toBe(false);
    expect(value(await agentic).data.episodes.length).toBeGreaterThan(0);
    expect((await d.notices('busy')).map((n) => n.code)).not.toContain('agentic.reranker_failed');
    await page.context().close();
  });

  /** A page whose memory's teacher cannot load (`teacher` says what is missing), once that failure was announced. */
  async function openUnloadable(name: string, teacher: typeof TEACHER) {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open(name, undefined, undefined, undefined, teacher));
    await within(60_000, async () => (await d.notices(name)).some((n) => n.code === 'reranker.unavailable'), 'the load failure was announced');
    return { page, d };
  }

  it('keeps hybrid\'s order and says so once when the teacher\'s files are missing', async () => {
    const { page, d } = await openUnloadable('missing', { ...TEACHER, modelUrl: '/teacher/absent/model.json' });
    for (const add of adds.slice(0, 4)) {
      value(await d.call('missing', 'add', add));
      value(await d.call('missing', 'flush', { session_id: add.session_id }));
    }
    const ask = (method: string) => ({ user_id: 'ann', query: QUESTIONS[0], method, top_k: 5 });
    const agentic = value(await d.call<SearchResponse>('missing', 'search', ask('agentic')));
    expect(shape(agentic)).toEqual(shape(value(await d.call<SearchResponse>('missing', 'search', ask('hybrid')))));
    const notices = await d.notices('missing');
    expect(notices.filter((n) => n.code === 'reranker.unavailable')).toHaveLength(1);
    expect(notices.find((n) => n.code === 'reranker.unavailable')?.message).toMatch(/^MODEL_UNAVAILABLE: .*absent/);
    expect(notices.map((n) => n.code)).toContain('agentic.reranker_failed');
    await page.context().close();
  });

  it('says so, not hangs, when TensorFlow.js\'s WebAssembly is nowhere to be found', async () => {
    const { page, d } = await openUnloadable('nowasm', { ...TEACHER, wasmPaths: '/tfjs/absent/' });
    expect((await d.notices('nowasm')).find((n) => n.code === 'reranker.unavailable')?.message).toMatch(/^MODEL_UNAVAILABLE: .*WebAssembly/);
    value(await d.call('nowasm', 'add', adds[0]));
    value(await d.call('nowasm', 'flush', { session_id: adds[0]!.session_id }));
    expect(value(await d.call<SearchResponse>('nowasm', 'search', { user_id: 'ann', query: QUESTIONS[0], method: 'agentic', top_k: 5 })).data.episodes).toHaveLength(1);
    await page.context().close();
  });
});
