/**
 * A Durable Object can be evicted at any time; its memory must come back whole from SQLite. The
 * pool's abortAllDurableObjects() drops every instance but keeps storage, as an eviction does.
 */
import { abortAllDurableObjects, env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { MemoryObject } from '../../worker/memory-object.js';
import { conversation, ok, T0 } from './helpers.js';

const namespace = env['MEMORY'] as { idFromName(name: string): object; get(id: object): unknown };
const stub = () => namespace.get(namespace.idFromName('acme/prod'));

const QUERIES = [
  { user_id: 'frank', query: 'where does Frank go climbing', top_k: 5 },
  { user_id: 'frank', query: 'allergy peanuts', top_k: -1 },
  { agent_id: 'coach', query: 'climbing training plan', top_k: 5 },
  { user_id: 'frank', query: 'unfinished thought', top_k: 5, filters: { session_id: 'open' } },
];

async function snapshot(): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of QUERIES) {
    for (const method of ['keyword', 'vector', 'hybrid', 'agentic']) out.push((await ok('search', { ...q, method })).data);
  }
  out.push((await ok('get', { user_id: 'frank', memory_type: 'atomic_fact', page_size: 100 })).data);
  return out;
}

describe('eviction', () => {
  it('an evicted object answers every search as before, unprocessed messages included', async () => {
    await ok('add', conversation('climb', 'frank', 'coach', [
      'I go bouldering at the Arch climbing wall every Tuesday.',
      'Great, keep a training log.',
      'I am allergic to peanuts, so no protein bars with nuts.',
      'Noted: nut-free snacks only.',
    ]));
    await ok('flush', { session_id: 'climb' });
    await ok('cases', { agent_id: 'coach', session_id: 'climb', task_intent: 'Plan a climbing training week', approach: 'Two bouldering days, one rest day between.' });
    await ok('profile', { user_id: 'frank', profile_data: { hobby: 'climbing' } });
    await ok('add', conversation('open', 'frank', 'coach', ['An unfinished thought about shoes.'], T0 + 2 * 86_400_000));

    const before = await snapshot();
    expect(JSON.stringify(before)).toContain('Arch climbing wall');
    expect(JSON.stringify(before)).toContain('An unfinished thought about shoes.');
    const stats = await runInDurableObject(stub(), (o: MemoryObject) => o.stats());
    expect(await runInDurableObject(stub(), (o: MemoryObject) => o.opened)).toBe(true);

    await abortAllDurableObjects();
    // A fresh instance: it has not opened an engine yet.
    expect(await runInDurableObject(stub(), (o: MemoryObject) => o.opened)).toBe(false);

    expect(await snapshot()).toEqual(before);
    expect(await runInDurableObject(stub(), (o: MemoryObject) => o.stats())).toEqual(stats);

    // The session buffer survived too: flushing it now extracts the message.
    expect((await ok('flush', { session_id: 'open' })).data.status).toBe('extracted');
    await abortAllDurableObjects();
    const facts = await ok('search', { user_id: 'frank', query: 'shoes', top_k: 5, method: 'keyword' });
    expect(JSON.stringify(facts.data.episodes)).toContain('shoes');
    expect(facts.data.unprocessed_messages).toEqual([]);
  });

  it('a write that completed is there after an eviction that follows it at once', async () => {
    const writes = await Promise.all(Array.from({ length: 20 }, (_, i) => ok('knowledge', { user_id: 'gina', title: `Note ${i}`, content: `Gina's note number ${i} about sailing.` })));
    await abortAllDurableObjects();
    const listed = await ok('get', { user_id: 'gina', memory_type: 'knowledge', page_size: 100 });
    expect(listed.data.total_count).toBe(20);
    expect(listed.data.episodes.map((e: { id: string }) => e.id).sort()).toEqual(writes.map((w) => w.data.id).sort());
  });
});
