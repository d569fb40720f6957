/**
 * The write path: `add` buffers messages per session, boundary detection closes segments (a gap
 * over 4 h, a change of date, 500 messages), `flush` closes the rest; each segment becomes an
 * episode with attributed atomic facts, foresight, profile facts and an agent case. A rejected
 * `add` writes nothing at all.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AddMessage } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError, type ValidationDetail } from '../../src/errors.js';
import { DAY, HOUR, MINUTE, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

let memory: Memory;
beforeEach(async () => {
  memory = await createMemory({ embedder: hashEmbedderDouble() });
});

const MIDNIGHT = Date.UTC(2026, 10, 2, 0, 0, 0);
const line = (i: number) => `Message ${i}: we keep talking about the garden plans.`;

async function episodeCount(user_id: string, scope: Record<string, string> = {}): Promise<number> {
  return (await memory.get({ user_id, ...scope, memory_type: 'episode', page_size: 100 })).data.total_count;
}

async function unprocessed(user_id: string, session_id: string) {
  return (await memory.search({ user_id, query: 'anything', filters: { session_id } })).data.unprocessed_messages;
}

async function facts(user_id: string, memory_type: 'atomic_fact' | 'foresight' = 'atomic_fact'): Promise<string[]> {
  const { data } = await memory.get({ user_id, memory_type, page_size: 100, sort_order: 'asc' });
  return data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.content));
}

describe('add and flush status', () => {
  it('accumulates until a boundary or a flush, then extracts', async () => {
    const first = await memory.add({ session_id: 's', messages: [said('ann', line(1), MONDAY_9AM)] });
    expect(first.data).toEqual({ message_count: 1, status: 'accumulated' });
    const second = await memory.add({ session_id: 's', messages: [said('ann', line(2), MONDAY_9AM + MINUTE)] });
    expect(second.data).toEqual({ message_count: 1, status: 'accumulated' });
    expect(await episodeCount('ann')).toBe(0);
    expect(await unprocessed('ann', 's')).toHaveLength(2);

    expect((await memory.flush({ session_id: 's' })).data).toEqual({ status: 'extracted' });
    expect(await episodeCount('ann')).toBe(1);
    expect(await unprocessed('ann', 's')).toEqual([]);
  });

  it('flush of an empty buffer is no_extraction (never used, or already flushed)', async () => {
    expect((await memory.flush({ session_id: 'never-used' })).data).toEqual({ status: 'no_extraction' });
    await remember(memory, 's', [said('ann', line(1), MONDAY_9AM)]);
    expect((await memory.flush({ session_id: 's' })).data).toEqual({ status: 'no_extraction' });
    expect(await episodeCount('ann')).toBe(1);
  });

  it('keeps buffers apart per app and project', async () => {
    await memory.add({ session_id: 's', app_id: 'app1', messages: [said('ann', line(1), MONDAY_9AM)] });
    expect((await memory.flush({ session_id: 's' })).data.status).toBe('no_extraction');
    expect((await memory.flush({ session_id: 's', app_id: 'app1', project_id: 'p2' })).data.status).toBe('no_extraction');
    expect((await memory.flush({ session_id: 's', app_id: 'app1' })).data.status).toBe('extracted');
    expect(await episodeCount('ann', { app_id: 'app1' })).toBe(1);
    expect(await episodeCount('ann')).toBe(0);
  });
});

describe('boundary detection', () => {
  it('a gap of exactly 4 h continues the segment', async () => {
    const r = await memory.add({ session_id: 's', messages: [said('ann', line(1), MIDNIGHT + 30 * MINUTE), said('ann', line(2), MIDNIGHT + 30 * MINUTE + 4 * HOUR)] });
    expect(r.data.status).toBe('accumulated');
    await memory.flush({ session_id: 's' });
    expect(await episodeCount('ann')).toBe(1);
  });

  it('a gap over 4 h closes the segment', async () => {
    await memory.add({ session_id: 's', messages: [said('ann', line(1), MIDNIGHT + 30 * MINUTE)] });
    const r = await memory.add({ session_id: 's', messages: [said('ann', line(2), MIDNIGHT + 30 * MINUTE + 4 * HOUR + 1)] });
    expect(r.data.status).toBe('extracted');
    expect(await episodeCount('ann')).toBe(1);
    expect((await unprocessed('ann', 's')).map((m) => m.content)).toEqual([line(2)]);
    await memory.flush({ session_id: 's' });
    expect(await episodeCount('ann')).toBe(2);
  });

  it('a change of (UTC) date closes the segment even after a short gap', async () => {
    const lateEvening = MIDNIGHT + DAY - 10 * MINUTE;
    const r = await memory.add({ session_id: 's', messages: [said('ann', line(1), lateEvening), said('ann', line(2), lateEvening + 20 * MINUTE)] });
    expect(r.data.status).toBe('extracted');
    expect(await episodeCount('ann')).toBe(1);
    await memory.flush({ session_id: 's' });
    const { data } = await memory.get({ user_id: 'ann', memory_type: 'episode', sort_order: 'asc' });
    expect(data.episodes.map((e) => e.timestamp.slice(0, 10))).toEqual(['2026-11-02', '2026-11-03']);
  });

  it('splits several boundaries inside one add', async () => {
    const messages = [0, 5, 10, 15].map((h, i) => said('ann', line(i), MIDNIGHT + h * HOUR));
    const r = await memory.add({ session_id: 's', messages });
    expect(r.data).toEqual({ message_count: 4, status: 'extracted' });
    expect(await episodeCount('ann')).toBe(3);
    await memory.flush({ session_id: 's' });
    expect(await episodeCount('ann')).toBe(4);
  });

  it('500 messages fill a segment; the 501st starts the next one', async () => {
    const batch = (from: number, n: number): AddMessage[] => Array.from({ length: n }, (_, i) => said('ann', line(from + i), MONDAY_9AM + (from + i) * 1000));
    const r1 = await memory.add({ session_id: 's', messages: batch(0, 500) });
    expect(r1.data).toEqual({ message_count: 500, status: 'accumulated' });
    const r2 = await memory.add({ session_id: 's', messages: batch(500, 100) });
    expect(r2.data).toEqual({ message_count: 100, status: 'extracted' });
    expect(await episodeCount('ann')).toBe(1);
    expect(await unprocessed('ann', 's')).toHaveLength(100);
    await memory.flush({ session_id: 's' });
    expect(await episodeCount('ann')).toBe(2);
    const { data } = await memory.get({ user_id: 'ann', memory_type: 'episode', sort_order: 'asc' });
    // Each segment is its own episode, and its summary says who talked about what, and when.
    expect(data.episodes.map((e) => e.episode.split('\n').length)).toEqual([500, 100]);
    for (const e of data.episodes) expect(e.summary).toMatch(/^ann wrote about .*garden.* on 2026-11-02\./);
  }, 60_000);
});

describe('message ids', () => {
  it('are kept as provenance: the unprocessed message shows the caller\'s id', async () => {
    await memory.add({ session_id: 's', messages: [said('ann', line(1), MONDAY_9AM, { id: 'client-42' }), said('ann', line(2), MONDAY_9AM + MINUTE)] });
    const [withId, withoutId] = await unprocessed('ann', 's');
    expect(withId!.id).toBe('client-42');
    expect(typeof withoutId!.id).toBe('string');
    expect(withoutId!.id).not.toBe('client-42');
    expect(withoutId!.id.length).toBeGreaterThan(0);
  });

  it('a message re-sent with the same id is not duplicated', async () => {
    const message = said('ann', line(1), MONDAY_9AM, { id: 'client-42' });
    expect((await memory.add({ session_id: 's', messages: [message] })).data.message_count).toBe(1);
    const retry = await memory.add({ session_id: 's', messages: [message, said('ann', line(2), MONDAY_9AM + MINUTE, { id: 'client-43' })] });
    expect(retry.data.message_count).toBe(1);
    expect((await unprocessed('ann', 's')).map((m) => m.id)).toEqual(['client-42', 'client-43']);
    const twiceInOne = await memory.add({ session_id: 's', messages: [said('ann', line(3), MONDAY_9AM + 2 * MINUTE, { id: 'x' }), said('ann', line(3), MONDAY_9AM + 2 * MINUTE, { id: 'x' })] });
    expect(twiceInOne.data.message_count).toBe(1);
    expect(await unprocessed('ann', 's')).toHaveLength(3);
  });
});

describe('extraction (rules)', () => {
  it('writes atomic facts in the third person with absolute dates', async () => {
    await remember(memory, 's', [
      said('ann', 'I went hiking yesterday with my sister.', MONDAY_9AM, { sender_name: 'Ann' }),
      said('ann', 'I met my old teacher 3 days ago at the market.', MONDAY_9AM + MINUTE, { sender_name: 'Ann' }),
    ]);
    const contents = await facts('ann');
    const hiking = contents.find((c) => c.includes('hiking'));
    expect(hiking).toBeDefined();
    expect(hiking).toMatch(/^Ann went hiking/);
    expect(hiking).toContain('2026-11-01');
    expect(hiking).toContain("Ann's sister");
    const teacher = contents.find((c) => c.includes('teacher'))!;
    expect(teacher).toContain('2026-10-30');
    for (const c of contents) expect(c).not.toMatch(/\b(I|my|me)\b/);
  });

  it('records plans ("I\'m going to", "I plan to" … next week) as foresight', async () => {
    await remember(memory, 's', [
      said('ann', "I'm going to visit Kyoto next week.", MONDAY_9AM, { sender_name: 'Ann' }),
      said('ann', 'I plan to repaint the kitchen next week.', MONDAY_9AM + MINUTE, { sender_name: 'Ann' }),
      said('ann', 'I painted the fence last week.', MONDAY_9AM + 2 * MINUTE, { sender_name: 'Ann' }),
    ]);
    const plans = await facts('ann', 'foresight');
    expect(plans).toHaveLength(2);
    expect(plans.find((p) => p.includes('Kyoto'))).toBe('Ann is going to visit Kyoto in the week of 2026-11-09.');
    expect(plans.find((p) => p.includes('kitchen'))).toMatch(/^Ann plans to repaint the kitchen/);
    expect(plans.some((p) => p.includes('fence'))).toBe(false);
  });

  it('reads explicit profile facts (name, work, home, likes)', async () => {
    await remember(memory, 's', [
      said('ann', 'My name is Ann Lee. I work as a pharmacist.', MONDAY_9AM),
      said('ann', 'I live in Porto. I love jazz.', MONDAY_9AM + MINUTE),
    ]);
    const { data } = await memory.get({ user_id: 'ann', memory_type: 'profile' });
    expect(data.profiles).toHaveLength(1);
    expect(data.profiles[0]!.profile_data).toMatchObject({ name: 'Ann Lee', occupation: 'pharmacist', location: 'Porto', likes: ['jazz'] });
  });

  it('merges profile facts across segments', async () => {
    await remember(memory, 's1', [said('ann', 'I live in Porto. I love jazz.', MONDAY_9AM)]);
    await remember(memory, 's2', [said('ann', 'I moved to Lisbon. I love surfing.', MONDAY_9AM + DAY)]);
    const profile = (await memory.get({ user_id: 'ann', memory_type: 'profile' })).data.profiles[0]!.profile_data;
    expect(profile).toMatchObject({ location: 'Lisbon', likes: ['jazz', 'surfing'] });
  });

  it('makes an agent case for the assistant of the conversation', async () => {
    await remember(memory, 'books', [
      said('ann', 'Can you recommend a good book about the history of Rome?', MONDAY_9AM),
      replied('helper', 'Try SPQR by Mary Beard. It covers a thousand years of Roman history.', MONDAY_9AM + MINUTE),
      said('ann', 'Thanks, that is exactly what I needed.', MONDAY_9AM + 2 * MINUTE),
    ]);
    const { data } = await memory.get({ agent_id: 'helper', memory_type: 'agent_case' });
    expect(data.agent_cases).toHaveLength(1);
    const c = data.agent_cases[0]!;
    expect(c).toMatchObject({ agent_id: 'helper', session_id: 'books', quality_score: 0.8 });
    expect(c.task_intent).toContain('history of Rome');
    expect(c.approach).toContain('SPQR');
    expect((await memory.get({ user_id: 'ann', memory_type: 'agent_case' })).data.agent_cases).toEqual([]);
  });

  it('reads the text parts of content given as a list of content items', async () => {
    await remember(memory, 's', [
      said('ann', [{ type: 'text', text: 'I adore the quiet fjords of the Lofoten islands.' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }], MONDAY_9AM),
    ]);
    const { data } = await memory.search({ user_id: 'ann', query: 'Lofoten fjords', method: 'keyword' });
    expect(data.episodes).toHaveLength(1);
    expect(data.episodes[0]!.episode).toContain('Lofoten');
    expect((await facts('ann')).some((f) => f.includes('Lofoten'))).toBe(true);
  });
});

describe('add validation', () => {
  async function rejected(body: unknown): Promise<ValidationDetail[]> {
    let error: unknown;
    try {
      await memory.add(body);
    } catch (e) {
      error = e;
    }
    expect(isMemoryError(error), 'the add should have been rejected').toBe(true);
    if (!isMemoryError(error)) throw new Error('unreachable');
    expect(error.code).toBe('VALIDATION_FAILED');
    return error.details as ValidationDetail[];
  }
  const ok = said('ann', line(1), MONDAY_9AM);
  const M = ['body', 'messages'];

  it.each([
    ['no messages', { session_id: 's' }, M, 'missing'],
    ['empty messages', { session_id: 's', messages: [] }, M, 'too_short'],
    ['501 messages', { session_id: 's', messages: Array.from({ length: 501 }, () => ok) }, M, 'too_long'],
    ['messages not a list', { session_id: 's', messages: ok }, M, 'list_type'],
    ['no session', { messages: [ok] }, ['body', 'session_id'], 'missing'],
    ['bad session id', { session_id: 'a/b', messages: [ok] }, ['body', 'session_id'], 'string_pattern_mismatch'],
    ['role system', { session_id: 's', messages: [{ ...ok, role: 'system' }] }, [...M, 0, 'role'], 'enum'],
    ['no role', { session_id: 's', messages: [{ sender_id: 'ann', timestamp: 1, content: 'x y z' }] }, [...M, 0, 'role'], 'missing'],
    ['no timestamp', { session_id: 's', messages: [{ sender_id: 'ann', role: 'user', content: 'x y z' }] }, [...M, 0, 'timestamp'], 'missing'],
    ['timestamp words', { session_id: 's', messages: [{ ...ok, timestamp: 'soon' }] }, [...M, 0, 'timestamp'], 'datetime_parsing'],
    ['timestamp beyond any date', { session_id: 's', messages: [{ ...ok, timestamp: 1e20 }] }, [...M, 0, 'timestamp'], 'datetime_parsing'],
    ['timestamp null', { session_id: 's', messages: [{ ...ok, timestamp: null }] }, [...M, 0, 'timestamp'], 'datetime_parsing'],
    ['no sender', { session_id: 's', messages: [{ role: 'user', timestamp: 1, content: 'x y z' }] }, [...M, 0, 'sender_id'], 'missing'],
    ['sender with a space', { session_id: 's', messages: [{ ...ok, sender_id: 'ann lee' }] }, [...M, 0, 'sender_id'], 'string_pattern_mismatch'],
    ['sender with a slash', { session_id: 's', messages: [{ ...ok, sender_id: '../etc' }] }, [...M, 0, 'sender_id'], 'string_pattern_mismatch'],
    ['empty content', { session_id: 's', messages: [{ ...ok, content: '' }] }, [...M, 0, 'content'], 'content_type'],
    ['content number', { session_id: 's', messages: [{ ...ok, content: 5 }] }, [...M, 0, 'content'], 'content_type'],
    ['content empty list', { session_id: 's', messages: [{ ...ok, content: [] }] }, [...M, 0, 'content'], 'content_type'],
    ['content items without text', { session_id: 's', messages: [{ ...ok, content: [{ type: 'text', text: ' ' }] }] }, [...M, 0, 'content'], 'value_error'],
    ['an image item with neither uri nor bytes', { session_id: 's', messages: [{ ...ok, content: [{ type: 'image_url' }] }] }, [...M, 0, 'content', 0], 'value_error'],
    ['unknown message field', { session_id: 's', messages: [{ ...ok, mood: 'happy' }] }, [...M, 0, 'mood'], 'extra_forbidden'],
    ['unknown body field', { session_id: 's', messages: [ok], user_id: 'ann' }, ['body', 'user_id'], 'extra_forbidden'],
    ['bad message among good ones', { session_id: 's', messages: [ok, { ...ok, role: 'robot' }, ok] }, [...M, 1, 'role'], 'enum'],
  ])('%s → 422 at the right loc', async (_name, body, loc, type) => {
    const details = await rejected(body);
    const hit = details.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
    expect(hit, JSON.stringify(details)).toBeDefined();
    expect(hit!.type).toBe(type);
  });

  it('accepts exactly 500 messages', async () => {
    const r = await memory.add({ session_id: 's', messages: Array.from({ length: 500 }, (_, i) => said('ann', line(i), MONDAY_9AM + i)) });
    expect(r.data.message_count).toBe(500);
  });

  it('a rejected add writes nothing, even when its good messages would close a segment', async () => {
    await memory.add({ session_id: 's', messages: [said('ann', line(1), MONDAY_9AM), said('ann', line(2), MONDAY_9AM + MINUTE)] });
    await remember(memory, 'done', [said('ann', line(3), MONDAY_9AM)]);
    const snapshot = async () => {
      const buffer = await unprocessed('ann', 's');
      const episodes = (await memory.get({ user_id: 'ann', memory_type: 'episode' })).data.episodes.map((e) => e.id);
      // Read last: the searches above build indexes, which stats() counts.
      return { buffer, episodes, facts: await facts('ann'), stats: memory.stats() };
    };
    const before = await snapshot();
    expect(before.buffer).toHaveLength(2);

    const attempts: unknown[] = [
      // good, good-after-a-gap (would close the open segment), then one bad message
      { session_id: 's', messages: [said('ann', line(4), MONDAY_9AM + 2 * MINUTE), said('ann', line(5), MONDAY_9AM + 6 * HOUR), { ...said('ann', line(6), MONDAY_9AM + 7 * HOUR), role: 'narrator' }] },
      { session_id: 's', messages: [said('ann', line(4), MONDAY_9AM + 2 * MINUTE), said('bad id', line(5), MONDAY_9AM + 3 * MINUTE)] },
      { session_id: 's', messages: [said('ann', line(4), MONDAY_9AM + DAY), { ...said('ann', line(5), MONDAY_9AM + DAY), timestamp: 'later' }] },
      { session_id: 'fresh', messages: [said('ann', line(4), MONDAY_9AM), said('ann', '', MONDAY_9AM)] },
    ];
    for (const body of attempts) {
      await expect(memory.add(body)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(await snapshot()).toEqual(before);
      expect(await unprocessed('ann', 'fresh')).toEqual([]);
    }
  });
});

describe('message ids after extraction', () => {
  it('keeps the caller\'s message ids as provenance, and takes a re-sent message once even after extraction', async () => {
    const { createMemory } = await import('../../src/index.js');
    const { hashEmbedderDouble } = await import('../support/hash-embedder.js');
    const memory = await createMemory({ embedder: hashEmbedderDouble() });
    const message = { id: 'client-42', sender_id: 'ann', role: 'user' as const, timestamp: Date.UTC(2026, 1, 2, 9), content: 'I started learning the violin this winter.' };
    expect((await memory.add({ session_id: 's', messages: [message] })).data.message_count).toBe(1);
    await memory.flush({ session_id: 's' });
    const exported = await memory.export();
    const episode = exported.items.map((i) => (typeof i === 'string' ? JSON.parse(i) : i)).find((i) => i.kind === 'episode');
    expect(episode.source_message_ids).toEqual(['client-42']);
    // A retried request after the segment was extracted: nothing is added twice.
    expect((await memory.add({ session_id: 's', messages: [message] })).data.message_count).toBe(0);
    expect(memory.stats().buffered_messages).toBe(0);
    // Once that session is deleted, the same message is new again.
    await memory.delete({ user_id: 'ann', session_id: 's' });
    expect((await memory.add({ session_id: 's', messages: [message] })).data.message_count).toBe(1);
  });
});

describe('profile keys named like built-in object methods', () => {
  it('are plain data: stored, merged, superseded and searched like any other key', async () => {
    const keys = ['valueOf', 'constructor', 'hasOwnProperty', '__proto__', 'toString'];
    for (const key of keys) {
      await memory.upsertProfile(JSON.parse(`{"user_id":"oda","profile_data":{"${key}":[1]}}`));
      await memory.upsertProfile(JSON.parse(`{"user_id":"oda","profile_data":{"${key}":[2]}}`));
      await memory.upsertProfile(JSON.parse(`{"user_id":"oda","profile_data":{"${key}":"x","sources":{"${key}":["m1"]}}}`));
    }
    const { data } = await memory.search({ user_id: 'oda', query: 'anything', include_profile: true });
    const profile = data.profiles[0]!.profile_data;
    for (const key of keys) {
      expect(Object.hasOwn(profile, key)).toBe(true);
      expect(profile[key]).toBe('x');
      expect(Object.hasOwn(profile['sources'] as object, key)).toBe(true);
    }
    expect(Object.getPrototypeOf(profile)).toBe(Object.prototype);
    expect((profile['history'] as { field: string; value: unknown }[]).filter((h) => h.field === 'valueOf').map((h) => h.value)).toEqual([[1, 2]]);
  });
});
