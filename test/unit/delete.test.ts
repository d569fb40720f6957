/**
 * Delete: one memory by id (an episode takes its facts and foresight along), one session, or a
 * whole owner ("forget this user"). Afterwards nothing of theirs comes back from any verb, and
 * the store itself, read back from disk, holds nothing they own; other owners keep theirs, even
 * the records that quote them (an agent's case, the other user's episode of a shared session).
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AddMessage, MemoryType, SearchMethod } from '../../src/contract/types.js';
import { MEMORY_TYPES } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { createSqliteStore } from '../../src/store/sqlite-store.js';
import { MINUTE, MONDAY_9AM, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const METHODS: SearchMethod[] = ['keyword', 'vector', 'hybrid', 'agentic'];
/** A user id no other text contains, so a scan of the files for it is meaningful. */
const ALICE = 'alice-7f3q';
const BOB = 'bob-9k2w';
const BOT = 'helper-bot';
const embedder = hashEmbedderDouble(64);

let dir: string;
let memory: Memory;

async function open(): Promise<Memory> {
  return createMemory({ store: await createSqliteStore(dir), embedder });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-delete-'));
  memory = await open();
  let t = MONDAY_9AM;
  const next = () => (t += MINUTE);
  const remember = async (session_id: string, messages: AddMessage[]) => {
    await memory.add({ session_id, messages });
    await memory.flush({ session_id });
  };
  await remember('a1', [
    said(ALICE, "I'm going to visit the dentist next week about my tooth.", next(), { sender_name: 'Al' }),
    replied(BOT, 'A dentist visit next week sounds wise for that tooth.', next()),
    said(ALICE, 'I love the quiet garden behind my house.', next(), { sender_name: 'Al' }),
  ]);
  await remember('a2', [said(ALICE, 'I bought a red bicycle for the garden path.', next(), { sender_name: 'Al' })]);
  await remember('ab', [
    said(ALICE, 'We planted tulips in the shared garden today.', next(), { sender_name: 'Al' }),
    said(BOB, 'The shared garden tulips need water every morning.', next(), { sender_name: 'Bo' }),
  ]);
  await remember('b1', [said(BOB, 'I repaired the garden fence with new boards.', next(), { sender_name: 'Bo' })]);
  await memory.upsertKnowledge({ user_id: ALICE, title: 'Garden plan', content: 'Tomatoes go along the south garden wall.' });
  await memory.upsertProfile({ user_id: BOB, profile_data: { hobby: 'garden carpentry' } });
  await memory.upsertCase({ agent_id: BOT, id: 'case-own', session_id: 'x', task_intent: 'Explain garden watering', approach: 'Water early in the garden' });
  // Still buffered: one session of each user.
  await memory.add({ session_id: 'a3', messages: [said(ALICE, 'My garden shed needs a new roof soon.', next())] });
  await memory.add({ session_id: 'b2', messages: [said(BOB, 'My garden hose has a leak somewhere.', next())] });
});

afterEach(async () => {
  await memory.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const episodes = async (user_id: string, filters: unknown = null) =>
  (await memory.get({ user_id, memory_type: 'episode', page_size: 100, filters })).data.episodes;

/** Everything any read verb returns for an owner (search by every method, every listing, the buffers). */
async function everythingOf(owner: Record<string, string>): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const session of [null, 'a1', 'a2', 'a3', 'ab', 'b1', 'b2']) {
    const filters = session ? { session_id: session } : null;
    for (const method of METHODS) {
      const { data } = await memory.search({ ...owner, query: 'garden tulips dentist bicycle shed tomatoes', method, top_k: 100, radius: 0, include_profile: true, filters });
      out.push(...data.episodes, ...data.profiles, ...data.agent_cases, ...data.agent_skills, ...data.unprocessed_messages);
    }
    for (const memory_type of MEMORY_TYPES) {
      const { data } = await memory.get({ ...owner, memory_type: memory_type as MemoryType, page_size: 100, filters });
      out.push(...data.episodes, ...data.profiles, ...data.agent_cases, ...data.agent_skills, ...data.unprocessed_messages);
    }
  }
  return out;
}

describe('delete one memory by id', () => {
  it('an episode takes its atomic facts and foresight along', async () => {
    const [a1] = await episodes(ALICE, { session_id: 'a1' });
    expect(a1).toBeDefined();
    const factIds = (await memory.get({ user_id: ALICE, memory_type: 'atomic_fact', page_size: 100, filters: { session_id: 'a1' } })).data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.id));
    const planIds = (await memory.get({ user_id: ALICE, memory_type: 'foresight', page_size: 100, filters: { session_id: 'a1' } })).data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.id));
    expect(factIds.length).toBeGreaterThan(0);
    expect(planIds.length).toBeGreaterThan(0);
    const before = memory.stats().records;

    const { data } = await memory.delete({ user_id: ALICE, memory_id: a1!.id });
    // Facts, plans, and the verbatim passages kept for search (not listed among facts) go with it.
    expect(data.deleted_count).toBeGreaterThanOrEqual(1 + factIds.length + planIds.length);
    expect(memory.stats().records).toBe(before - data.deleted_count);
    for (const memory_type of ['episode', 'atomic_fact', 'foresight'] as const) {
      expect((await memory.get({ user_id: ALICE, memory_type, filters: { session_id: 'a1' } })).data.total_count, memory_type).toBe(0);
    }
    for (const method of METHODS) {
      const { data: found } = await memory.search({ user_id: ALICE, query: 'dentist tooth', method, top_k: 100, radius: 0 });
      expect(found.episodes.map((e) => e.id), method).not.toContain(a1!.id);
    }
    // The rest of Alice's memory stays.
    expect((await episodes(ALICE)).map((e) => e.session_id).sort()).toEqual(['a2', 'ab']);
  });

  it('a single fact can go on its own', async () => {
    const { data } = await memory.get({ user_id: ALICE, memory_type: 'atomic_fact', filters: { session_id: 'a2' } });
    const fact = data.episodes[0]!.atomic_facts[0]!;
    expect((await memory.delete({ user_id: ALICE, memory_id: fact.id })).data.deleted_count).toBe(1);
    expect((await memory.get({ user_id: ALICE, memory_type: 'atomic_fact', filters: { session_id: 'a2' } })).data.total_count).toBe(0);
    expect(await episodes(ALICE, { session_id: 'a2' })).toHaveLength(1);
  });

  it('an unknown id, or another owner\'s id, is NOT_FOUND and removes nothing', async () => {
    const [bobs] = await episodes(BOB, { session_id: 'b1' });
    const before = memory.stats();
    for (const [owner, id] of [[{ user_id: ALICE }, 'ep_nope'], [{ user_id: ALICE }, bobs!.id], [{ agent_id: BOB }, bobs!.id], [{ user_id: BOB, app_id: 'other' }, bobs!.id]] as const) {
      await expect(memory.delete({ ...owner, memory_id: id })).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
    expect(memory.stats()).toEqual(before);
    expect((await episodes(BOB, { session_id: 'b1' })).map((e) => e.id)).toEqual([bobs!.id]);

    const response = await createFetchHandler(memory)(new Request('http://engram.test/api/v1/memory/delete', { method: 'POST', body: JSON.stringify({ user_id: ALICE, memory_id: bobs!.id }) }));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rejects memory_id together with session_id, and a request without an owner', async () => {
    await expect(memory.delete({ user_id: ALICE, memory_id: 'x', session_id: 'a1' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(memory.delete({ memory_id: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(memory.delete({ user_id: ALICE, agent_id: BOT })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('delete a session', () => {
  it('removes the owner\'s memories of that session and nothing else', async () => {
    const bobBefore = await episodes(BOB);
    await memory.delete({ user_id: ALICE, session_id: 'a1' });
    expect(await episodes(ALICE, { session_id: 'a1' })).toEqual([]);
    expect((await memory.get({ user_id: ALICE, memory_type: 'atomic_fact', filters: { session_id: 'a1' } })).data.total_count).toBe(0);
    expect((await memory.get({ user_id: ALICE, memory_type: 'foresight' })).data.total_count).toBe(0);
    expect((await episodes(ALICE)).map((e) => e.session_id).sort()).toEqual(['a2', 'ab']);
    expect(await episodes(BOB)).toEqual(bobBefore);
  });

  it('leaves the assistant\'s case of that conversation: it is the agent\'s memory, not Alice\'s', async () => {
    // The rule until now removed every record naming Alice, so this case went with her session.
    // Ownership is exact now: a delete by Alice touches only what Alice owns.
    const casesBefore = (await memory.get({ agent_id: BOT, memory_type: 'agent_case' })).data.agent_cases;
    expect(casesBefore.map((c) => c.session_id).sort()).toEqual(['a1', 'x']);
    await memory.delete({ user_id: ALICE, session_id: 'a1' });
    expect((await memory.get({ agent_id: BOT, memory_type: 'agent_case' })).data.agent_cases).toEqual(casesBefore);
  });

  it('removes a session still in the buffer', async () => {
    await memory.delete({ user_id: ALICE, session_id: 'a3' });
    expect((await memory.search({ user_id: ALICE, query: 'shed', filters: { session_id: 'a3' } })).data.unprocessed_messages).toEqual([]);
    expect((await memory.search({ user_id: BOB, query: 'hose', filters: { session_id: 'b2' } })).data.unprocessed_messages).toHaveLength(1);
  });
});

describe('forget a whole owner', () => {
  it('leaves nothing of theirs in any answer', async () => {
    expect((await everythingOf({ user_id: ALICE })).length).toBeGreaterThan(0);
    const others = [{ user_id: BOB }, { agent_id: BOT }];
    const before = await Promise.all(others.map((owner) => everythingOf(owner)));
    const { data } = await memory.delete({ user_id: ALICE });
    expect(data.deleted_count).toBeGreaterThan(0);
    expect(await everythingOf({ user_id: ALICE })).toEqual([]);
    // Other owners' answers are unchanged, their records quoting her included (Bob's episode of the
    // shared session, the assistant's case): forgetting her is not forgetting them. (Until now those
    // records were erased with her; the rule changed on purpose.)
    expect(await Promise.all(others.map((owner) => everythingOf(owner)))).toEqual(before);
    expect(JSON.stringify(before)).toContain(ALICE);
  });

  it('keeps other owners\' own memories', async () => {
    const before = {
      b1: await episodes(BOB, { session_id: 'b1' }),
      profile: (await memory.get({ user_id: BOB, memory_type: 'profile' })).data.profiles,
      buffer: (await memory.search({ user_id: BOB, query: 'hose', filters: { session_id: 'b2' } })).data.unprocessed_messages,
      cases: (await memory.get({ agent_id: BOT, memory_type: 'agent_case' })).data.agent_cases,
      shared: await episodes(BOB, { session_id: 'ab' }),
    };
    await memory.delete({ user_id: ALICE });
    expect(await episodes(BOB, { session_id: 'b1' })).toEqual(before.b1);
    expect((await memory.get({ user_id: BOB, memory_type: 'profile' })).data.profiles).toEqual(before.profile);
    expect((await memory.search({ user_id: BOB, query: 'hose', filters: { session_id: 'b2' } })).data.unprocessed_messages).toEqual(before.buffer);
    expect((await memory.get({ agent_id: BOT, memory_type: 'agent_case' })).data.agent_cases).toEqual(before.cases);
    expect(before.cases).toHaveLength(2);
    expect(await episodes(BOB, { session_id: 'ab' })).toEqual(before.shared);
    expect(before.shared).toHaveLength(1);
    // No fact is left without its episode.
    const facts = await memory.get({ user_id: BOB, memory_type: 'atomic_fact', page_size: 100 });
    expect(facts.data.episodes.flatMap((e) => e.atomic_facts)).toHaveLength(facts.data.total_count);
  });

  it('leaves nothing of theirs in the store on disk', async () => {
    await memory.delete({ user_id: ALICE });
    await memory.close();

    const store = await createSqliteStore(dir);
    const items = await store.loadAll();
    await store.close();
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      if (item.kind === 'message') expect(item.sender_id).not.toBe(ALICE);
      else expect(item.owner_id).not.toBe(ALICE);
    }
    // Words only she said, in records only she owned (no other owner's record quotes them).
    for (const file of await readdir(dir)) {
      const text = await readFile(join(dir, file), 'latin1');
      for (const words of ['red bicycle', 'shed needs a new roof', 'south garden wall', 'quiet garden behind']) {
        expect(text.includes(words), `${file} still holds "${words}"`).toBe(false);
      }
    }

    memory = await open();
    expect(await everythingOf({ user_id: ALICE })).toEqual([]);
    expect(await episodes(BOB, { session_id: 'b1' })).toHaveLength(1);
  });

  it('of an agent: its cases and skills go, users keep theirs', async () => {
    await memory.upsertSkill({ agent_id: BOT, name: 'watering', description: 'Garden watering advice', content: 'Water early.' });
    await memory.delete({ agent_id: BOT });
    expect(await everythingOf({ agent_id: BOT })).toEqual([]);
    expect((await episodes(ALICE)).length).toBeGreaterThan(0);
  });
});
