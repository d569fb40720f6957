/** Export and import: the JSON bundle round-trips a memory exactly; bad bundles are refused whole. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory, isMemoryError, type Memory } from '../../src/index.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { Embedder } from '../../src/models/ports.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const T0 = Date.UTC(2026, 3, 4, 9);
let embedder: Embedder;

async function seeded(): Promise<Memory> {
  const memory = await createMemory({ embedder });
  await memory.add({
    session_id: 'garden',
    messages: [
      { sender_id: 'kim', sender_name: 'Kim', role: 'user', timestamp: T0, content: 'I planted tomatoes and basil on my balcony. I will repot the basil next week.' },
      { sender_id: 'helper', role: 'assistant', timestamp: T0 + 1000, content: 'Basil likes six hours of sun a day.' },
    ],
  });
  await memory.flush({ session_id: 'garden' });
  await memory.add({ session_id: 'open', messages: [{ sender_id: 'kim', role: 'user', timestamp: T0 + 5000, content: 'Still thinking about peppers.' }] });
  await memory.upsertKnowledge({ user_id: 'kim', title: 'Frost dates', content: 'Last frost here is mid April.' });
  await memory.upsertSkill({ agent_id: 'helper', name: 'Plant care', description: 'Watering advice', content: 'Water in the morning.' });
  await memory.upsertProfile({ user_id: 'kim', profile_data: { city: 'Porto' } });
  return memory;
}

const QUERIES = [
  { user_id: 'kim', query: 'what did I plant', method: 'hybrid' },
  { user_id: 'kim', query: 'frost', method: 'keyword' },
  { user_id: 'kim', query: 'herbs on the balcony', method: 'vector', include_profile: true, filters: { session_id: 'open' } },
  { agent_id: 'helper', query: 'watering', method: 'hybrid' },
];

async function answers(memory: Memory) {
  const out = [];
  for (const q of QUERIES) out.push((await memory.search(q)).data);
  return out;
}

beforeAll(async () => {
  embedder = await createDefaultEmbedder();
});

describe('export / import', () => {
  it('an imported bundle gives the same search results', async () => {
    const original = await seeded();
    const bundle = JSON.parse(JSON.stringify(await original.export())); // through JSON, as a file would
    const copy = await createMemory({ embedder });
    const result = await copy.import(bundle);
    expect(result).toEqual({ imported: bundle.items.length, reembedded: 0, removed: 0 });
    expect(await answers(copy)).toEqual(await answers(original));
    expect(copy.stats().records).toBe(original.stats().records);
    expect(copy.stats().buffered_messages).toBe(1);
  });

  it('re-embeds records made by another model', async () => {
    const other = await createMemory({ embedder: hashEmbedderDouble() });
    await other.upsertKnowledge({ user_id: 'kim', title: 'Soil', content: 'Use peat-free compost.' });
    const copy = await createMemory({ embedder });
    const result = await copy.import(await other.export());
    expect(result.reembedded).toBe(1);
    const { data } = await copy.search({ user_id: 'kim', query: 'compost for soil', method: 'vector', top_k: 1 });
    expect(data.episodes[0]!.subject).toBe('Soil');
  });

  it('replace mode empties the memory first; merge keeps what is there', async () => {
    const source = await seeded();
    const bundle = await source.export();
    const target = await createMemory({ embedder });
    await target.upsertKnowledge({ user_id: 'other', title: 'Keep me', content: 'present before the import' });
    await target.import(bundle);
    expect((await target.get({ user_id: 'other', memory_type: 'knowledge' })).data.total_count).toBe(1);
    const replaced = await target.import(bundle, { mode: 'replace' });
    expect(replaced.removed).toBe(1);
    expect((await target.get({ user_id: 'other', memory_type: 'knowledge' })).data.total_count).toBe(0);
  });

  it('refuses a bad bundle whole, with a 422 naming the items, and writes nothing', async () => {
    const bundle = await (await seeded()).export();
    const target = await createMemory({ embedder });
    const broken = { ...bundle, items: [...bundle.items.slice(0, 3), '{"kind":"episode"}', 'not json'] };
    const error = await target.import(broken).catch((e: unknown) => e);
    expect(isMemoryError(error) && error.code).toBe('VALIDATION_FAILED');
    expect((error as { details: { loc: unknown[] }[] }).details.map((d) => d.loc)).toEqual([['body', 'items', 3], ['body', 'items', 4]]);
    expect(target.stats().records).toBe(0);
    for (const bad of [null, {}, { ...bundle, format: 'x' }, { ...bundle, version: 99 }, { ...bundle, items: 'x' }]) {
      const e = await target.import(bad).catch((x: unknown) => x);
      expect(isMemoryError(e) && e.status).toBe(422);
    }
  });

  it('exports Markdown a person can read, one file per owner and kind', async () => {
    const files = await (await seeded()).exportMarkdown();
    const paths = files.map((f) => f.path);
    expect(paths).toEqual([
      'default/default/agents/helper/cases.md',
      'default/default/agents/helper/skills.md',
      'default/default/users/kim/episodes.md',
      'default/default/users/kim/knowledge.md',
      'default/default/users/kim/profile.md',
    ]);
    const episodes = files.find((f) => f.path.endsWith('kim/episodes.md'))!.content;
    expect(episodes).toContain('# episodes of user kim');
    expect(episodes).toContain('**Facts**');
    expect(episodes).toContain('**Plans**');
    expect(episodes).toMatch(/repot the basil next week \(week of 2026-04-\d\d\)/);
  });
});
