/**
 * The teacher reranker with the real Universal Sentence Encoder lite (loaded once, a few seconds),
 * plus its splitting, caching and failure paths with scripted encoders.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import { isMemoryError } from '../../src/errors.js';
import type { RerankCandidate } from '../../src/models/ports.js';
import { createTeacherReranker, MAX_SEGMENT_CHARS, splitSegments, type SentenceEncoder, type TeacherReranker } from '../../src/models/teacher-reranker.js';
import { startThreadEncoder } from '../../src/models/teacher-thread.js';
import { createMemory } from '../../src/index.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const CANDIDATES: RerankCandidate[] = [
  { id: 'pets', text: 'Alice adopted a beagle named Rufus in March.' },
  { id: 'weather', text: 'The weather was rainy all week.' },
  { id: 'trip', text: 'We are planning a trip to Italy this summer.' },
  { id: 'work', text: 'Alice works as a nurse at the city hospital.' },
];

let teacher: TeacherReranker;

beforeAll(async () => {
  teacher = await createTeacherReranker();
}, 60_000);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** A scripted encoder: one-hot vectors by keyword, and a log of what it was asked to embed. */
function keywordEncoder(keywords: string[]): SentenceEncoder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((text) => [...keywords.map((k) => (text.toLowerCase().includes(k) ? 1 : 0)), 0.01]);
    },
  };
}

describe('createTeacherReranker with Universal Sentence Encoder lite', () => {
  it('moves the candidate that answers the query to the top', async () => {
    const ranked = await teacher.rerank('What does Alice do for a living?', CANDIDATES);

    expect(ranked[0]!.id).toBe('work');
    expect(ranked.map((r) => r.id).sort()).toEqual(['pets', 'trip', 'weather', 'work']);
    for (const r of ranked) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    expect(ranked[0]!.score).toBeGreaterThan(ranked[3]!.score);
    expect((await teacher.rerank('Which country will we visit on vacation?', CANDIDATES))[0]!.id).toBe('trip');
  });

  it('scores a long memory by its best sentence', async () => {
    const session = [
      'I went grocery shopping this morning and bought apples.',
      'Then we watched a movie about space.',
      'By the way, my sister just started a new job as a dentist in Boston.',
      'The traffic on the way home was terrible.',
    ].join(' ');
    const ranked = await teacher.rerank("What is my sister's profession?", [
      { id: 'groceries', text: 'I bought apples and pears at the market.' },
      { id: 'session', text: session },
      { id: 'movie', text: 'We watched a movie about space last night.' },
    ]);
    expect(ranked[0]!.id).toBe('session');
  });

  it('embeds each candidate text once and then serves it from the cache', async () => {
    const fresh = await createTeacherReranker({ cacheSize: 8 });
    await fresh.rerank('Does Alice have a dog?', CANDIDATES);
    expect(fresh.cacheStats).toEqual({ hits: 0, misses: 4, size: 4 });
    const again = await fresh.rerank('Where is Alice employed?', CANDIDATES);
    expect(fresh.cacheStats).toEqual({ hits: 4, misses: 4, size: 4 });
    expect(again[0]!.id).toBe('work');
  });
});

describe('the encoder on a worker thread (the default)', () => {
  const lines = (n: number, salt: string) => Array.from({ length: n }, (_, i) => ({ id: String(i), text: `${salt} ${i}: we walked ${i} miles to the lake and met ${i} friends.` }));

  it('scores exactly as on the caller\'s thread', async () => {
    const here = await createTeacherReranker({ thread: false });
    const query = 'What does Alice do for a living?';
    expect(await teacher.rerank(query, CANDIDATES)).toEqual(await here.rerank(query, CANDIDATES));
  }, 60_000);

  it('answers concurrent calls each with its own vectors', async () => {
    const here = await createTeacherReranker({ thread: false });
    const queries = ['how far did we walk', 'who did we meet at the lake', 'what does Alice do', 'which trip are we planning'];
    const sets = queries.map((_, i) => [...lines(6, `concurrent ${i}`), ...CANDIDATES]);
    const together = await Promise.all(queries.map((q, i) => teacher.rerank(q, sets[i]!)));
    for (const [i, q] of queries.entries()) {
      const alone = await here.rerank(q, sets[i]!);
      expect(together[i]!.map((r) => r.id)).toEqual(alone.map((r) => r.id));
      // A vector can differ in its last bits with the batch it was embedded in (padding), never more.
      together[i]!.forEach((r, k) => expect(r.score).toBeCloseTo(alone[k]!.score, 6));
    }
  }, 60_000);

  it('leaves the caller\'s thread free while it embeds', async () => {
    let ticked = false;
    setTimeout(() => (ticked = true), 0);
    const ranked = teacher.rerank('how far did we walk', lines(64, 'free'));
    let settledFirst = false;
    // On the caller's thread TensorFlow.js runs each call to its end: the timer could not fire first.
    await Promise.race([ranked.then(() => (settledFirst = !ticked)), new Promise((r) => setTimeout(r, 0))]);
    expect(settledFirst).toBe(false);
    expect(ticked).toBe(true);
    expect(await ranked).toHaveLength(64);
  }, 60_000);

  it('fails the calls a closed thread leaves, and starts a new one for the next call', async () => {
    const own = await createTeacherReranker();
    const pending = failure(own.rerank('how far did we walk', lines(32, 'closed')));
    await own.close();
    const error = await pending;
    expect(isMemoryError(error) && error.code).toBe('MODEL_FAILED');
    expect((await own.rerank('What does Alice do for a living?', CANDIDATES))[0]!.id).toBe('work');
    await own.close();
  }, 60_000);

  it('is MODEL_UNAVAILABLE when the packages cannot load', async () => {
    const missing = await failure(createTeacherReranker({ loadEncoder: () => startThreadEncoder({ runner: '/nonexistent/runner.js', weights: '/nonexistent/weights.js' }) }));
    expect(isMemoryError(missing) && missing.code).toBe('MODEL_UNAVAILABLE');
  });
});

describe('createTeacherReranker mechanics', () => {
  it('splits texts into lines, then sentences, skipping empty and one-character pieces', () => {
    const text = 'On 2023-05-20: user said: I love hiking. Do you? Yes!\n\nOk.\n"Great," she said. (Really.) Then home…  done';
    expect(splitSegments(text)).toEqual(['On 2023-05-20: user said: I love hiking.', 'Do you?', 'Yes!', 'Ok.', '"Great," she said.', '(Really.)', 'Then home…', 'done']);
    expect(splitSegments(text, 'line')).toEqual(['On 2023-05-20: user said: I love hiking. Do you? Yes!', 'Ok.', '"Great," she said. (Really.) Then home…  done']);
    expect(splitSegments(text, 'sentence', 2)).toHaveLength(2);
    expect(splitSegments('  \n . \n')).toEqual([]);
  });

  it('reads a segment and the query to MAX_SEGMENT_CHARS: one huge line cannot stall a search', async () => {
    const line = 'music '.repeat(20_000);
    expect(splitSegments(line, 'line')).toEqual([line.slice(0, MAX_SEGMENT_CHARS)]);
    const encoder = keywordEncoder(['music']);
    const reranker = await createTeacherReranker({ split: 'line', loadEncoder: async () => encoder });
    await reranker.rerank('music', [{ id: 'huge', text: `${line}\nshort line` }]);
    expect(encoder.calls[1]!.map((t) => t.length)).toEqual(['short line'.length, MAX_SEGMENT_CHARS]); // shortest first
    await reranker.rerank(line, [{ id: 'huge', text: line }]);
    expect(encoder.calls[2]!.map((t) => t.length)).toEqual([MAX_SEGMENT_CHARS]);
  });

  it('embeds lines of like length together, at most batchSize a call, and gives each candidate its own lines\' vectors', async () => {
    const encoder = keywordEncoder(['dog', 'cat', 'fish']);
    const reranker = await createTeacherReranker({ split: 'line', batchSize: 2, loadEncoder: async () => encoder });
    const candidates = [
      { id: 'long-fish', text: 'a very long line that talks about a fish at great and tiresome length' },
      { id: 'dog', text: 'my dog' },
      { id: 'mid-cat', text: 'a cat sat on the mat today' },
      { id: 'none', text: 'nothing to see here at all' },
    ];
    const ranked = await reranker.rerank('cat', candidates);
    expect(ranked[0]!.id).toBe('mid-cat');
    expect((await reranker.rerank('fish', candidates))[0]!.id).toBe('long-fish');
    expect((await reranker.rerank('dog', candidates))[0]!.id).toBe('dog');
    const lineCalls = encoder.calls.filter((call) => call.length > 1 || candidates.some((c) => c.text === call[0]));
    expect(lineCalls.flat().map((t) => t.length)).toEqual(candidates.map((c) => c.text.length).sort((a, b) => a - b));
    expect(Math.max(...lineCalls.map((call) => call.length))).toBe(2);
  });

  it('caches segments, not texts: drops the least recently used past cacheSize and embeds shared sentences once', async () => {
    const encoder = keywordEncoder(['dog', 'cat', 'fish']);
    const reranker = await createTeacherReranker({ cacheSize: 2, loadEncoder: async () => encoder });
    await reranker.rerank('dog', [
      { id: 'a', text: 'A dog. A cat.' },
      { id: 'b', text: 'A cat. A fish.' },
      { id: 'c', text: 'A fish.' },
    ]);
    // The query, then the four distinct sentences in one batch.
    expect(encoder.calls).toEqual([['dog'], ['A dog.', 'A cat.', 'A fish.']]);
    expect(reranker.cacheStats.size).toBe(2);
    await reranker.rerank('cat', [{ id: 'c', text: 'A fish.' }]);
    expect(reranker.cacheStats.hits).toBe(1);
    // A text never seen whole: its cached sentence is a hit, only the evicted one is embedded again.
    await reranker.rerank('cat', [{ id: 'a', text: 'A dog. A cat.' }]);
    expect(reranker.cacheStats.misses).toBe(4);
    expect(reranker.cacheStats.hits).toBe(2);
    expect(encoder.calls.at(-1)).toEqual(['A dog.']);
  });

  it('ranks by the best segment, clamps scores to 0..1 and gives text-less candidates 0', async () => {
    const reranker = await createTeacherReranker({ loadEncoder: async () => keywordEncoder(['dog', 'cat']) });
    const ranked = await reranker.rerank('cat', [
      { id: 'none', text: '' },
      { id: 'dog', text: 'A dog.' },
      { id: 'mixed', text: 'A dog. A cat.' },
    ]);
    expect(ranked[0]!.id).toBe('mixed');
    expect(ranked[0]!.score).toBeCloseTo(1, 3);
    expect(ranked.find((r) => r.id === 'none')!.score).toBe(0);
    expect(await reranker.rerank('cat', [])).toEqual([]);
  });

  it('primes the cache ahead of the query', async () => {
    const encoder = keywordEncoder(['dog']);
    const reranker = await createTeacherReranker({ loadEncoder: async () => encoder });
    await reranker.prime(['A dog.', 'No pets.']);
    encoder.calls.length = 0;
    await reranker.rerank('dog', [{ id: 'x', text: 'A dog.' }, { id: 'y', text: 'No pets.' }]);
    expect(encoder.calls).toEqual([['dog']]);
  });

  it('maps failures to MODEL_UNAVAILABLE, MODEL_FAILED and ABORTED', async () => {
    const unavailable = await failure(createTeacherReranker({ loadEncoder: () => Promise.reject(new Error('no weights')) }));
    expect(isMemoryError(unavailable) && unavailable.code).toBe('MODEL_UNAVAILABLE');

    const broken = await createTeacherReranker({ loadEncoder: async () => ({ embed: () => Promise.reject(new Error('tensor shape')) }) });
    const failed = await failure(broken.rerank('q', CANDIDATES));
    expect(isMemoryError(failed) && failed.code).toBe('MODEL_FAILED');

    const aborted = await failure(teacher.rerank('q', CANDIDATES, { signal: AbortSignal.abort() }));
    expect(isMemoryError(aborted) && aborted.code).toBe('ABORTED');
    const slow = await createTeacherReranker({ batchSize: 1, loadEncoder: async () => keywordEncoder(['dog']) });
    const controller = new AbortController();
    const pending = slow.rerank('dog', CANDIDATES, { signal: controller.signal });
    controller.abort();
    const during = await failure(pending);
    expect(isMemoryError(during) && during.code).toBe('ABORTED');
  });
});

describe('the cache keeps partitions apart', () => {
  const session = (user: string) => ({ session_id: `s-${user}`, messages: [{ sender_id: user, role: 'user' as const, timestamp: Date.UTC(2026, 0, 5), content: 'I adopted a dog named Rufus.' }] });

  it('embeds a line again for another scope, and serves it from the cache within one', async () => {
    const encoder = keywordEncoder(['dog']);
    const reranker = await createTeacherReranker({ loadEncoder: async () => encoder });
    const candidates = [{ id: 'a', text: 'A dog.' }];
    await reranker.rerank('dog', candidates, { cacheScope: 'ann' });
    await reranker.rerank('dog', candidates, { cacheScope: 'ann' });
    expect(reranker.cacheStats).toMatchObject({ hits: 1, misses: 1 });
    await reranker.rerank('dog', candidates, { cacheScope: 'bob' });
    expect(reranker.cacheStats).toMatchObject({ hits: 1, misses: 2 });
    await reranker.prime(['A dog.'], { cacheScope: 'cid' });
    await reranker.rerank('dog', candidates, { cacheScope: 'cid' });
    expect(reranker.cacheStats).toMatchObject({ hits: 2, misses: 3 });
  });

  it('the engine searches and primes each owner under its own scope: one owner\'s search cannot warm another\'s', async () => {
    const encoder = keywordEncoder(['dog']);
    const teacher = await createTeacherReranker({ loadEncoder: async () => encoder });
    const memory = await createMemory({ embedder: hashEmbedderDouble(), reranker: { id: teacher.id, rerank: (q, c, o) => teacher.rerank(q, c, o) } });
    for (const user of ['ann', 'bob']) {
      await memory.add(session(user));
      await memory.flush({ session_id: `s-${user}` });
    }
    await memory.search({ user_id: 'ann', query: 'dog', method: 'agentic' });
    const afterAnn = teacher.cacheStats.misses;
    expect(afterAnn).toBeGreaterThan(0);
    await memory.search({ user_id: 'ann', query: 'dog', method: 'agentic' });
    expect(teacher.cacheStats.misses).toBe(afterAnn);
    // Bob's memory holds the same lines: they are embedded again, not served from Ann's entries.
    await memory.search({ user_id: 'bob', query: 'dog', method: 'agentic' });
    expect(teacher.cacheStats.misses).toBe(2 * afterAnn);

    // Primed at write time, each owner's lines go under that owner's scope.
    const primed = await createTeacherReranker({ loadEncoder: async () => keywordEncoder(['dog']) });
    const withPrime = await createMemory({ embedder: hashEmbedderDouble(), reranker: primed });
    await withPrime.add(session('cid'));
    await withPrime.flush({ session_id: 's-cid' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const primedMisses = primed.cacheStats.misses;
    expect(primedMisses).toBeGreaterThan(0);
    await withPrime.search({ user_id: 'cid', query: 'dog', method: 'agentic' });
    // The subject was primed under cid's scope; only the facts' lines (not primed) are new.
    expect(primed.cacheStats.hits).toBeGreaterThan(0);
    await memory.close();
    await withPrime.close();
  });
});
