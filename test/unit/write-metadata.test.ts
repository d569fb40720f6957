/**
 * Write-time metadata: `add` and the structured upserts take a `metadata` object within
 * Tablestore's bounds (422 otherwise), every record of that write keeps it, a segment never mixes
 * two writes' metadata, the EverOS filters' `metadata` extension matches it exactly, and
 * Tablestore `SearchMemories` conditions match exactly and only what they should, its units
 * carrying `metadata`, `metadata_json` and `metadata_flat` as seed 003 shows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError } from '../../src/errors.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { Embedder } from '../../src/models/ports.js';
import { MINUTE, MONDAY_9AM } from '../support/conversations.js';

const TRACE = 'trace=7f3e,*?';
let embedder: Embedder;
let memory: Memory;

const turn = (text: string, i: number, sender = 'ann') => ({ sender_id: sender, role: 'user' as const, timestamp: MONDAY_9AM + i * MINUTE, content: text });

async function rejection(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    if (isMemoryError(error)) return error;
    throw error;
  }
  throw new Error('accepted');
}

beforeAll(async () => {
  embedder = await createDefaultEmbedder();
  memory = await createMemory({ embedder });
  await memory.add({ session_id: 's1', metadata: { source: 'chat', trace: TRACE }, messages: [turn('I adopted a greyhound named Pixel last spring. I work as a nurse in Leeds.', 0)] });
  // Same session, other metadata: its own segment, its own records.
  await memory.add({ session_id: 's1', metadata: { source: 'email' }, messages: [turn('My greyhound Pixel needs a new harness.', 1)] });
  await memory.add({ session_id: 's1', messages: [turn('Pixel sleeps on the greyhound blanket.', 2)] });
  await memory.flush({ session_id: 's1' });
  await memory.upsertKnowledge({ user_id: 'ann', title: 'Greyhound care', content: 'Greyhounds need a coat in winter.', metadata: { source: 'wiki' } });
}, 60_000);

describe('add and the upserts keep the metadata on every record of the write', () => {
  it('each write is its own segment, and every record derived from it carries its metadata', async () => {
    const records = (await memory.export()).items.filter((i) => i.kind !== 'message' && i.kind !== 'profile' && (i as { owner_id?: string }).owner_id === 'ann');
    const episodes = records.filter((r) => r.kind === 'episode');
    expect(episodes.map((e) => e['metadata'] ?? null)).toEqual([{ source: 'chat', trace: TRACE }, { source: 'email' }, null]);
    for (const r of records.filter((x) => x.kind === 'atomic_fact')) {
      const parent = episodes.find((e) => e.id === r['parent_id']);
      expect(r['metadata']).toEqual(parent!['metadata']);
    }
    expect(records.find((r) => r.kind === 'knowledge')!['metadata']).toEqual({ source: 'wiki' });
    const profile = (await memory.export()).items.find((i) => i.kind === 'profile');
    expect(profile).toBeDefined();
    expect(profile).not.toHaveProperty('metadata');
  });

  it.each([
    ['17 keys', Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])), ['body', 'metadata'], 'too_long'],
    ['a 65-character key', { ['k'.repeat(65)]: 'v' }, ['body', 'metadata', 'k'.repeat(65)], 'value_error'],
    ['a 1,025-character value', { source: 'v'.repeat(1025) }, ['body', 'metadata', 'source'], 'string_too_long'],
    ['a number value', { attempt: 3 }, ['body', 'metadata', 'attempt'], 'string_type'],
    ['a list', ['source'], ['body', 'metadata'], 'dict_type'],
  ])('%s is 422 at its loc, on add and on an upsert', async (_name, metadata, loc, type) => {
    for (const call of [
      memory.add({ session_id: 'x', metadata, messages: [turn('hello', 0)] }),
      memory.upsertKnowledge({ user_id: 'ann', title: 't', content: 'c', metadata }),
    ]) {
      const error = await rejection(call);
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    }
  });

  it('the bounds themselves are accepted (16 keys of 64 characters, values of 1,024, counted in Unicode characters)', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${i}`.padEnd(64, '键'), '值'.repeat(1024)]));
    await expect(memory.upsertCase({ agent_id: 'helper', session_id: 's9', task_intent: 'file the report', approach: 'opened the form', metadata })).resolves.toMatchObject({ data: { status: 'created' } });
  });
});

describe('EverOS filters: the metadata extension', () => {
  const ids = async (filters: unknown) => {
    const { data } = await memory.search({ user_id: 'ann', query: 'greyhound Pixel', method: 'hybrid', top_k: 20, filters });
    return data.episodes.map((e) => e.summary);
  };

  it('matches whole values exactly, key by key, with eq, ne and in', async () => {
    expect(await ids({ metadata: { source: 'chat' } })).toHaveLength(1);
    expect(await ids({ metadata: { source: 'chat', trace: TRACE } })).toHaveLength(1);
    expect(await ids({ metadata: { source: 'cha' } })).toEqual([]);
    expect(await ids({ metadata: { trace: '*' } })).toEqual([]);
    expect(await ids({ metadata: { source: 'chat', trace: 'other' } })).toEqual([]);
    expect(await ids({ metadata: { source: { in: ['chat', 'email'] } } })).toHaveLength(2);
    // `ne` keeps the record written without the key too; the knowledge entry is the fourth.
    expect(await ids({ metadata: { source: { ne: 'chat' } } })).toHaveLength(3);
    expect(await ids({ metadata: { source: 'wiki' } })).toEqual(['Greyhound care']);
  });

  it.each([
    [{ metadata: 'chat' }, ['body', 'filters', 'metadata'], 'dict_type'],
    [{ metadata: { source: { gt: 'a' } } }, ['body', 'filters', 'metadata', 'source', 'gt'], 'value_error'],
    [{ metadata: { source: 3 } }, ['body', 'filters', 'metadata', 'source'], 'string_type'],
    [{ metadata: { ['k'.repeat(65)]: 'v' } }, ['body', 'filters', 'metadata', 'k'.repeat(65)], 'value_error'],
  ])('a malformed metadata filter is 422 (%j)', async (filters, loc, type) => {
    const error = await rejection(memory.search({ user_id: 'ann', query: 'Pixel', filters }));
    expect(error.details).toEqual([expect.objectContaining({ loc, type })]);
  });
});

describe('Tablestore SearchMemories metadata', () => {
  let handler: (request: Request) => Promise<Response>;
  const search = async (extra: Record<string, unknown>) => {
    const response = await handler(new Request('http://local/SearchMemories', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ memoryStoreName: 'default', scope: { appId: 'default', tenantId: 'ann', agentId: '*', runId: '*' }, query: 'greyhound Pixel harness', topK: 50, ...extra }),
    }));
    expect(response.status).toBe(200);
    return (await response.json()) as { results: { unit: Record<string, unknown> }[] };
  };
  beforeAll(() => {
    handler = createFetchHandler(memory, { dialects: { tablestore: {} } });
  });

  it('conditions match exactly and only what they should; units carry the three renderings', async () => {
    const all = await search({});
    expect(all.results.length).toBeGreaterThan(3);
    const chat = await search({ metadata: { trace: TRACE } });
    expect(chat.results.length).toBeGreaterThan(0);
    for (const { unit } of chat.results) {
      expect(unit['metadata']).toEqual({ source: 'chat', trace: TRACE });
      expect(unit['metadata_json']).toBe(JSON.stringify({ source: 'chat', trace: TRACE }));
      expect(unit['metadata_flat']).toBe(`source=chat,trace=${TRACE}`);
    }
    const email = await search({ metadata: { source: 'email' } });
    expect(email.results.length).toBeGreaterThan(0);
    expect(email.results.every(({ unit }) => (unit['metadata'] as Record<string, string>)['source'] === 'email')).toBe(true);
    // Every unit of the unconditioned search is in exactly one of: chat, email, no metadata.
    const none = all.results.filter(({ unit }) => unit['metadata_flat'] === '');
    expect(none.length).toBeGreaterThan(0);
    expect(none.every(({ unit }) => unit['metadata_json'] === '{}')).toBe(true);
    for (const miss of [{ source: 'Chat' }, { source: 'chat ' }, { trace: 'trace=7f3e' }, { trace: '*' }, { source: 'chat', trace: 'x' }, JSON.parse('{"__proto__": "chat"}')]) {
      expect((await search({ metadata: miss })).results, JSON.stringify(miss)).toEqual([]);
    }
  });
});
