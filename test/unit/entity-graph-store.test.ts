/**
 * The entity graph as stored: each owner's graph merged across segments (one node per canonical
 * entity, aliases and sessions accumulating, a new one-value link superseding the old), kept in
 * the store and back after reopening, exported and imported with the bundle, forgotten with the
 * facts, sessions and owners it comes from, and walked by `neighbours` for multi-hop search.
 */
import { describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { isGraphItem, type GraphEntityItem, type GraphRelationItem } from '../../src/records.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { StorageAdapter } from '../../src/store/port.js';
import { DAY, MINUTE, MONDAY_9AM, remember, replied, said } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

const MAYA = { app_id: 'default', project_id: 'default', owner_type: 'user', owner_id: 'maya' } as const;
const maya = (text: string, t: number) => said('maya', text, t, { sender_name: 'Maya' });

async function mayaMemory(store: StorageAdapter = createMemoryStore()): Promise<Memory> {
  const memory = await createMemory({ store, embedder: hashEmbedderDouble(), now: () => MONDAY_9AM + 10 * DAY });
  await remember(memory, 's1', [
    maya('I have a cat named Pixel. I live in Lisbon.', MONDAY_9AM),
    replied('helper', 'Pixel sounds lovely.', MONDAY_9AM + MINUTE),
  ]);
  await remember(memory, 's2', [
    maya('My cat Pixel likes sleeping on my keyboard. My sister Ana lives in Braga.', MONDAY_9AM + DAY),
  ]);
  await remember(memory, 's3', [maya('I moved to Porto.', MONDAY_9AM + 2 * DAY)]);
  return memory;
}

const names = (memory: Memory) => {
  const g = memory.graph(MAYA);
  const byId = new Map(g.entities.map((e) => [e.id, e.name]));
  return g.relations.map((r) => ({ ...r, subject: byId.get(r.subject), object: byId.get(r.object) }));
};

describe('the stored entity graph', () => {
  it('merges segments: one node per entity, sessions accumulate, the later home supersedes the earlier', async () => {
    const memory = await mayaMemory();
    const g = memory.graph(MAYA);
    const pixel = g.entities.filter((e) => e.name === 'Pixel');
    expect(pixel).toHaveLength(1);
    expect(pixel[0]).toMatchObject({ type: 'animal', aliases: ["Maya's cat"], session_ids: ['s1', 's2'] });
    const homes = names(memory).filter((r) => r.subject === 'Maya' && r.predicate === 'lives_in');
    expect(homes.map((r) => [r.object, r.superseded_at])).toEqual([['Lisbon', MONDAY_9AM + 2 * DAY], ['Porto', null]]);
    expect(names(memory).filter((r) => r.predicate === 'has_pet').map((r) => r.object)).toEqual(['Pixel']);
    // Each link names the stored fact it was read from.
    const pet = g.relations.find((r) => r.predicate === 'has_pet')!;
    expect(memory.peek(MAYA, [pet.fact_id!])[0]).toMatchObject({ kind: 'atomic_fact', content: 'Maya has a cat named Pixel.' });
    // The best connected entity is Maya herself.
    const central = [...g.entities].sort((a, b) => b.centrality - a.centrality)[0]!;
    expect(central).toMatchObject({ id: 'user:maya', centrality: 1 });
  });

  it('is no memory: search and get never return graph items', async () => {
    const memory = await mayaMemory();
    const { data } = await memory.get({ user_id: 'maya' });
    expect(JSON.stringify(data)).not.toContain('graph_');
    const found = await memory.search({ user_id: 'maya', query: 'Pixel', method: 'keyword' });
    expect(JSON.stringify(found.data)).not.toContain('graph_');
  });

  it('walks the neighbourhood of named entities for multi-hop search', async () => {
    const memory = await mayaMemory();
    const n = memory.neighbours(MAYA, ['pixel']);
    expect(n.matched).toEqual(['Pixel']);
    expect(n.related).toEqual(['Maya']);
    expect(n.session_ids.sort()).toEqual(['s1', 's2', 's3']);
    const two = memory.neighbours(MAYA, ["Maya's cat"], 2);
    expect(two.related).toEqual(expect.arrayContaining(['Maya', 'Ana', 'Porto']));
    expect(two.related).not.toContain('Lisbon'); // only links that still hold are walked
    expect(memory.peek(MAYA, two.fact_ids).length).toBe(two.fact_ids.length);
    expect(memory.neighbours(MAYA, ['nobody'])).toEqual({ matched: [], related: [], fact_ids: [], session_ids: [] });
  });

  it('is stored: a reopened memory has the same graph', async () => {
    const store = createMemoryStore();
    const memory = await mayaMemory(store);
    const before = memory.graph(MAYA);
    const again = await createMemory({ store, embedder: hashEmbedderDouble() });
    expect(again.graph(MAYA)).toEqual(before);
    const kinds = new Set((await store.loadAll()).filter(isGraphItem).map((i) => i.kind));
    expect(kinds).toEqual(new Set(['graph_entity', 'graph_relation']));
  });

  it('travels with the bundle, and a broken graph item is refused with its place', async () => {
    const memory = await mayaMemory();
    const bundle = await memory.export();
    const copy = await createMemory({ embedder: hashEmbedderDouble() });
    await copy.import(bundle);
    expect(copy.graph(MAYA)).toEqual(memory.graph(MAYA));
    const at = bundle.items.findIndex((i) => i.kind === 'graph_relation');
    const broken = structuredClone(bundle);
    delete (broken.items[at] as Record<string, unknown>)['predicate'];
    const error = await copy.import(broken).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ loc: ['body', 'items', at] })] });
  });

  it('is forgotten with what it comes from: a fact, a session, the owner', async () => {
    const store = createMemoryStore();
    const memory = await mayaMemory(store);
    const pet = memory.graph(MAYA).relations.find((r) => r.predicate === 'has_pet')!;
    const count = (await memory.delete({ user_id: 'maya', memory_id: pet.fact_id! })).data.deleted_count;
    expect(count).toBe(1); // graph items are no memories: they go along uncounted
    expect(memory.graph(MAYA).relations.some((r) => r.id === pet.id)).toBe(false);

    await memory.delete({ user_id: 'maya', session_id: 's2' });
    const g = memory.graph(MAYA);
    expect(g.relations.filter((r) => r.session_id === 's2')).toEqual([]);
    expect(g.entities.map((e) => e.name)).not.toContain('Ana'); // named in s2 only
    expect(g.entities.find((e) => e.name === 'Pixel')).toBeDefined(); // also named in s1

    await memory.delete({ user_id: 'maya' });
    expect(memory.graph(MAYA)).toEqual({ entities: [], relations: [] });
    const left = (await store.loadAll()).filter((i): i is GraphEntityItem | GraphRelationItem => isGraphItem(i) && i.owner_id === 'maya');
    expect(left).toEqual([]);
  });
});
