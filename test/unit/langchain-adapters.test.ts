/**
 * The LangChain.js adapters over a real memory (bundled embedding model): the retriever through
 * LangChain's own `invoke`, and the LangGraph store checked operation by operation against
 * LangGraph's own `InMemoryStore` (same calls, same answers), then inside a compiled graph.
 */
import { InMemoryStore, MessagesAnnotation, START, StateGraph, type BaseStore } from '@langchain/langgraph';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { EngramRetriever, EngramStore } from '../../src/integrations/langchain.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';

const T0 = Date.UTC(2026, 10, 28, 10);

describe('EngramRetriever', () => {
  it('returns the episodes a search finds, as LangChain documents', async () => {
    const memory = await createMemory({ embedder: await createDefaultEmbedder() });
    await memory.add({
      session_id: 's1',
      messages: [
        { sender_id: 'alice', role: 'user', timestamp: T0, content: 'I adopted a cat named Miso yesterday.' },
        { sender_id: 'bot', role: 'assistant', timestamp: T0 + 1000, content: 'Congratulations on Miso!' },
      ],
    });
    await memory.flush({ session_id: 's1' });
    const retriever = new EngramRetriever({ memory, owner: { user_id: 'alice' }, search: { method: 'hybrid', top_k: 3 } });
    const docs = await retriever.invoke('what pet does Alice have?');
    expect(docs.length).toBeGreaterThan(0);
    expect(docs[0]!.pageContent).toMatch(/Miso/);
    expect(docs[0]!.metadata).toMatchObject({ type: 'episode', session_id: 's1' });
    expect((docs[0]!.metadata['facts'] as string[]).join(' ')).toMatch(/cat named Miso/);
    expect(await new EngramRetriever({ memory, owner: { user_id: 'bob' } }).invoke('cat')).toEqual([]);
  });
});

describe('EngramStore', () => {
  let memory: Memory;
  let store: EngramStore;
  let reference: InMemoryStore;
  beforeEach(async () => {
    memory = await createMemory({ embedder: await createDefaultEmbedder() });
    store = new EngramStore(memory, { user_id: 'alice' });
    reference = new InMemoryStore();
  });

  /** The same calls on both stores, answers compared without timestamps and scores. */
  const both = async <T>(call: (s: BaseStore) => Promise<T>): Promise<T> => {
    const strip = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value, (k, v) => (k === 'createdAt' || k === 'updatedAt' || k === 'score' ? undefined : v))));
    const [ours, theirs] = [await call(store), await call(reference)];
    expect(strip(ours)).toEqual(strip(theirs));
    return ours;
  };
  const byKey = (items: { key: string }[]) => [...items].sort((a, b) => a.key.localeCompare(b.key));

  it('answers put, get, search, delete and listNamespaces as LangGraph’s InMemoryStore does', async () => {
    await both((s) => s.put(['users', 'alice', 'prefs'], 'food', { likes: 'ramen', spicy: 3 }));
    await both((s) => s.put(['users', 'alice', 'prefs'], 'sport', { likes: 'hiking', spicy: 0 }));
    await both((s) => s.put(['users', 'alice', 'notes'], 'n1', { text: 'call mum on Sunday' }));
    await both((s) => s.put(['teams', 'blue'], 'k', { a: [1, 2, { b: null }] }));
    expect((await both((s) => s.get(['users', 'alice', 'prefs'], 'food')))!.value).toEqual({ likes: 'ramen', spicy: 3 });
    await both((s) => s.get(['users', 'alice', 'prefs'], 'missing'));
    await both((s) => s.get(['users', 'alice'], 'food'));

    await both(async (s) => byKey(await s.search(['users', 'alice'], { limit: 10 })));
    await both(async (s) => byKey(await s.search(['users'], { filter: { spicy: { $gt: 1 } } })));
    await both(async (s) => byKey(await s.search([], { filter: { likes: 'hiking' } })));
    // A field named like an object's own property is a field like any other: absent here, so no match.
    for (const filter of ['{"__proto__":{"$eq":{}}}', '{"constructor":{"$ne":"x"}}', '{"likes":{"toString":{}}}']) await both(async (s) => byKey(await s.search([], { filter: JSON.parse(filter) })));

    await both((s) => s.put(['users', 'alice', 'prefs'], 'food', { likes: 'pho', spicy: 2 }));
    expect((await both((s) => s.get(['users', 'alice', 'prefs'], 'food')))!.value.likes).toBe('pho');

    await both((s) => s.listNamespaces());
    await both((s) => s.listNamespaces({ prefix: ['users'] }));
    await both((s) => s.listNamespaces({ suffix: ['prefs'] }));
    await both((s) => s.listNamespaces({ maxDepth: 2 }));

    await both((s) => s.delete(['users', 'alice', 'prefs'], 'sport'));
    await both((s) => s.delete(['users', 'alice', 'prefs'], 'never-there'));
    await both((s) => s.get(['users', 'alice', 'prefs'], 'sport'));
    await both(async (s) => byKey(await s.search(['users'])));
  });

  it('ranks items by the memory’s hybrid search when given a query', async () => {
    await store.put(['memories'], 'm1', { text: 'I love hiking in the Alps every summer' });
    await store.put(['memories'], 'm2', { text: 'My favourite food is ramen' });
    await store.put(['elsewhere'], 'm3', { text: 'hiking boots are in the garage' });
    const found = await store.search(['memories'], { query: 'mountain hiking trips', limit: 5 });
    expect(found[0]!.key).toBe('m1');
    expect(found.map((f) => f.key)).not.toContain('m3');
    expect(typeof found[0]!.score).toBe('number');
    // The items are the owner's knowledge: the memory's own search finds them too.
    const direct = await memory.search({ user_id: 'alice', query: 'ramen', method: 'keyword' });
    expect(direct.data.episodes.map((e) => e.summary)).toContain('m2');
  });

  it('is the store of a compiled LangGraph graph', async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('remember', async (_state, config) => {
        await config.store!.put(['alice', 'memories'], 'pet', { text: 'Alice has a cat named Miso' });
        return {};
      })
      .addNode('recall', async (_state, config) => {
        const [hit] = await config.store!.search(['alice', 'memories'], { query: 'what pet' });
        return { messages: [{ role: 'assistant', content: String(hit?.value['text']) }] };
      })
      .addEdge(START, 'remember')
      .addEdge('remember', 'recall')
      .compile({ store });
    const out = await graph.invoke({ messages: [] });
    expect(out.messages.at(-1)!.content).toBe('Alice has a cat named Miso');
  });
});
