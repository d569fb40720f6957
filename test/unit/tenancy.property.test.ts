/**
 * Tenancy, as a property: whatever is written, by whichever owners, in whichever apps and
 * projects, no search (any method) and no listing ever returns an item of another owner, app or
 * project. Owners share words on purpose so that every index has something to leak; a user and an
 * agent share an id, sessions share ids across apps, and callers reuse the same record ids.
 *
 * The second property runs random sequences of calls through the HTTP handler (the EverOS routes
 * and the Breeth and Tablestore dialects) and checks each answer and each change of the store
 * against a simple model: an owner is (app, project, type, id); each call may change only what
 * its caller owns (a conversation: what its participants own), its status may depend only on its
 * own app and project, and each read returns only what the reader owns.
 *
 * Runs: a few seconds by default; `ENGRAM_TENANCY_RUNS=500` for a longer search.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AddMessage, GetResponse, SearchData, SearchMethod } from '../../src/contract/types.js';
import { MEMORY_TYPES } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { isGraphItem, isMemoryRecord, type MemoryRecord, type StoredItem } from '../../src/records.js';
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
/** More runs on demand; the defaults keep each property to a few seconds. */
const RUNS = Number(process.env['ENGRAM_TENANCY_RUNS'] ?? '') || 0;
const TIMEOUT_MS = RUNS ? 3_600_000 : 60_000;

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

// The model's own rules, written out here rather than taken from the engine.
/** A message's sender is a user when its role is `user`, else an agent (tool results speak in the agent's turn). */
const senderType = (role: string): OwnerType => (role === 'user' ? 'user' : 'agent');
/** A record is named by its app, project and the caller's id. */
const recordKey = (r: { app_id: string; project_id: string; id: string }) => `${r.app_id}|${r.project_id}|${r.id}`;
/** The store keeps a caller-chosen id as `app/project/id`; the API shows `id`. */
const fromStored = (i: StoredItem): StoredItem => {
  const prefix = i.kind === 'message' ? null : `${i.app_id}/${i.project_id}/`;
  return prefix && i.id.startsWith(prefix) ? { ...i, id: i.id.slice(prefix.length) } : i;
};

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
    // A buffered message is shown only to someone who took part in its session, as that owner type.
    const session = buffers.filter((b) => b.kind === 'message' && b.app_id === app && b.project_id === project && b.session_id === m.session_id);
    if (!session.some((b) => b.kind === 'message' && b.sender_id === owner.id && senderType(b.role) === owner.type)) out.push(`message ${m.id} of a session ${owner.type} ${owner.id} is not in`);
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
      { numRuns: RUNS || 30 },
    );
    // The searches did return things: the checks above ran on real items.
    expect(returned).toBeGreaterThan(100);
  }, TIMEOUT_MS);

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

/** Record ids every tenancy's callers reuse, so that an id of one tenancy meets the same id in another. */
const CALLER_IDS = ['shared', 'k1'];
const user = fc.constantFrom(...USERS).map((id) => ({ type: 'user' as const, id }));
const anyOwner = fc.constantFrom(...OWNERS);
const session = fc.constantFrom('s1', 's2');
/** Most calls act where an earlier call acted (its app, project and owner), so there is something to meet. */
const echo = fc.option(fc.nat(), { nil: null, freq: 5 });

const callArb = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('chat' as const), ...where, session, turns: fc.array(fc.record({ who: anyOwner, text: sentence }), { minLength: 1, maxLength: 3 }), flush: fc.boolean(), echo }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('upsert' as const), kind: fc.constantFrom('knowledge' as const, 'case' as const, 'skill' as const), ...where, owner: anyOwner, id: fc.option(fc.constantFrom(...CALLER_IDS), { nil: undefined }), text: sentence, echo }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('profile' as const), ...where, owner: user, text: sentence, echo }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), ...where, owner: anyOwner, mode: fc.constantFrom('owner' as const, 'session' as const, 'id' as const), session, pick: fc.nat(), echo }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('search' as const), ...where, owner: anyOwner, via: fc.constantFrom('engram' as const, 'engram' as const, 'breeth' as const, 'tablestore' as const), method: fc.constantFrom(...METHODS), text: fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')), top_k: fc.constantFrom(-1, 5, 20), session: fc.option(session, { nil: null, freq: 3 }), echo }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('get' as const), ...where, owner: anyOwner, memory_type: fc.constantFrom(...MEMORY_TYPES), session: fc.option(session, { nil: null, freq: 3 }), echo }) },
);
type Call = typeof callArb extends fc.Arbitrary<infer T> ? T : never;

/** The owner key of an item: a record's partition, a buffered message's sender typed by its role. */
const ownerKey = (i: StoredItem) =>
  i.kind === 'message' ? `${i.app_id}|${i.project_id}|${senderType(i.role)}|${i.sender_id}` : `${i.app_id}|${i.project_id}|${i.owner_type}|${i.owner_id}`;
const keyOf = (app: string, project: string, o: Owner) => `${app}|${project}|${o.type}|${o.id}`;
const itemKey = (i: StoredItem) => (i.kind === 'message' ? `m:${i.id}` : `r:${recordKey(i)}`);
const fingerprint = (i: StoredItem) => JSON.stringify({ ...i, vector: i.kind === 'message' || !i.vector ? null : Array.from(i.vector) });

describe('tenancy over random call sequences', () => {
  it('nothing of one owner is returned to, changed by or revealed to another', async () => {
    const sequences = RUNS || 30;
    let returned = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 8, maxLength: 18 }), async (calls) => {
        const store = createMemoryStore();
        const memory = await createMemory({ store, embedder: hashEmbedderDouble(64) });
        const engram = createFetchHandler(memory, { dialects: { tablestore: {} } });
        const send = async (handler: (r: Request) => Promise<Response>, path: string, body: unknown) => {
          const response = await handler(new Request(`http://engram.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
          return { status: response.status, body: (await response.json()) as any };
        };
        const post = (verb: string, body: unknown) => send(engram, `/api/v1/memory/${verb}`, body);
        /** The store as the engine's callers see it: records under their own ids. */
        const snapshot = async () => new Map((await store.loadAll()).map((raw) => {
          const i = fromStored(raw);
          return [itemKey(i), i] as const;
        }));
        const changes = (before: Map<string, StoredItem>, after: Map<string, StoredItem>) => {
          const out: { item: StoredItem; removed: boolean }[] = [];
          for (const [k, i] of after) if (!before.has(k) || fingerprint(before.get(k)!) !== fingerprint(i)) out.push({ item: i, removed: false });
          for (const [k, i] of before) if (!after.has(k)) out.push({ item: i, removed: true });
          return out;
        };
        const done: Call[] = [];

        for (const raw of calls) {
          // An echoing call takes the place and owner of an earlier write.
          const writes = done.filter((d) => d.op === 'chat' || d.op === 'upsert' || d.op === 'profile');
          const prior = raw.echo === null || writes.length === 0 ? null : writes[raw.echo % writes.length]!;
          const priorTurn = !prior ? null : prior.op === 'chat' ? prior.turns[raw.echo! % prior.turns.length]! : { who: prior.owner, text: prior.text };
          // …and a search asks in the words written there (which other owners' texts share).
          const c: Call = !prior || !priorTurn ? raw : {
            ...raw, app: prior.app, project: prior.project,
            ...('owner' in raw && raw.op !== 'profile' ? { owner: priorTurn.who } : {}),
            ...(raw.op === 'search' ? { text: priorTurn.text } : {}),
          } as Call;
          done.push(c);
          const scope = { app_id: c.app, project_id: c.project };
          const before = await snapshot();
          const label = `${JSON.stringify(c)} after ${JSON.stringify(done.slice(0, -1))}`;

          if (c.op === 'chat') {
            const messages: AddMessage[] = c.turns.map((t) => ({ sender_id: t.who.id, role: t.who.type === 'user' ? 'user' : 'assistant', timestamp: (clock += MINUTE), content: t.text }));
            expect((await post('add', { ...scope, session_id: c.session, messages })).status, label).toBe(200);
            if (c.flush) expect((await post('flush', { ...scope, session_id: c.session })).status, label).toBe(200);
            // A conversation changes only its session's buffer and what its participants own.
            const inSession = (i: StoredItem) => i.kind === 'message' && i.app_id === c.app && i.project_id === c.project && i.session_id === c.session;
            const participants = new Set([...before.values()].filter(inSession).map(ownerKey));
            for (const t of c.turns) participants.add(keyOf(c.app, c.project, t.who));
            for (const { item } of changes(before, await snapshot())) {
              if (item.kind === 'message') expect(inSession(item), label).toBe(true);
              else expect(participants.has(ownerKey(item)), `${label}: changed ${item.kind} of ${ownerKey(item)}`).toBe(true);
            }
            continue;
          }

          if (c.op === 'upsert' || c.op === 'profile') {
            const owner = c.op === 'profile' ? c.owner : c.owner;
            const fields = owner.type === 'user' ? { user_id: owner.id } : { agent_id: owner.id };
            const kind = c.op === 'profile' ? 'profile' : c.kind === 'case' ? 'agent_case' : c.kind === 'skill' ? 'agent_skill' : 'knowledge';
            const agentOnly = kind === 'agent_case' || kind === 'agent_skill';
            const id = c.op === 'upsert' ? c.id : undefined;
            const { status, body } =
              c.op === 'profile' ? await post('profile', { ...scope, ...fields, profile_data: { note: c.text } })
              : c.kind === 'knowledge' ? await post('knowledge', { ...scope, ...fields, ...(id ? { id } : {}), title: 'note', content: c.text })
              : c.kind === 'case' ? await post('cases', { ...scope, ...fields, ...(id ? { id } : {}), session_id: 'c', task_intent: c.text, approach: `Answered: ${c.text}` })
              : await post('skills', { ...scope, ...fields, ...(id ? { id } : {}), name: c.text.slice(0, 40), description: c.text, content: c.text });
            // The answer depends on this app and project alone: what holds the id here, nobody else.
            const holder = id ? before.get(`r:${recordKey({ ...scope, id })}`) : undefined;
            const expected =
              agentOnly && owner.type !== 'agent' ? 422
              : holder && holder.kind !== 'message' && (ownerKey(holder) !== keyOf(c.app, c.project, owner) || holder.kind !== kind) ? 422
              : 200;
            expect(status, `${label}: ${JSON.stringify(body)}`).toBe(expected);
            if (status === 200 && id) expect(body.data, label).toEqual({ id, status: holder ? 'updated' : 'created' });
            for (const { item } of changes(before, await snapshot())) expect(ownerKey(item), label).toBe(keyOf(c.app, c.project, owner));
            continue;
          }

          if (c.op === 'delete') {
            const fields = c.owner.type === 'user' ? { user_id: c.owner.id } : { agent_id: c.owner.id };
            const me = keyOf(c.app, c.project, c.owner);
            // Ids to probe: every id anyone holds anywhere, and the ids callers reuse.
            const ids = [...new Set([...[...before.values()].filter(isMemoryRecord).map((i) => i.id), ...CALLER_IDS])].sort();
            const memory_id = ids[c.pick % ids.length]!;
            const body = c.mode === 'owner' ? fields : c.mode === 'session' ? { ...fields, session_id: c.session } : { ...fields, memory_id };
            const { status, body: answer } = await post('delete', { ...scope, ...body });
            const target = before.get(`r:${recordKey({ ...scope, id: memory_id })}`);
            const expected = c.mode === 'id' && !(target && ownerKey(target) === me) ? 404 : 200;
            expect(status, `${label}: ${JSON.stringify(answer)}`).toBe(expected);
            const after = await snapshot();
            const changed = changes(before, after);
            for (const { item, removed } of changed) {
              expect(removed, label).toBe(true);
              expect(ownerKey(item), `${label}: removed ${item.kind} ${item.id}`).toBe(me);
            }
            // The owner's entity graph goes along, uncounted: its items are no memories.
            if (status === 200) expect(answer.data.deleted_count, label).toBe(changed.filter(({ item }) => !isGraphItem(item)).length);
            // …and everything the delete names is gone.
            if (c.mode !== 'id') {
              const left = [...after.values()].filter((i) => ownerKey(i) === me && (c.mode === 'owner' || ('session_id' in i && i.session_id === c.session)));
              expect(left.map((i) => i.id), label).toEqual([]);
            }
            continue;
          }

          // Reads: everything returned is the reader's own, as the store holds it now.
          const current = [...before.values()];
          const me = keyOf(c.app, c.project, c.owner);
          const own = new Set(current.filter((i) => i.kind !== 'message' && ownerKey(i) === me).map((i) => i.id));
          const fields = c.owner.type === 'user' ? { user_id: c.owner.id } : { agent_id: c.owner.id };
          const filters = c.session ? { session_id: c.session } : null;
          const check = (data: SearchData | GetResponse['data']) => {
            const buffers = current.filter((i) => i.kind === 'message');
            expect(leaks(data, c.owner, c.app, c.project, own, buffers), label).toEqual([]);
            returned += data.episodes.length + data.profiles.length + data.agent_cases.length + data.agent_skills.length + data.unprocessed_messages.length;
          };
          if (c.op === 'get') {
            const { status, body } = await post('get', { ...scope, ...fields, memory_type: c.memory_type, page_size: 100, filters });
            expect(status, label).toBe(200);
            check(body.data);
          } else if (c.via === 'engram') {
            const { status, body } = await post('search', { ...scope, ...fields, query: c.text, method: c.method, top_k: c.top_k, include_profile: true, filters });
            expect(status, `${label}: ${JSON.stringify(body)}`).toBe(200);
            check(body.data);
          } else if (c.via === 'breeth') {
            const breeth = createFetchHandler(memory, { dialects: { breeth: { owner: fields, app_id: c.app } } });
            const { status, body } = await send(breeth, '/v1/search', { query: c.text, group_id: c.project, limit: 20 });
            expect(status, `${label}: ${JSON.stringify(body)}`).toBe(200);
            const ids = (body.edges as { edge_uuid: string }[]).map((e) => e.edge_uuid);
            expect(ids.filter((id) => !own.has(id)), label).toEqual([]);
            returned += ids.length;
          } else {
            const tsScope = c.owner.type === 'user'
              ? { appId: c.app, tenantId: c.owner.id, agentId: '*', runId: c.session ?? '*' }
              : { appId: c.app, tenantId: '__default__', agentId: c.owner.id, runId: c.session ?? '*' };
            const { status, body } = await send(engram, '/SearchMemories', { memoryStoreName: c.project, query: c.text, topK: 20, scope: tsScope });
            expect(status, `${label}: ${JSON.stringify(body)}`).toBe(200);
            const ids = (body.results as { unit: { id: string } }[]).map((r) => r.unit.id);
            expect(ids.filter((id) => !own.has(id)), label).toEqual([]);
            returned += ids.length;
          }
        }

        // The model, in full: every owner lists exactly what the store holds for them, no more, no less.
        const items = [...(await snapshot()).values()];
        for (const app of APPS) for (const project of PROJECTS) for (const o of OWNERS) {
          const fields = o.type === 'user' ? { user_id: o.id } : { agent_id: o.id };
          for (const memory_type of ['episode', 'knowledge', 'agent_case', 'agent_skill', 'profile'] as const) {
            const { data } = await memory.get({ app_id: app, project_id: project, ...fields, memory_type, page_size: 100 });
            const listed = [...data.episodes, ...data.profiles, ...data.agent_cases, ...data.agent_skills].map((i) => i.id).sort();
            const expected = items.filter((i): i is MemoryRecord => i.kind === memory_type && ownerKey(i) === keyOf(app, project, o)).map((i) => i.id).sort();
            expect(listed, `${memory_type} of ${keyOf(app, project, o)}`).toEqual(expected);
          }
        }
        await memory.close();
      }),
      { numRuns: sequences },
    );
    // Reads did return things (owners are many and sparse, so a few per sequence): the checks ran on real items.
    expect(returned).toBeGreaterThan(sequences);
  }, TIMEOUT_MS);
});
