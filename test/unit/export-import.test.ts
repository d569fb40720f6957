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

  it('writes version 2: each item a plain JSON object, its vector base64', async () => {
    const memory = await seeded();
    const text = JSON.stringify(await memory.export());
    const bundle = JSON.parse(text) as { version: number; embedder: { dim: number }; items: Record<string, unknown>[] };
    expect(bundle.version).toBe(2);
    expect(bundle.items.length).toBeGreaterThanOrEqual(5);
    expect(bundle.items.every((item) => typeof item === 'object' && item !== null && typeof item['id'] === 'string')).toBe(true);
    const withVector = bundle.items.filter((item) => typeof item['vector'] === 'string');
    expect(withVector.length).toBeGreaterThan(0);
    // base64 of float32 bytes: 4 bytes a dimension, 3 bytes per 4 characters.
    for (const item of withVector) expect(Math.floor(((item['vector'] as string).replace(/=+$/, '').length * 3) / 4)).toBe(bundle.embedder.dim * 4);
    expect(bundle.items.filter((item) => item['kind'] === 'message')).toHaveLength(1);
  });

  it('still imports a version 1 bundle (each item a JSON string)', async () => {
    const original = await seeded();
    const current = JSON.parse(JSON.stringify(await original.export())) as { items: unknown[] };
    // Version 1 wrote JSON.stringify of exactly what version 2 holds as an object.
    const v1 = { ...current, version: 1, items: current.items.map((item) => JSON.stringify(item)) };
    const copy = await createMemory({ embedder });
    expect(await copy.import(v1)).toEqual({ imported: v1.items.length, reembedded: 0, removed: 0 });
    expect(await answers(copy)).toEqual(await answers(original));
    // Each version has its own item shape: objects in a version 1 bundle are refused, strings in version 2 too.
    for (const mixed of [{ ...v1, items: current.items }, { ...current, version: 2, items: v1.items }]) {
      const error = await createMemory({ embedder }).then((m) => m.import(mixed)).catch((e: unknown) => e);
      expect(isMemoryError(error) && error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('an exported bundle is the caller\'s own: changing it leaves the memory as it was', async () => {
    const memory = await seeded();
    const before = await answers(memory);
    const bundle = await memory.export();
    for (const item of bundle.items) {
      item['summary'] = 'changed';
      if (Array.isArray(item['sender_ids'])) (item['sender_ids'] as string[]).push('intruder');
    }
    expect(await answers(memory)).toEqual(before);
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
    const broken = { ...bundle, items: [...bundle.items.slice(0, 3), { kind: 'episode' }, 'not an object'] } as unknown;
    const error = await target.import(broken).catch((e: unknown) => e);
    expect(isMemoryError(error) && error.code).toBe('VALIDATION_FAILED');
    expect((error as { details: { loc: unknown[] }[] }).details.map((d) => d.loc)).toEqual([['body', 'items', 3], ['body', 'items', 4]]);
    expect(target.stats().records).toBe(0);
    // Two items with one id: the store keeps one item per id, so the second would replace the first in silence.
    const episode = bundle.items.find((i) => i.kind === 'episode')!;
    const twice = { ...bundle, items: [...bundle.items, { ...bundle.items.find((i) => i.kind === 'agent_skill')!, id: episode.id }] };
    const dup = await target.import(twice).catch((e: unknown) => e);
    expect((dup as { details: { loc: unknown[]; msg: string }[] }).details).toEqual([expect.objectContaining({ loc: ['body', 'items', bundle.items.length], msg: expect.stringContaining(`is the id of item ${bundle.items.indexOf(episode)} too`) })]);
    expect(target.stats().records).toBe(0);
    for (const bad of [null, {}, { ...bundle, format: 'x' }, { ...bundle, version: 99 }, { ...bundle, items: 'x' }]) {
      const e = await target.import(bad).catch((x: unknown) => x);
      expect(isMemoryError(e) && e.status).toBe(422);
    }
  });

  it('refuses an item whose field has the wrong type, or else stays whole: every later write, search and listing answers', async () => {
    // Each field of each stored item in turn, set to a value of another type. Before, some were
    // stored: a message whose content was an object failed every later write to its session
    // ("content.map is not a function"), a fact whose content was an object every search of its
    // owner, and a source_message_ids that was no list threw a TypeError out of import itself.
    const source = await seeded();
    // Two cases and two skills that tie on every score: their order falls to tieOrder, which reads every field.
    for (const n of [1, 2]) {
      await source.upsertCase({ agent_id: 'helper', session_id: 'garden', task_intent: 'Water the basil', approach: 'Water in the morning, at the roots.', quality_score: 0.8 });
      await source.upsertSkill({ agent_id: 'helper', name: `Watering ${n}`, description: 'Watering advice', content: 'Water in the morning.' });
    }
    const bundle = await source.export();
    // `undefined`: the field left out, as an older or hand-made bundle may (a case without
    // source_message_ids was stored, and every search of its agent's cases then failed).
    const hostile: unknown[] = [{}, 5, null, undefined, 'text', [1], true, 1e300, { length: 2 }];
    const target = await createMemory({ embedder });
    let refused = 0;
    let trials = 0;
    for (let i = 0; i < bundle.items.length; i++) {
      const item = bundle.items[i]!;
      for (const field of Object.keys(item).filter((f) => !['kind', 'id', 'vector'].includes(f))) {
        const value = hostile[trials++ % hostile.length];
        const copy = structuredClone(bundle);
        if (value === undefined) delete (copy.items[i] as Record<string, unknown>)[field];
        else (copy.items[i] as Record<string, unknown>)[field] = value;
        const where = `${item.kind}.${field} = ${JSON.stringify(value)}`;
        const outcome = await target.import(copy, { mode: 'replace' }).then(() => null, (e: unknown) => e);
        if (outcome !== null) {
          expect(isMemoryError(outcome) && outcome.status, where).toBe(422);
          refused++;
          continue;
        }
        // Accepted: the memory must go on working for every session and owner the bundle holds.
        const late = async (call: () => Promise<unknown>) => call().then(() => null, (e: unknown) => (isMemoryError(e) && e.status < 500 ? null : e));
        for (const session of ['garden', 'open']) {
          expect(await late(() => target.add({ session_id: session, messages: [{ sender_id: 'kim', role: 'user', timestamp: T0 + 9000, content: 'Peppers went in today.' }] })), where).toBeNull();
          expect(await late(() => target.flush({ session_id: session })), where).toBeNull();
        }
        for (const q of [...QUERIES, { agent_id: 'helper', query: 'watering', method: 'vector' }]) expect(await late(() => target.search(q)), where).toBeNull();
        for (const memory_type of ['episode', 'profile', 'agent_skill'] as const) {
          expect(await late(() => target.get(memory_type === 'agent_skill' ? { agent_id: 'helper', memory_type } : { user_id: 'kim', memory_type })), where).toBeNull();
        }
      }
    }
    expect(trials).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(trials / 2);
  }, 120_000);

  it('never turns a stored record into another kind or moves it to another owner by reusing its id in a merge', async () => {
    const memory = await seeded();
    const bundle = await memory.export();
    const episode = bundle.items.find((i) => i.kind === 'episode')!;
    const skill = bundle.items.find((i) => i.kind === 'agent_skill')!;
    const before = JSON.stringify(await memory.export().then((b) => b.items));
    for (const item of [{ ...skill, id: episode.id }, { ...episode, owner_id: 'zed' }]) {
      const error = await memory.import({ ...bundle, items: [item] }).catch((e: unknown) => e);
      expect((error as { details: { loc: unknown[]; msg: string }[] }).details, JSON.stringify(item.kind)).toEqual([
        expect.objectContaining({ loc: ['body', 'items', 0], msg: expect.stringContaining("is a stored episode of user kim; an import does not change a record's kind or owner") }),
      ]);
    }
    expect(JSON.stringify(await memory.export().then((b) => b.items))).toBe(before);
    // The same record again (a bundle merged twice) updates it in place, as before.
    await expect(memory.import({ ...bundle, items: [{ ...episode, summary: 'Kim planted tomatoes.' }] })).resolves.toMatchObject({ imported: 1 });
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
