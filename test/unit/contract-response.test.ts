/**
 * The SearchResponse shape (seed 000): the envelope, the five arrays that are always there, and
 * every item kind with exactly the seed's keys, checked against the seed's schemas. Also when
 * `unprocessed_messages` is filled (a top-level `session_id` equality) and when it is not.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { schemaKeys, shapeProblems } from '../support/contract-shape.js';
import { MINUTE, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const METHODS = ['keyword', 'vector', 'hybrid', 'agentic'] as const;
const ARRAYS = ['episodes', 'profiles', 'agent_cases', 'agent_skills', 'unprocessed_messages'] as const;
const sorted = (keys: string[]) => [...keys].sort();

let memory: Memory;

beforeAll(async () => {
  memory = await createMemory({ embedder: hashEmbedderDouble() });
  await remember(memory, 'trip-1', [
    said('uma', 'My name is Uma. I live in Lisbon and I love surfing at dawn.', MONDAY_9AM, { sender_name: 'Uma' }),
    replied('aide', 'Surfing at dawn in Lisbon sounds wonderful; Carcavelos beach has gentle waves.', MONDAY_9AM + MINUTE),
    said('uma', 'Thanks, that is helpful! I will try Carcavelos beach on Saturday.', MONDAY_9AM + 2 * MINUTE, { sender_name: 'Uma' }),
  ]);
  await memory.upsertCase({
    agent_id: 'aide', session_id: 'trip-1', task_intent: 'Recommend a surfing beach near Lisbon', approach: 'Suggested Carcavelos for beginners',
    quality_score: 0.9, key_insight: 'Beginners want gentle waves', timestamp: MONDAY_9AM,
  });
  await memory.upsertSkill({
    agent_id: 'aide', name: 'surf-spot-advice', description: 'Recommend surfing beaches by skill level',
    content: 'Ask the skill level first, then suggest a beach with matching waves.', confidence: 0.7, maturity_score: 0.4, source_case_ids: ['c1'],
  });
  // Left in the buffer: these are the unprocessed messages of session open-1.
  await memory.add({
    session_id: 'open-1',
    messages: [
      said('uma', 'Surfing lessons start next week, I booked five of them.', MONDAY_9AM + 3_600_000, { id: 'client-msg-1', sender_name: 'Uma' }),
      replied('aide', 'Great, five surfing lessons will build a solid base.', MONDAY_9AM + 3_600_000 + MINUTE, { tool_calls: [{ name: 'calendar', arguments: '{}' }] }),
      { sender_id: 'uma', role: 'user', timestamp: MONDAY_9AM + 3_600_000 + 2 * MINUTE, content: [{ type: 'text', text: 'Surfing photo attached' }, { type: 'image_url', image_url: 'x' }] },
    ],
  });
});

function expectEnvelope(response: SearchResponse): void {
  expect(shapeProblems('SearchResponse', response)).toEqual([]);
  expect(sorted(Object.keys(response))).toEqual(['data', 'request_id']);
  expect(typeof response.request_id).toBe('string');
  expect(response.request_id.length).toBeGreaterThan(0);
  expect(sorted(Object.keys(response.data))).toEqual(sorted([...ARRAYS]));
  for (const key of ARRAYS) expect(Array.isArray(response.data[key]), key).toBe(true);
}

describe('the envelope', () => {
  it.each(METHODS)('has request_id and all five arrays for a user owner (%s)', async (method) => {
    const response = await memory.search({ user_id: 'uma', query: 'surfing', method, top_k: 10 });
    expectEnvelope(response);
    expect(response.data.episodes.length).toBeGreaterThan(0);
  });

  it.each(METHODS)('has all five arrays for an agent owner (%s)', async (method) => {
    const response = await memory.search({ agent_id: 'aide', query: 'surfing beach', method, top_k: 10 });
    expectEnvelope(response);
  });

  it.each(METHODS)('has all five arrays, empty, on an empty memory (%s)', async (method) => {
    const empty = await createMemory({ embedder: hashEmbedderDouble() });
    for (const owner of [{ user_id: 'nobody' }, { agent_id: 'nobot' }]) {
      const response = await empty.search({ ...owner, query: 'anything at all', method, include_profile: true, filters: { session_id: 'open-1' } });
      expectEnvelope(response);
      for (const key of ARRAYS) expect(response.data[key], key).toEqual([]);
    }
    await empty.close();
  });

  it('has all five arrays for an owner with nothing stored in a busy memory', async () => {
    const response = await memory.search({ user_id: 'stranger', query: 'surfing', include_profile: true });
    expectEnvelope(response);
    for (const key of ARRAYS) expect(response.data[key], key).toEqual([]);
  });

  it('gives every response its own request_id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await memory.search({ user_id: 'uma', query: 'surfing' })).request_id);
    expect(ids.size).toBe(5);
  });
});

describe('episode items', () => {
  it.each(METHODS)('have exactly the seed\'s fields (%s)', async (method) => {
    const { data } = await memory.search({ user_id: 'uma', query: 'surfing Lisbon dawn', method, top_k: 10 });
    expect(data.episodes.length).toBeGreaterThan(0);
    for (const e of data.episodes) {
      expect(shapeProblems('SearchEpisodeItem', e)).toEqual([]);
      expect(sorted(Object.keys(e))).toEqual(sorted(schemaKeys('SearchEpisodeItem')));
      expect(e.type).toBe('Conversation');
      expect(e.user_id).toBe('uma');
      expect(e.session_id).toBe('trip-1');
      expect(new Date(e.timestamp).getTime()).toBe(MONDAY_9AM);
      expect(e.sender_ids.sort()).toEqual(['aide', 'uma']);
      for (const f of e.atomic_facts) expect(sorted(Object.keys(f))).toEqual(sorted(schemaKeys('SearchAtomicFactItem')));
    }
  });

  it('nest atomic facts with id, content and a numeric score', async () => {
    const { data } = await memory.search({ user_id: 'uma', query: 'Uma lives in Lisbon', method: 'hybrid', top_k: 10 });
    const facts = data.episodes.flatMap((e) => e.atomic_facts);
    expect(facts.length).toBeGreaterThan(0);
    for (const f of facts) expect(shapeProblems('SearchAtomicFactItem', f)).toEqual([]);
  });

  it('never come back for an agent owner from a user\'s conversation', async () => {
    for (const method of METHODS) {
      const { data } = await memory.search({ agent_id: 'aide', query: 'surfing Lisbon dawn', method, top_k: 10 });
      expect(data.episodes, method).toEqual([]);
    }
  });
});

describe('profile items', () => {
  it('appear once with score null when include_profile is set', async () => {
    for (const method of METHODS) {
      const { data } = await memory.search({ user_id: 'uma', query: 'surfing', method, include_profile: true });
      expect(data.profiles).toHaveLength(1);
      const profile = data.profiles[0]!;
      expect(shapeProblems('SearchProfileItem', profile)).toEqual([]);
      expect(sorted(Object.keys(profile))).toEqual(sorted(schemaKeys('SearchProfileItem')));
      expect(profile.score).toBeNull();
      expect(profile.user_id).toBe('uma');
      expect(profile.profile_data).toMatchObject({ location: 'Lisbon' });
    }
  });

  it('are absent without include_profile', async () => {
    expect((await memory.search({ user_id: 'uma', query: 'surfing' })).data.profiles).toEqual([]);
    expect((await memory.search({ user_id: 'uma', query: 'surfing', include_profile: false })).data.profiles).toEqual([]);
  });

  it('are never returned for an agent owner', async () => {
    const { data } = await memory.search({ agent_id: 'aide', query: 'surfing', include_profile: true });
    expect(data.profiles).toEqual([]);
  });
});

describe('agent case and skill items', () => {
  it.each(METHODS)('have exactly the seed\'s fields (%s)', async (method) => {
    const { data } = await memory.search({ agent_id: 'aide', query: 'surfing beach Lisbon', method, top_k: 10, radius: 0 });
    expect(data.agent_cases.length).toBeGreaterThan(0);
    expect(data.agent_skills.length).toBeGreaterThan(0);
    for (const c of data.agent_cases) {
      expect(shapeProblems('SearchAgentCaseItem', c)).toEqual([]);
      expect(sorted(Object.keys(c))).toEqual(sorted(schemaKeys('SearchAgentCaseItem')));
      expect(c.agent_id).toBe('aide');
    }
    for (const s of data.agent_skills) {
      expect(shapeProblems('SearchAgentSkillItem', s)).toEqual([]);
      expect(sorted(Object.keys(s))).toEqual(sorted(schemaKeys('SearchAgentSkillItem')));
      expect(s.agent_id).toBe('aide');
    }
  });

  it('carry the upserted values', async () => {
    const { data } = await memory.search({ agent_id: 'aide', query: 'surfing beach Lisbon', method: 'keyword', top_k: 10 });
    const upserted = data.agent_cases.find((c) => c.task_intent === 'Recommend a surfing beach near Lisbon');
    expect(upserted).toMatchObject({ quality_score: 0.9, key_insight: 'Beginners want gentle waves', session_id: 'trip-1', timestamp: new Date(MONDAY_9AM).toISOString() });
    const skill = data.agent_skills.find((s) => s.name === 'surf-spot-advice');
    expect(skill).toMatchObject({ confidence: 0.7, maturity_score: 0.4, source_case_ids: ['c1'] });
  });

  it('are empty for a user owner', async () => {
    for (const method of METHODS) {
      const { data } = await memory.search({ user_id: 'uma', query: 'surfing beach Lisbon', method });
      expect(data.agent_cases).toEqual([]);
      expect(data.agent_skills).toEqual([]);
    }
  });
});

describe('unprocessed messages', () => {
  const search = (filters: unknown, owner: Record<string, string> = { user_id: 'uma' }) =>
    memory.search({ ...owner, query: 'surfing', filters });

  it('are filled by a top-level session_id equality, bare or {eq}', async () => {
    for (const filters of [{ session_id: 'open-1' }, { session_id: { eq: 'open-1' } }, { session_id: 'open-1', timestamp: { gt: 0 } }]) {
      const { data } = await search(filters);
      expect(data.unprocessed_messages).toHaveLength(3);
      for (const m of data.unprocessed_messages) {
        expect(shapeProblems('UnprocessedMessageDTO', m)).toEqual([]);
        expect(sorted(Object.keys(m))).toEqual(sorted(schemaKeys('UnprocessedMessageDTO')));
        expect(m.session_id).toBe('open-1');
      }
    }
  });

  it('keep each message as it was sent (id, role, content list, tool calls)', async () => {
    const { data } = await search({ session_id: 'open-1' });
    const [first, second, third] = data.unprocessed_messages;
    expect(first).toMatchObject({ id: 'client-msg-1', sender_id: 'uma', sender_name: 'Uma', role: 'user', app_id: 'default', project_id: 'default' });
    expect(first!.timestamp).toBe(new Date(MONDAY_9AM + 3_600_000).toISOString());
    expect(second).toMatchObject({ sender_id: 'aide', role: 'assistant', tool_calls: [{ name: 'calendar', arguments: '{}' }], tool_call_id: null });
    expect(third!.content).toEqual([{ type: 'text', text: 'Surfing photo attached' }, { type: 'image_url', image_url: 'x' }]);
  });

  it('are shown to an agent taking part in the session', async () => {
    const { data } = await search({ session_id: 'open-1' }, { agent_id: 'aide' });
    expect(data.unprocessed_messages).toHaveLength(3);
  });

  it.each([
    ['no filters', null],
    ['session_id in', { session_id: { in: ['open-1'] } }],
    ['session_id under AND', { AND: [{ session_id: 'open-1' }] }],
    ['session_id under OR', { OR: [{ session_id: 'open-1' }] }],
    ['session_id ne', { session_id: { ne: 'trip-1' } }],
    ['session_id gte', { session_id: { gte: 'open-1' } }],
    ['another session', { session_id: 'trip-1' }],
    ['a session nobody used', { session_id: 'open-2' }],
    ['sender_id only', { sender_id: 'uma' }],
  ])('are empty otherwise: %s', async (_name, filters) => {
    const { data } = await search(filters);
    expect(data.unprocessed_messages).toEqual([]);
  });

  it('are not shown to an owner who took no part in the session', async () => {
    expect((await search({ session_id: 'open-1' }, { user_id: 'stranger' })).data.unprocessed_messages).toEqual([]);
  });
});
