/**
 * `/memory/get`, the paginated listing: pages and counts, sorting by time either way, every
 * memory_type in its array, filters, and the request's validation (owner rule included).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError, type ValidationDetail } from '../../src/errors.js';
import { shapeProblems } from '../support/contract-shape.js';
import { DAY, MINUTE, MONDAY_9AM, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const N = 25;
/** Episode i happened on day (N - 1 - i) but was written i-th: time order and write order disagree. */
const happened = (i: number) => MONDAY_9AM + (N - 1 - i) * DAY;

let memory: Memory;
let clock = Date.UTC(2027, 0, 1);

beforeAll(async () => {
  memory = await createMemory({ embedder: hashEmbedderDouble(64), now: () => (clock += 1000) });
  for (let i = 0; i < N; i++) {
    await memory.add({ session_id: `g${i}`, messages: [said('gia', `Entry ${i}: I watered the garden beds today.`, happened(i))] });
    await memory.flush({ session_id: `g${i}` });
  }
  await memory.add({
    session_id: 'plans',
    messages: [
      said('gia', "I'm going to plant apple trees next week. I plan to build a fence next month.", MONDAY_9AM + 40 * DAY),
      replied('bot', 'Apple trees like sunny spots; a fence keeps deer away.', MONDAY_9AM + 40 * DAY + MINUTE),
      said('gia', 'Thanks, that is helpful.', MONDAY_9AM + 40 * DAY + 2 * MINUTE),
    ],
  });
  await memory.flush({ session_id: 'plans' });
  await memory.upsertProfile({ user_id: 'gia', profile_data: { name: 'Gia', likes: ['gardening'] } });
  for (const [i, name] of ['pruning', 'watering', 'composting'].entries()) {
    await memory.upsertSkill({ agent_id: 'bot', id: `skill-${name}`, name, description: `How to do ${name}`, content: `Steps for ${name}.` });
    await memory.upsertKnowledge({ user_id: 'gia', id: `kn-${i}`, title: `Note ${i}`, content: `Garden note ${i}.`, timestamp: MONDAY_9AM + i * DAY });
  }
  await memory.add({ session_id: 'open', messages: [said('gia', 'The roses are blooming early this year.', MONDAY_9AM + 50 * DAY)] });
});

const list = (body: Record<string, unknown>) => memory.get({ user_id: 'gia', ...body });
const entryNumber = (episode: string) => Number(/Entry (\d+)/.exec(episode)?.[1]);

describe('pagination', () => {
  it('pages through everything without overlap, with total_count and count', async () => {
    const seen: string[] = [];
    for (const [page, size] of [[1, 10], [2, 10], [3, 10], [4, 10]] as const) {
      const { data } = await list({ memory_type: 'episode', page, page_size: size, filters: { session_id: { ne: 'plans' } } });
      expect(data.total_count).toBe(N);
      expect(data.count).toBe(Math.max(0, Math.min(size, N - (page - 1) * size)));
      expect(data.episodes).toHaveLength(data.count);
      seen.push(...data.episodes.map((e) => e.id));
    }
    expect(seen).toHaveLength(N);
    expect(new Set(seen).size).toBe(N);
  });

  it('defaults to page 1 of 20', async () => {
    const { data } = await list({ memory_type: 'episode' });
    expect(data.total_count).toBe(N + 1);
    expect(data.count).toBe(20);
  });

  it('accepts page_size 1 and 100', async () => {
    expect((await list({ page_size: 1 })).data.count).toBe(1);
    expect((await list({ page_size: 100 })).data.count).toBe(N + 1);
  });

  it('has the response envelope of search plus the two counts', async () => {
    const response = await list({});
    const { total_count, count, ...arrays } = response.data;
    expect(typeof total_count).toBe('number');
    expect(typeof count).toBe('number');
    expect(shapeProblems('SearchResponse', { ...response, data: arrays })).toEqual([]);
    for (const e of arrays.episodes) expect(e.score).toBe(0);
  });
});

describe('sorting', () => {
  const order = async (body: Record<string, unknown>) =>
    (await list({ memory_type: 'episode', page_size: 100, filters: { session_id: { ne: 'plans' } }, ...body })).data.episodes.map((e) => entryNumber(e.episode));
  const ascending = Array.from({ length: N }, (_, i) => i);

  it('by timestamp, newest first by default', async () => {
    expect(await order({})).toEqual(ascending); // entry 0 happened last
    expect(await order({ sort_by: 'timestamp', sort_order: 'desc' })).toEqual(ascending);
    expect(await order({ sort_by: 'timestamp', sort_order: 'asc' })).toEqual([...ascending].reverse());
  });

  it('by created_at, either way', async () => {
    expect(await order({ sort_by: 'created_at', sort_order: 'asc' })).toEqual(ascending);
    expect(await order({ sort_by: 'created_at', sort_order: 'desc' })).toEqual([...ascending].reverse());
  });

  it('the timestamps of a page are in order', async () => {
    const { data } = await list({ memory_type: 'episode', sort_order: 'asc', page_size: 100 });
    const times = data.episodes.map((e) => Date.parse(e.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});

describe('memory_type', () => {
  it('episode → episodes, with their facts nested', async () => {
    const { data } = await list({ memory_type: 'episode', filters: { session_id: 'plans' } });
    expect(data.episodes).toHaveLength(1);
    expect(data.episodes[0]!.atomic_facts.length).toBeGreaterThan(0);
    expect([data.profiles, data.agent_cases, data.agent_skills]).toEqual([[], [], []]);
  });

  it('atomic_fact → facts nested under their episode, counted one by one', async () => {
    const { data } = await list({ memory_type: 'atomic_fact', page_size: 100 });
    const facts = data.episodes.flatMap((e) => e.atomic_facts);
    expect(data.total_count).toBe(facts.length);
    expect(data.count).toBe(facts.length);
    expect(facts.every((f) => f.id.startsWith('af_'))).toBe(true);
    expect(facts.length).toBeGreaterThanOrEqual(N);
  });

  it('foresight → plans only', async () => {
    const { data } = await list({ memory_type: 'foresight' });
    const plans = data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.content));
    expect(data.total_count).toBe(2);
    expect(plans.some((p) => p.includes('apple trees'))).toBe(true);
    expect(plans.some((p) => p.includes('fence'))).toBe(true);
  });

  it('profile → the one profile', async () => {
    const { data } = await list({ memory_type: 'profile' });
    expect(data.total_count).toBe(1);
    expect(data.profiles[0]).toMatchObject({ user_id: 'gia', score: null, profile_data: { name: 'Gia' } });
    expect(data.episodes).toEqual([]);
  });

  it('agent_case → the assistant\'s cases', async () => {
    const { data } = await memory.get({ agent_id: 'bot', memory_type: 'agent_case' });
    expect(data.total_count).toBe(1);
    expect(data.agent_cases[0]).toMatchObject({ agent_id: 'bot', session_id: 'plans', quality_score: 0.8 });
  });

  it('agent_skill → the agent\'s skills, paged', async () => {
    const first = await memory.get({ agent_id: 'bot', memory_type: 'agent_skill', page_size: 2 });
    const second = await memory.get({ agent_id: 'bot', memory_type: 'agent_skill', page_size: 2, page: 2 });
    expect(first.data.total_count).toBe(3);
    expect([first.data.count, second.data.count]).toEqual([2, 1]);
    expect([...first.data.agent_skills, ...second.data.agent_skills].map((s) => s.name).sort()).toEqual(['composting', 'pruning', 'watering']);
  });

  it('knowledge → entries in the episode shape', async () => {
    const { data } = await list({ memory_type: 'knowledge', sort_order: 'asc' });
    expect(data.episodes.map((e) => e.id)).toEqual(['kn-0', 'kn-1', 'kn-2']);
    expect(data.episodes[0]).toMatchObject({ subject: 'Note 0', episode: 'Garden note 0.', atomic_facts: [] });
  });

  it('each type lists only its own kind', async () => {
    const user = await list({ memory_type: 'agent_case' });
    expect(user.data.total_count).toBe(0);
    const agent = await memory.get({ agent_id: 'bot', memory_type: 'episode' });
    expect(agent.data.total_count).toBe(0);
  });
});

describe('filters', () => {
  it('session_id, timestamp range, sender_id and parent_id narrow the listing', async () => {
    expect((await list({ filters: { session_id: { in: ['g1', 'g2'] } } })).data.total_count).toBe(2);
    const range = await list({ page_size: 100, filters: { timestamp: { gte: happened(4), lt: new Date(happened(1)).toISOString() } } });
    expect(range.data.episodes.map((e) => entryNumber(e.episode))).toEqual([2, 3, 4]);
    expect((await list({ filters: { sender_id: 'bot' } })).data.total_count).toBe(1);
    expect((await list({ filters: { sender_id: 'nobody' } })).data.total_count).toBe(0);

    const [plans] = (await list({ filters: { session_id: 'plans' } })).data.episodes;
    // The session states two plans and no other claim: its children are foresight.
    const facts = await list({ memory_type: 'foresight', filters: { parent_id: plans!.id } });
    expect(facts.data.total_count).toBe(2);
    expect(facts.data.episodes.map((e) => e.id)).toEqual([plans!.id]);
  });

  it('a top-level session equality also lists that session\'s unprocessed messages', async () => {
    expect((await list({ filters: { session_id: 'open' } })).data.unprocessed_messages).toHaveLength(1);
    expect((await list({})).data.unprocessed_messages).toEqual([]);
  });

  it('invalid filters are 422', async () => {
    await expect(list({ filters: { user_id: 'other' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(list({ filters: { sender_id: { gt: 'a' } } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('validation', () => {
  async function rejectedAt(body: unknown, loc: (string | number)[], type: string): Promise<void> {
    let error: unknown;
    try {
      await memory.get(body);
    } catch (e) {
      error = e;
    }
    expect(isMemoryError(error), 'expected a 422').toBe(true);
    if (!isMemoryError(error)) return;
    expect(error.code).toBe('VALIDATION_FAILED');
    const hit = (error.details as ValidationDetail[]).find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
    expect(hit, JSON.stringify(error.details)).toBeDefined();
    expect(hit!.type).toBe(type);
  }

  it.each([
    ['page 0', { page: 0 }, ['body', 'page'], 'greater_than_equal'],
    ['page 1.5', { page: 1.5 }, ['body', 'page'], 'int_from_float'],
    ['page "2"', { page: '2' }, ['body', 'page'], 'int_type'],
    ['page_size 0', { page_size: 0 }, ['body', 'page_size'], 'greater_than_equal'],
    ['page_size 101', { page_size: 101 }, ['body', 'page_size'], 'less_than_equal'],
    ['sort_by score', { sort_by: 'score' }, ['body', 'sort_by'], 'enum'],
    ['sort_order up', { sort_order: 'up' }, ['body', 'sort_order'], 'enum'],
    ['memory_type memcell', { memory_type: 'memcell' }, ['body', 'memory_type'], 'enum'],
    ['unknown field', { query: 'x' }, ['body', 'query'], 'extra_forbidden'],
  ])('%s', async (_name, body, loc, type) => {
    await rejectedAt({ user_id: 'gia', ...body }, loc, type);
  });

  it('needs exactly one of user_id and agent_id', async () => {
    await rejectedAt({ memory_type: 'episode' }, ['body'], 'value_error');
    await rejectedAt({ user_id: 'gia', agent_id: 'bot' }, ['body'], 'value_error');
    await rejectedAt({ user_id: 'a b' }, ['body', 'user_id'], 'string_pattern_mismatch');
  });
});
