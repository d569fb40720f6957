/**
 * LLM extraction on the write path, with a scripted LLM double: the model's narrative, facts,
 * foresight, profile and cases are stored; a failing or unusable model falls back to the rules
 * with an `extract.fallback` notice.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Notice } from '../../src/index.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';
import { scriptedLlmDouble } from '../support/scripted-llm.js';
import type { Embedder } from '../../src/models/ports.js';

const T0 = Date.UTC(2026, 10, 2, 10);
let embedder: Embedder;
beforeAll(() => {
  embedder = hashEmbedderDouble();
});

const conversation = {
  session_id: 's1',
  messages: [
    { sender_id: 'ana', sender_name: 'Ana', role: 'user' as const, timestamp: T0, content: 'I adopted a kitten yesterday. Can you suggest names?' },
    { sender_id: 'bot', role: 'assistant' as const, timestamp: T0 + 60_000, content: 'How about Pixel, Mochi or Juniper?' },
    { sender_id: 'ana', sender_name: 'Ana', role: 'user' as const, timestamp: T0 + 120_000, content: 'Mochi it is, thanks! I will take her to the vet next Friday.' },
  ],
};

const llmAnswer = JSON.stringify({
  subject: 'Ana names her new kitten',
  summary: 'Ana adopted a kitten and named her Mochi.',
  narrative: 'Ana told the assistant she had adopted a kitten on 2026-11-01 and chose the name Mochi from its suggestions.',
  facts: [
    { speaker: 'ana', content: 'Ana adopted a kitten on 2026-11-01.', evidence: 'I adopted a kitten yesterday.' },
    { speaker: 'Ana', content: 'Ana named her kitten Mochi.', evidence: 'Mochi it is, thanks!' },
    { speaker: 'bot', content: 'The assistant suggested Pixel, Mochi and Juniper.', evidence: 'How about Pixel, Mochi or Juniper?' },
  ],
  foresight: [{ speaker: 'ana', content: 'Ana will take Mochi to the vet on 2026-11-06.', evidence: 'I will take her to the vet next Friday.', due_date: '2026-11-06' }],
  profiles: [{ speaker: 'ana', explicit_facts: ['has a kitten named Mochi'], implicit_traits: ['decisive'] }],
  cases: [{ task_intent: 'Suggest kitten names', approach: 'Offered three short names', quality_score: 0.9, key_insight: 'Short names please' }],
});

describe('LLM extractor', () => {
  it('stores what the model extracted, attributed to the right owners', async () => {
    const llm = scriptedLlmDouble([llmAnswer]);
    const memory = await createMemory({ embedder, llm });
    await memory.add(conversation);
    await memory.flush({ session_id: 's1' });
    expect(llm.requests[0]!.jsonSchema).toBeDefined();
    const episodes = await memory.get({ user_id: 'ana', memory_type: 'episode' });
    expect(episodes.data.episodes[0]!.subject).toBe('Ana names her new kitten');
    expect(episodes.data.episodes[0]!.episode).toContain('chose the name Mochi');
    const facts = (await memory.get({ user_id: 'ana', memory_type: 'atomic_fact' })).data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.content));
    expect(facts.sort()).toEqual(['Ana adopted a kitten on 2026-11-01.', 'Ana named her kitten Mochi.']);
    const plans = (await memory.get({ user_id: 'ana', memory_type: 'foresight' })).data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.content));
    expect(plans).toEqual(['Ana will take Mochi to the vet on 2026-11-06.']);
    const profile = (await memory.get({ user_id: 'ana', memory_type: 'profile' })).data.profiles[0]!;
    expect(profile.profile_data['implicit_traits']).toEqual(['decisive']);
    const cases = (await memory.get({ agent_id: 'bot', memory_type: 'agent_case' })).data.agent_cases;
    expect(cases[0]).toMatchObject({ task_intent: 'Suggest kitten names', quality_score: 0.9, key_insight: 'Short names please' });
    expect(memory.stats().extractor).toBe('llm:scripted-llm-double');
    // The same shapes as the rules write, the entity graph included: links to the rules' facts
    // are dropped where the model rewrote them, never left pointing at facts that were not stored.
    const graph = memory.graph({ app_id: 'default', project_id: 'default', owner_type: 'user', owner_id: 'ana' });
    expect(graph.entities.find((e) => e.id === 'user:ana')).toMatchObject({ name: 'Ana', type: 'person', session_ids: ['s1'] });
    expect(graph.relations).toEqual([expect.objectContaining({ subject: 'user:ana', predicate: 'has_pet', object: 'e:ana-s-kitten', fact_id: null, session_id: 's1', superseded_at: null })]);
  });

  it('falls back to the rules, with a notice, when the model fails or answers nonsense', async () => {
    for (const script of [[new Error('down')], ['not json', 'still not json']]) {
      const notices: Notice[] = [];
      const memory = await createMemory({ embedder, llm: scriptedLlmDouble(script), onNotice: (n) => notices.push(n) });
      await memory.add(conversation);
      const flushed = await memory.flush({ session_id: 's1' });
      expect(flushed.data.status).toBe('extracted');
      expect(notices.map((n) => n.code)).toEqual(['extract.fallback']);
      const facts = (await memory.get({ user_id: 'ana', memory_type: 'atomic_fact' })).data.episodes.flatMap((e) => e.atomic_facts.map((f) => f.content));
      expect(facts.some((f) => f.includes('2026-11-01'))).toBe(true); // the rules resolved "yesterday"
    }
  });
});
