/**
 * Each search method on small corpora whose right answers are known, with the bundled embedding
 * model so that paraphrases work: keyword is BM25 (raw), vector is cosine (raw), hybrid fuses
 * both into calibrated 0..1 scores, agentic answers without an LLM's sufficiency check. Also the score
 * floors (min_score, radius), top_k, CJK text, the agent track and knowledge entries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SearchMethod } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { tokenize } from '../../src/index/tokenizer.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { Embedder } from '../../src/models/ports.js';
import { DAY, MINUTE, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { throughKnots, WIRE_KNOTS } from '../../src/search/scores.js';

const METHODS: SearchMethod[] = ['keyword', 'vector', 'hybrid', 'agentic'];

const CORPUS = {
  puppy: 'I adopted a small puppy from the animal shelter.',
  car: 'I bought a new electric car last month.',
  ramen: 'My favourite food is spicy ramen noodles.',
  violin: 'I started learning to play the violin.',
  skiing: 'I broke my leg while skiing in the Alps.',
  flat: 'I moved into a flat near the river downtown.',
  dentist: 'My dentist appointment is with Dr. Okonkwo on Thursday.',
  wifi: 'The wifi password for the cabin is bluefalcon77.',
  kayakThrice: 'I paddled my red kayak to the island; the kayak leaked and the kayak sank.',
  kayakOnce: 'I paddled across the bay in a kayak yesterday afternoon.',
} as const;
type Topic = keyof typeof CORPUS;

/** Questions with one right episode: paraphrases (vector's strength) and rare exact terms (keyword's). */
const QUESTIONS: [string, Topic][] = [
  ['dog pet', 'puppy'],
  ['vehicle purchase', 'car'],
  ['what does she like to eat', 'ramen'],
  ['musical instrument lessons', 'violin'],
  ['skiing accident', 'skiing'],
  ['teeth checkup', 'dentist'],
  ['internet login for the cabin', 'wifi'],
  ['Okonkwo', 'dentist'],
  ['bluefalcon77', 'wifi'],
  ['violin', 'violin'],
  ['ramen', 'ramen'],
];

let embedder: Embedder;
let memory: Memory;
const idOf = new Map<Topic, string>();
const topicOf = (id: string) => [...idOf.entries()].find(([, v]) => v === id)?.[0];

beforeAll(async () => {
  embedder = await createDefaultEmbedder();
  memory = await createMemory({ embedder });
  const topics = Object.keys(CORPUS) as Topic[];
  for (const [i, topic] of topics.entries()) {
    await remember(memory, `s-${topic}`, [said('kim', CORPUS[topic], MONDAY_9AM + i * DAY)]);
  }
  const { data } = await memory.get({ user_id: 'kim', memory_type: 'episode', sort_order: 'asc', page_size: 100 });
  data.episodes.forEach((e, i) => idOf.set(topics[i]!, e.id));

  // Chinese and Japanese, one episode each.
  await remember(memory, 'zh-1', [said('mei', '我喜欢吃北京烤鸭。', MONDAY_9AM)]);
  await remember(memory, 'zh-2', [said('mei', '周末我们去爬长城。', MONDAY_9AM + DAY)]);
  await remember(memory, 'ja-1', [said('mei', '私は東京で寿司を食べました。', MONDAY_9AM + 2 * DAY)]);

  // The agent track.
  await memory.upsertCase({ agent_id: 'scout', id: 'case-flight', session_id: 'c1', task_intent: 'Find a cheap flight to Tokyo', approach: 'Compared fares on three booking sites and picked the cheapest', quality_score: 0.8 });
  await memory.upsertCase({ agent_id: 'scout', id: 'case-faucet', session_id: 'c2', task_intent: 'Fix a leaking kitchen faucet', approach: 'Replaced the worn washer under the handle' });
  await memory.upsertCase({ agent_id: 'scout', id: 'case-menu', session_id: 'c3', task_intent: 'Plan a vegetarian dinner menu', approach: 'Chose lentil soup, roasted vegetables and fruit salad' });
  await memory.upsertSkill({ agent_id: 'scout', id: 'skill-fares', name: 'fare-comparison', description: 'Compare airline fares across sites', content: 'Open three booking sites, search the same dates, sort by price.' });
  await memory.upsertSkill({ agent_id: 'scout', id: 'skill-plumbing', name: 'plumbing-basics', description: 'Fix small household plumbing leaks', content: 'Shut off the water, replace washers and seals.' });

  // Knowledge entries, for a user and for an agent.
  await memory.upsertKnowledge({ user_id: 'kim', id: 'kn-lock', title: 'Bike lock code', content: 'The code for the bike lock is 4412.' });
  await memory.upsertKnowledge({ agent_id: 'scout', id: 'kn-visa', title: 'Visa rules for Japan', content: 'Tourists from many countries can stay ninety days without a visa.' });
});

const search = (body: Record<string, unknown>) => memory.search({ user_id: 'kim', top_k: 10, ...body });
const topics = async (body: Record<string, unknown>) => (await search(body)).data.episodes.map((e) => topicOf(e.id) ?? e.id);

describe('keyword', () => {
  it('finds exact terms', async () => {
    expect(await topics({ query: 'Okonkwo', method: 'keyword' })).toEqual(['dentist']);
    expect(await topics({ query: 'bluefalcon77', method: 'keyword' })).toEqual(['wifi']);
  });

  it('finds nothing for a paraphrase that shares no word', async () => {
    expect(tokenize('dog pet').some((t) => tokenize(CORPUS.puppy).includes(t))).toBe(false);
    expect(await topics({ query: 'dog pet', method: 'keyword' })).toEqual([]);
  });

  it('ranks by BM25: more occurrences of a rare term rank higher', async () => {
    const { data } = await search({ query: 'kayak', method: 'keyword' });
    expect(data.episodes.map((e) => topicOf(e.id))).toEqual(['kayakThrice', 'kayakOnce']);
    expect(data.episodes[0]!.score).toBeGreaterThan(data.episodes[1]!.score);
  });

  it('reports raw BM25 scores (not squashed into 0..1), best first', async () => {
    const { data } = await search({ query: 'Okonkwo dentist Thursday', method: 'keyword' });
    expect(data.episodes[0]!.score).toBeGreaterThan(1);
    const many = (await search({ query: 'Alps skiing violin ramen puppy', method: 'keyword' })).data.episodes.map((e) => e.score);
    expect(many.length).toBe(4);
    expect([...many].sort((a, b) => b - a)).toEqual(many);
  });
});

describe('vector', () => {
  it('finds a paraphrase with no shared word', async () => {
    for (const [q, topic] of [['dog pet', 'puppy'], ['vehicle purchase', 'car'], ['musical instrument lessons', 'violin']] as const) {
      expect(tokenize(q).some((t) => tokenize(CORPUS[topic]).includes(t)), q).toBe(false);
      expect((await topics({ query: q, method: 'vector' }))[0], q).toBe(topic);
    }
  });

  it('reports raw cosines, best first', async () => {
    const scores = (await search({ query: 'dog pet', method: 'vector', top_k: 100 })).data.episodes.map((e) => e.score);
    expect(scores.length).toBe(11); // every episode plus the knowledge entry: no radius without top_k -1
    expect(Math.min(...scores)).toBeLessThan(0);
    for (const s of scores) expect(Math.abs(s)).toBeLessThanOrEqual(1);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});

describe('hybrid', () => {
  it('beats or ties keyword and vector on a small set of questions', async () => {
    const quality = async (method: SearchMethod) => {
      let top1 = 0;
      let mrr = 0;
      for (const [q, topic] of QUESTIONS) {
        const rank = (await topics({ query: q, method, top_k: 5 })).indexOf(topic);
        if (rank === 0) top1++;
        if (rank >= 0) mrr += 1 / (rank + 1);
      }
      return { top1, mrr };
    };
    const keyword = await quality('keyword');
    const vector = await quality('vector');
    const hybrid = await quality('hybrid');
    expect(hybrid.top1).toBeGreaterThanOrEqual(Math.max(keyword.top1, vector.top1));
    expect(hybrid.mrr).toBeGreaterThanOrEqual(Math.max(keyword.mrr, vector.mrr) - 1e-9);
    // Each leg alone misses something the other finds.
    expect(keyword.top1).toBeLessThan(QUESTIONS.length);
    expect(vector.top1).toBeLessThan(QUESTIONS.length);
    expect(hybrid.top1).toBeGreaterThan(Math.max(keyword.top1, vector.top1));
  });

  it.each(['hybrid', 'agentic'] as const)('%s scores are calibrated into 0..1, best first', async (method) => {
    for (const [q] of [...QUESTIONS, ['Okonkwo dentist Thursday bluefalcon77 kayak kayak', 'x']]) {
      const { data } = await search({ query: q, method, top_k: 100 });
      const scores = data.episodes.map((e) => e.score);
      for (const s of [...scores, ...data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.score))]) {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    }
  });
});

describe('min_score', () => {
  const QUERY = 'Alps skiing violin ramen puppy';
  const FLOORS = [0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.9, 1];

  it.each(METHODS)('drops low items and keeps the order (%s)', async (method) => {
    const unfloored = (await search({ query: QUERY, method, radius: 0 })).data.episodes.map((e) => e.id);
    let previous = unfloored;
    let dropped = false;
    for (const floor of FLOORS) {
      const ids = (await search({ query: QUERY, method, radius: 0, min_score: floor })).data.episodes.map((e) => e.id);
      // A higher floor keeps a subset, in the same order.
      expect(ids).toEqual(previous.filter((id) => ids.includes(id)));
      if (ids.length > 0 && ids.length < unfloored.length) dropped = true;
      if (floor === 0) expect(ids).toEqual(unfloored);
      if (floor === 1) expect(ids).toEqual([]);
      previous = ids;
    }
    expect(dropped).toBe(true);
  });

  it('keeps the same episodes whichever leg ranks them: the chance hybrid shows for each', async () => {
    const hybrid = (await search({ query: QUERY, method: 'hybrid', radius: 0, top_k: 50 })).data.episodes;
    const chance = new Map(hybrid.map((e) => [e.id, e.score]));
    let dropped = 0;
    for (const method of ['keyword', 'vector'] as const) {
      const unfloored = (await search({ query: QUERY, method, radius: 0, top_k: 50 })).data.episodes.map((e) => e.id);
      for (const id of unfloored) expect(chance.has(id)).toBe(true);
      for (const floor of [0.05, 0.2, 0.5]) {
        const kept = (await search({ query: QUERY, method, radius: 0, top_k: 50, min_score: floor })).data.episodes.map((e) => e.id);
        expect(kept).toEqual(unfloored.filter((id) => chance.get(id)! >= floor));
        dropped += unfloored.length - kept.length;
      }
    }
    expect(dropped).toBeGreaterThan(0);
  });

  it.each(['hybrid', 'agentic'] as const)('is a floor on the returned score (%s)', async (method) => {
    const all = (await search({ query: QUERY, method })).data.episodes;
    for (const floor of [0.02, 0.1, 0.2]) {
      const kept = (await search({ query: QUERY, method, min_score: floor })).data.episodes;
      for (const e of kept) expect(e.score).toBeGreaterThanOrEqual(floor);
      expect(kept.map((e) => e.id)).toEqual(all.filter((e) => e.score >= floor).map((e) => e.id));
    }
  });
});

describe('radius', () => {
  it('drops vector hits under the floor', async () => {
    const { data } = await search({ query: 'dog pet', method: 'vector', radius: 0.5 });
    expect(data.episodes.map((e) => topicOf(e.id))).toEqual(['puppy']);
    for (const e of data.episodes) expect(e.score).toBeGreaterThanOrEqual(0.5);
    const looser = (await search({ query: 'dog pet', method: 'vector', radius: 0.1 })).data.episodes;
    expect(looser.length).toBeGreaterThan(1);
    for (const e of looser) expect(e.score).toBeGreaterThanOrEqual(0.1);
  });

  it('applies before fusion in hybrid: a paraphrase query keeps only hits above it', async () => {
    expect(await topics({ query: 'dog pet', method: 'hybrid', radius: 0.5 })).toEqual(['puppy']);
    expect((await topics({ query: 'dog pet', method: 'hybrid', radius: 0 })).length).toBeGreaterThan(1);
  });

  it('an explicit 0 keeps every hit with a non-negative cosine', async () => {
    const everything = (await search({ query: 'dog pet', method: 'vector', top_k: 100 })).data.episodes;
    const zero = (await search({ query: 'dog pet', method: 'vector', top_k: 100, radius: 0 })).data.episodes;
    expect(zero.map((e) => e.id)).toEqual(everything.filter((e) => e.score >= 0).map((e) => e.id));
    expect(zero.length).toBeLessThan(everything.length);
  });

  it('top_k -1 applies the automatic radius 0.5, and an explicit radius wins over it', async () => {
    const auto = await memory.searchWithTrace({ user_id: 'kim', query: 'dog pet', method: 'vector', top_k: -1 });
    expect(auto.trace.radius).toBe(0.5);
    expect(auto.response.data.episodes.map((e) => topicOf(e.id))).toEqual(['puppy']);
    const defaulted = await memory.searchWithTrace({ user_id: 'kim', query: 'dog pet', method: 'vector' });
    expect(defaulted.trace.radius).toBe(0.5);
    const explicit = await memory.searchWithTrace({ user_id: 'kim', query: 'dog pet', method: 'vector', top_k: -1, radius: 0 });
    expect(explicit.trace.radius).toBe(0);
    expect(explicit.response.data.episodes.length).toBeGreaterThan(1);
    const withK = await memory.searchWithTrace({ user_id: 'kim', query: 'dog pet', method: 'vector', top_k: 5 });
    expect(withK.trace.radius).toBeNull();
  });
});

describe('top_k', () => {
  it.each(METHODS)('bounds the number of episodes (%s)', async (method) => {
    for (const top_k of [1, 2, 3, 5]) {
      const { data } = await search({ query: 'Alps skiing violin ramen puppy kayak car', method, top_k, radius: 0 });
      expect(data.episodes.length).toBeLessThanOrEqual(top_k);
      expect(data.episodes.length).toBeGreaterThan(0);
    }
    const vector = (await search({ query: 'dog pet', method: 'vector', top_k: 3 })).data.episodes;
    if (method === 'vector') expect(vector).toHaveLength(3);
  });
});

describe('CJK text', () => {
  it.each([
    ['烤鸭', '我喜欢吃北京烤鸭。'],
    ['北京', '我喜欢吃北京烤鸭。'],
    ['长城', '周末我们去爬长城。'],
    ['寿司', '私は東京で寿司を食べました。'],
    ['東京', '私は東京で寿司を食べました。'],
  ])('keyword search finds %s', async (query, text) => {
    const { data } = await memory.search({ user_id: 'mei', query, method: 'keyword' });
    expect(data.episodes).toHaveLength(1);
    expect(data.episodes[0]!.episode).toContain(text);
  });
});

describe('agentic without an LLM', () => {
  it('answers without a sufficiency check and says so; with no join and nothing to expand, in one round', async () => {
    const { response, trace } = await memory.searchWithTrace({ user_id: 'kim', query: 'dog pet', method: 'agentic', top_k: 3 });
    expect(trace.rounds).toBe(1);
    expect(trace.supplementary_queries).toEqual([]);
    expect(trace.notices.map((n) => n.code)).toContain('agentic.single_round');
    expect(topicOf(response.data.episodes[0]!.id)).toBe('puppy');
  });

  it('other methods carry no agentic notice', async () => {
    const { trace } = await memory.searchWithTrace({ user_id: 'kim', query: 'dog pet', method: 'hybrid' });
    expect(trace.notices.map((n) => n.code)).not.toContain('agentic.single_round');
  });
});

describe('the agent track', () => {
  it('finds upserted cases and skills for their agent', async () => {
    for (const method of METHODS) {
      const { data } = await memory.search({ agent_id: 'scout', query: 'cheap airline tickets to Japan', method, top_k: 10 });
      expect(data.agent_cases[0]?.id, method).toBe('case-flight');
      expect(data.agent_skills[0]?.id, method).toBe('skill-fares');
    }
  });

  it('shows them to no one else (users, other agents, other apps)', async () => {
    for (const method of METHODS) {
      for (const owner of [{ user_id: 'kim' }, { user_id: 'scout' }, { agent_id: 'other' }, { agent_id: 'scout', app_id: 'elsewhere' }]) {
        const { data } = await memory.search({ ...owner, query: 'cheap airline tickets to Japan', method, top_k: 10 });
        expect(data.agent_cases, JSON.stringify(owner)).toEqual([]);
        expect(data.agent_skills, JSON.stringify(owner)).toEqual([]);
      }
    }
  });

  it('refuses cases and skills for a user owner', async () => {
    await expect(memory.upsertCase({ user_id: 'kim', session_id: 'c', task_intent: 'x', approach: 'y' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(memory.upsertSkill({ user_id: 'kim', name: 'x', description: 'y', content: 'z' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('an upsert updates its own record but never takes over an id of another kind or owner', async () => {
    const agent = await createMemory({ embedder });
    await agent.upsertSkill({ agent_id: 'scout', id: 'shared-id', name: 'n', description: 'd', content: 'c' });
    expect((await agent.upsertSkill({ agent_id: 'scout', id: 'shared-id', name: 'n2', description: 'd', content: 'c' })).data.status).toBe('updated');
    await expect(agent.upsertCase({ agent_id: 'scout', id: 'shared-id', session_id: 's', task_intent: 't', approach: 'a' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(agent.upsertKnowledge({ agent_id: 'scout', id: 'shared-id', title: 't', content: 'c' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(agent.upsertSkill({ agent_id: 'other', id: 'shared-id', name: 'n', description: 'd', content: 'c' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const skills = (await agent.get({ agent_id: 'scout', memory_type: 'agent_skill' })).data.agent_skills;
    expect(skills.map((s) => [s.id, s.name])).toEqual([['shared-id', 'n2']]);
    expect((await agent.get({ agent_id: 'scout', memory_type: 'agent_case' })).data.total_count).toBe(0);
    await agent.close();
  });

  it('hybrid case scores are 0.7·cos + 0.3·s/(s+5), s the BM25 of the case', async () => {
    // s is BM25 on the scale the fusion was fitted on, a fixed multiple of the keyword score: solve
    // the formula for s and check that one multiple explains every case of every query.
    const ratios: number[] = [];
    let withoutKeyword = 0;
    for (const query of ['cheap airline tickets to Japan', 'leaking faucet washer', 'vegetarian dinner', 'booking sites', 'cheapest fares sites']) {
      const body = { agent_id: 'scout', query, top_k: 10 };
      const cos = new Map((await memory.search({ ...body, method: 'vector' })).data.agent_cases.map((c) => [c.id, c.score]));
      const bm25 = new Map((await memory.search({ ...body, method: 'keyword' })).data.agent_cases.map((c) => [c.id, c.score]));
      const hybrid = (await memory.search({ ...body, method: 'hybrid' })).data.agent_cases;
      expect(hybrid.length).toBe(3);
      expect(hybrid.map((c) => c.score)).toEqual([...hybrid.map((c) => c.score)].sort((a, b) => b - a));
      for (const c of hybrid) {
        const meaning = 0.7 * Math.max(0, cos.get(c.id)!);
        const keyword = bm25.get(c.id) ?? 0;
        if (keyword === 0) {
          withoutKeyword++;
          expect(c.score, `${query} / ${c.id}`).toBeCloseTo(meaning, 5);
          continue;
        }
        const squashed = (c.score - meaning) / 0.3; // s / (s + 5)
        expect(squashed).toBeGreaterThan(0);
        expect(squashed).toBeLessThan(1);
        ratios.push((5 * squashed) / (1 - squashed) / keyword);
      }
    }
    expect(withoutKeyword).toBeGreaterThan(0);
    expect(ratios.length).toBeGreaterThanOrEqual(3);
    for (const r of ratios) expect(r / ratios[0]!).toBeCloseTo(1, 2);
  });

  it('enable_llm_rerank without an LLM keeps the fused order and leaves a notice', async () => {
    const body = { agent_id: 'scout', query: 'cheap airline tickets to Japan', method: 'hybrid', top_k: 10 };
    const plain = await memory.searchWithTrace(body);
    const asked = await memory.searchWithTrace({ ...body, enable_llm_rerank: true });
    expect(asked.trace.notices.map((n) => n.code)).toContain('llm_rerank.unavailable');
    expect(plain.trace.notices.map((n) => n.code)).not.toContain('llm_rerank.unavailable');
    expect(asked.response.data.agent_cases).toEqual(plain.response.data.agent_cases);
    expect(asked.response.data.agent_skills).toEqual(plain.response.data.agent_skills);
  });
});

describe('knowledge entries', () => {
  it('are searchable by keyword and by meaning, as episode items', async () => {
    expect((await topics({ query: 'bike lock', method: 'keyword' }))).toEqual(['kn-lock']);
    for (const method of ['vector', 'hybrid', 'agentic'] as const) {
      const { data } = await search({ query: 'bicycle security combination', method });
      expect(data.episodes[0]?.id, method).toBe('kn-lock');
      expect(data.episodes[0]).toMatchObject({ subject: 'Bike lock code', episode: 'The code for the bike lock is 4412.', user_id: 'kim', type: 'Conversation' });
    }
  });

  it('belong to their owner: an agent\'s entry is searchable by that agent only', async () => {
    const agent = await memory.search({ agent_id: 'scout', query: 'visa Japan', method: 'keyword' });
    expect(agent.data.episodes.map((e) => e.id)).toEqual(['kn-visa']);
    expect(agent.data.episodes[0]!.user_id).toBeNull();
    expect((await search({ query: 'visa Japan', method: 'keyword' })).data.episodes).toEqual([]);
  });
});

describe('wire maps', () => {
  it("each shown item says its map: another participant's words, the owner's words with others, the owner alone", async () => {
    const chat = await createMemory({ embedder });
    await remember(chat, 'trip', [
      said('ana', 'I am planning a trip to Lisbon in May with my sister.', MONDAY_9AM),
      replied('guide', 'For Lisbon I recommend the tram 28 ride and the pastries at Belém.', MONDAY_9AM + MINUTE),
    ]);
    await remember(chat, 'garden', [said('ana', 'I planted tomatoes and basil in the garden for my sister.', MONDAY_9AM + DAY)]);
    const { response, trace } = await chat.searchWithTrace({ user_id: 'ana', query: 'what did the guide recommend to my sister in Lisbon', method: 'hybrid', top_k: 5 });
    const shown = response.data.episodes.flatMap((e) => [e.id, ...e.atomic_facts.map((f) => f.id)]);
    expect(Object.keys(trace.wire_map).sort()).toEqual([...shown].sort());
    const trip = response.data.episodes.find((e) => e.session_id === 'trip')!;
    const garden = response.data.episodes.find((e) => e.session_id === 'garden')!;
    // Passages are attributed ("guide replied: …"); the owner's words with the guide are shared.
    const recommended = trip.atomic_facts.find((f) => f.content.includes('tram 28'));
    expect(recommended).toBeDefined();
    for (const f of trip.atomic_facts) expect(trace.wire_map[f.id]).toBe(f.content.startsWith('guide replied:') ? 'passage' : 'shared_fact');
    expect(['shared_episode', 'shared_fact', 'passage']).toContain(trace.wire_map[trip.id]);
    // Ana alone in the garden: her own maps.
    for (const f of garden.atomic_facts) expect(trace.wire_map[f.id]).toBe('fact');
    expect(['episode', 'fact']).toContain(trace.wire_map[garden.id]);
    // An episode that came in through a fact carries that fact's score.
    for (const e of [trip, garden]) {
      if (trace.wire_map[e.id]!.endsWith('episode')) continue;
      expect(e.atomic_facts.map((f) => f.score)).toContain(e.score);
    }
    // The maps differ, so the same competition score shows differently through each.
    expect(throughKnots(0.5, WIRE_KNOTS.passage)).not.toBe(throughKnots(0.5, WIRE_KNOTS.fact));
    await chat.close();
  });
});

describe('records of equal score', () => {
  // The same words said in three conversations score exactly alike under every method. Their
  // order must not come from the records' ids (random per write) or from the order they were
  // written in: the newest comes first, the same on every run.
  const TEXT = 'I keep my grandfather\'s brass compass in the top drawer.';
  // Dates written alike (the 3rd, 5th and 7th), so that the episodes' texts are equally long.
  const sessions = [['s-old', MONDAY_9AM + DAY], ['s-mid', MONDAY_9AM + 3 * DAY], ['s-new', MONDAY_9AM + 5 * DAY]] as const;

  async function orderOf(method: SearchMethod, writeOrder: readonly (typeof sessions)[number][]): Promise<string[]> {
    const fresh = await createMemory({ embedder });
    for (const [session, at] of writeOrder) await remember(fresh, session, [said('kim', TEXT, at)]);
    const { data } = await fresh.search({ user_id: 'kim', query: 'brass compass drawer', method, top_k: 10, radius: 0 });
    await fresh.close();
    const scores = data.episodes.map((e) => e.score);
    expect(scores).toHaveLength(3);
    expect(new Set(scores).size, `${method}: the three must tie for this test to mean anything`).toBe(1);
    return data.episodes.map((e) => e.session_id!);
  }

  it.each(METHODS)('%s: newest first, whatever the ids and the order of writing', async (method) => {
    const runs = [
      await orderOf(method, sessions),
      await orderOf(method, [...sessions].reverse()),
      await orderOf(method, [sessions[1], sessions[0], sessions[2]]),
    ];
    for (const run of runs) expect(run).toEqual(['s-new', 's-mid', 's-old']);
  });
});
