/**
 * Tenancy, as a property: whatever is written, by whichever owners, in whichever apps and
 * projects, no search (any method) and no listing ever returns an item of another owner, app or
 * project. Owners share words on purpose so that every index has something to leak.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AddMessage, GetResponse, SearchData, SearchMethod } from '../../src/contract/types.js';
import { MEMORY_TYPES } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/engine.js';
import type { StoredItem } from '../../src/records.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { DAY, MINUTE, MONDAY_9AM } from '../support/conversations.js';
import { hashEmbedderDouble } from '../support/hash-embedder.js';

type OwnerType = 'user' | 'agent';
interface Owner {
  type: OwnerType;
  id: string;
}

const USERS = ['u1', 'u2', 'zed'];
const AGENTS = ['a1', 'a2', 'zed']; // 'zed' is both a user and an agent: two different owners
const OWNERS: Owner[] = [...USERS.map((id) => ({ type: 'user' as const, id })), ...AGENTS.map((id) => ({ type: 'agent' as const, id }))];
const APPS = ['app1', 'app2'];
const PROJECTS = ['p1', 'p2'];
const SESSIONS = ['s1', 's2', 's3'];
const WORDS = ['garden', 'tomato', 'flight', 'tokyo', 'budget', 'violin', 'lesson', 'doctor', 'visit', 'river', 'coffee', 'deadline'];
const METHODS: SearchMethod[] = ['keyword', 'vector', 'hybrid', 'agentic'];

const word = fc.constantFrom(...WORDS);
const sentence = fc.array(word, { minLength: 3, maxLength: 7 }).map((w) => `I like the ${w.join(' ')}.`);
const where = { app: fc.constantFrom(...APPS), project: fc.constantFrom(...PROJECTS) };
const agent = fc.constantFrom(...AGENTS);

const write = fc.oneof(
  fc.record({
    kind: fc.constant('chat' as const),
    ...where,
    session: fc.constantFrom(...SESSIONS),
    turns: fc.array(fc.record({ who: fc.constantFrom(...OWNERS), text: sentence }), { minLength: 1, maxLength: 4 }),
    flush: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('case' as const), ...where, agent, text: sentence }),
  fc.record({ kind: fc.constant('skill' as const), ...where, agent, text: sentence }),
  fc.record({ kind: fc.constant('knowledge' as const), ...where, owner: fc.constantFrom(...OWNERS), text: sentence }),
  fc.record({ kind: fc.constant('profile' as const), ...where, user: fc.constantFrom(...USERS), text: sentence }),
);

const query = fc.record({
  owner: fc.constantFrom(...OWNERS),
  ...where,
  method: fc.constantFrom(...METHODS),
  text: fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
  top_k: fc.constantFrom(-1, 3, 10, 100),
  radius: fc.constantFrom(null, 0),
  include_profile: fc.boolean(),
  session: fc.option(fc.constantFrom(...SESSIONS), { nil: null }),
  /** Most queries ask as someone who wrote something there, so that there is something to leak past. */
  echo: fc.option(fc.nat(), { nil: null, freq: 3 }),
});

const ownerField = (o: Owner) => (o.type === 'user' ? { user_id: o.id } : { agent_id: o.id });

let clock = MONDAY_9AM;
type Write = typeof write extends fc.Arbitrary<infer T> ? T : never;

async function apply(memory: Memory, w: Write): Promise<void> {
  const scope = { app_id: w.app, project_id: w.project };
  switch (w.kind) {
    case 'chat': {
      const messages: AddMessage[] = w.turns.map((t) => ({
        sender_id: t.who.id,
        role: t.who.type === 'user' ? 'user' : 'assistant',
        timestamp: (clock += MINUTE),
        content: t.text,
      }));
      await memory.add({ ...scope, session_id: w.session, messages });
      if (w.flush) await memory.flush({ ...scope, session_id: w.session });
      return;
    }
    case 'case':
      await memory.upsertCase({ ...scope, agent_id: w.agent, session_id: 'c', task_intent: w.text, approach: `Answered: ${w.text}` });
      return;
    case 'skill':
      await memory.upsertSkill({ ...scope, agent_id: w.agent, name: w.text.slice(0, 40), description: w.text, content: w.text });
      return;
    case 'knowledge':
      await memory.upsertKnowledge({ ...scope, ...ownerField(w.owner), title: 'note', content: w.text });
      return;
    case 'profile':
      await memory.upsertProfile({ ...scope, user_id: w.user, profile_data: { note: w.text } });
      return;
  }
}

/** The owner and place of a write (for a chat, one of its speakers). */
function writer(w: Write, pick: number): { owner: Owner; app: string; project: string } {
  const owner =
    w.kind === 'chat' ? w.turns[pick % w.turns.length]!.who
    : w.kind === 'knowledge' ? w.owner
    : w.kind === 'profile' ? { type: 'user' as const, id: w.user }
    : { type: 'agent' as const, id: w.agent };
  return { owner, app: w.app, project: w.project };
}

/** Every way `data` departs from the owner's partition. */
function leaks(data: SearchData | GetResponse['data'], owner: Owner, app: string, project: string, own: Set<string>, buffers: StoredItem[]): string[] {
  const out: string[] = [];
  const scoped = (what: string, item: { id: string; app_id: string; project_id: string }) => {
    if (item.app_id !== app || item.project_id !== project) out.push(`${what} ${item.id} is from ${item.app_id}/${item.project_id}`);
  };
  for (const e of data.episodes) {
    scoped('episode', e);
    if (e.user_id !== (owner.type === 'user' ? owner.id : null)) out.push(`episode ${e.id} has user_id ${e.user_id}`);
    if (!own.has(e.id)) out.push(`episode ${e.id} is not the owner's`);
    for (const f of e.atomic_facts) if (!own.has(f.id)) out.push(`fact ${f.id} is not the owner's`);
  }
  for (const p of data.profiles) {
    scoped('profile', p);
    if (owner.type !== 'user' || p.user_id !== owner.id || !own.has(p.id)) out.push(`profile ${p.id} of ${p.user_id}`);
  }
  for (const c of [...data.agent_cases, ...data.agent_skills]) {
    scoped('agent item', c);
    if (owner.type !== 'agent' || c.agent_id !== owner.id || !own.has(c.id)) out.push(`agent item ${c.id} of ${c.agent_id}`);
  }
  for (const m of data.unprocessed_messages) {
    scoped('message', m);
    // A buffered message is shown only to someone who took part in its session.
    const session = buffers.filter((b) => b.kind === 'message' && b.app_id === app && b.project_id === project && b.session_id === m.session_id);
    if (!session.some((b) => b.kind === 'message' && b.sender_id === owner.id)) out.push(`message ${m.id} of a session ${owner.id} is not in`);
  }
  return out;
}

describe('tenancy', () => {
  it('no search or listing returns anything outside the owner\'s partition', async () => {
    let returned = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 3, maxLength: 12 }), fc.array(query, { minLength: 4, maxLength: 10 }), async (writes, queries) => {
        const store = createMemoryStore();
        const memory = await createMemory({ store, embedder: hashEmbedderDouble(64) });
        for (const w of writes) await apply(memory, w);
        const items = await store.loadAll();
        const buffers = items.filter((i) => i.kind === 'message');
        const ownIds = (o: Owner, app: string, project: string) =>
          new Set(items.filter((i) => i.kind !== 'message' && i.owner_type === o.type && i.owner_id === o.id && i.app_id === app && i.project_id === project).map((i) => i.id));

        for (const asked of queries) {
          const q = { ...asked, ...(asked.echo === null ? {} : writer(writes[asked.echo % writes.length]!, asked.echo)) };
          const scope = { ...ownerField(q.owner), app_id: q.app, project_id: q.project };
          const own = ownIds(q.owner, q.app, q.project);
          const filters = q.session ? { session_id: q.session } : null;
          // Every method and every listing for this asker: the method drawn first.
          for (const method of [q.method, ...METHODS.filter((m) => m !== q.method)]) {
            const { data } = await memory.search({ ...scope, query: q.text, method, top_k: q.top_k, radius: q.radius, include_profile: q.include_profile, filters });
            expect(leaks(data, q.owner, q.app, q.project, own, buffers), `search ${method} ${JSON.stringify(q)}`).toEqual([]);
            returned += data.episodes.length + data.profiles.length + data.agent_cases.length + data.agent_skills.length + data.unprocessed_messages.length;
          }
          for (const memory_type of MEMORY_TYPES) {
            const listed = await memory.get({ ...scope, memory_type, page_size: 100, filters });
            expect(leaks(listed.data, q.owner, q.app, q.project, own, buffers), `get ${memory_type} ${JSON.stringify(q)}`).toEqual([]);
            returned += listed.data.episodes.length + listed.data.profiles.length + listed.data.agent_cases.length + listed.data.agent_skills.length;
          }
        }
        await memory.close();
      }),
      { numRuns: 100 },
    );
    // The searches did return things: the checks above ran on real items.
    expect(returned).toBeGreaterThan(300);
  });

  it('the owner does get their own items back (the property above is not vacuous)', async () => {
    const memory = await createMemory({ embedder: hashEmbedderDouble(64) });
    await memory.add({ app_id: 'app1', project_id: 'p1', session_id: 's1', messages: [{ sender_id: 'u1', role: 'user', timestamp: MONDAY_9AM, content: 'I like the garden tomato river.' }] });
    await memory.flush({ app_id: 'app1', project_id: 'p1', session_id: 's1' });
    await memory.add({ app_id: 'app1', project_id: 'p1', session_id: 's1', messages: [{ sender_id: 'u2', role: 'user', timestamp: MONDAY_9AM + DAY, content: 'I like the garden tomato river.' }] });
    await memory.flush({ app_id: 'app1', project_id: 'p1', session_id: 's1' });
    for (const method of METHODS) {
      const { data } = await memory.search({ user_id: 'u1', app_id: 'app1', project_id: 'p1', query: 'garden tomato', method, top_k: 10 });
      expect(data.episodes.map((e) => e.user_id), method).toEqual(['u1']);
    }
  });
});
