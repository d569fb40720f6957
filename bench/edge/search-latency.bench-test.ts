/**
 * Search latency inside workerd with ~1 000 memories in one user's partition (episodes, facts,
 * foresight; the agent's cases come on top), through the whole edge path (Worker auth → Durable
 * Object → engine → bundled static model): times 50 searches per method and prints p50 / p95. Also times the first search (the partition's indexes are built on
 * first use) and the first request after an eviction (engine reopened from SQLite).
 *
 *   npm run bench:edge
 *
 * Conversations are generated from a seeded vocabulary; numbers are wall-clock round trips of
 * `SELF.fetch` as seen by the test, on this machine's workerd.
 */
import { abortAllDurableObjects, env, runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { MemoryObject } from '../../worker/memory-object.js';
import { call, ok } from '../../test/edge/helpers.js';

const TARGET_RECORDS = 1000;
const SEARCHES = 50;
const METHODS = ['keyword', 'vector', 'hybrid', 'agentic'] as const;
const DAY = 86_400_000;

function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = prng(42);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
const PEOPLE = ['Ana', 'Ben', 'Chloe', 'Dev', 'Emma', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kemal', 'Lucia'];
const PLACES = ['Lisbon', 'Kyoto', 'Oslo', 'Denver', 'Nairobi', 'Lima', 'Seoul', 'Vienna', 'Austin', 'Porto', 'Cairo', 'Perth'];
const ACTIVITIES = ['hiking', 'baking sourdough', 'learning the cello', 'training for a marathon', 'painting watercolours', 'rock climbing', 'growing tomatoes', 'studying Japanese', 'restoring a bicycle', 'brewing coffee', 'writing a novel', 'playing chess'];
const THINGS = ['a new laptop', 'running shoes', 'a cast iron pan', 'a telescope', 'noise cancelling headphones', 'a standing desk', 'a film camera', 'a tent', 'a kayak', 'a sewing machine'];
const FEELINGS = ['excited', 'worried', 'tired', 'proud', 'nervous', 'relaxed'];

function userTurn(): string {
  switch (Math.floor(rand() * 5)) {
    case 0: return `I went ${pick(ACTIVITIES)} with ${pick(PEOPLE)} near ${pick(PLACES)} and felt ${pick(FEELINGS)}.`;
    case 1: return `I am thinking about buying ${pick(THINGS)} for ${pick(ACTIVITIES)}.`;
    case 2: return `My friend ${pick(PEOPLE)} is moving to ${pick(PLACES)} next month.`;
    case 3: return `I have been ${pick(ACTIVITIES)} every weekend and I am ${pick(FEELINGS)} about it.`;
    default: return `Next week I plan to visit ${pick(PLACES)} to try ${pick(ACTIVITIES)}.`;
  }
}

function queries(n: number): string[] {
  const templates = [
    () => `when did I go ${pick(ACTIVITIES)}`,
    () => `who is moving to ${pick(PLACES)}`,
    () => `what did I want to buy for ${pick(ACTIVITIES)}`,
    () => `trip to ${pick(PLACES)}`,
    () => `how do I feel about ${pick(ACTIVITIES)}`,
    () => `${pick(PEOPLE)} ${pick(PLACES)}`,
  ];
  return Array.from({ length: n }, () => pick(templates)());
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function timed(route: string, body: object): Promise<number> {
  const start = performance.now();
  const response = await call(route, body);
  await response.arrayBuffer();
  const ms = performance.now() - start;
  expect(response.status).toBe(200);
  return ms;
}

it('search latency at ~1k memories', async () => {
  console.log('data: none to fetch: conversations generated from a seeded vocabulary; model: the bundled models/static-en');
  const namespace = env['MEMORY'] as { idFromName(name: string): object; get(id: object): unknown };
  const stub = namespace.get(namespace.idFromName('acme/prod'));
  const stats = () => runInDurableObject(stub, (o: MemoryObject) => o.stats());
  const partitionSize = async () => {
    let n = 0;
    for (const memory_type of ['episode', 'atomic_fact', 'foresight']) n += (await ok('get', { user_id: 'alice', memory_type, page_size: 1 })).data.total_count;
    return n;
  };

  // One add per 25 days of 4 messages a day: each day closes into its own segment (date change).
  const ingestStart = performance.now();
  let day = 0;
  let adds = 0;
  while ((await partitionSize()) < TARGET_RECORDS) {
    const messages = [];
    for (let d = 0; d < 25; d++, day++) {
      for (let m = 0; m < 4; m++) {
        const user = m % 2 === 0;
        messages.push({ sender_id: user ? 'alice' : 'assistant', role: user ? 'user' : 'assistant', timestamp: Date.UTC(2024, 0, 1) + day * DAY + m * 60_000, content: user ? userTurn() : 'That sounds good, tell me more.' });
      }
    }
    await ok('add', { session_id: `s${adds++}`, messages });
  }
  const ingestMs = performance.now() - ingestStart;
  const { records } = await stats();
  const own = await partitionSize();

  const lines: string[] = [];
  lines.push(`records: ${records} in the object, ${own} of them in alice's partition (${day} days of conversation, ${adds} add requests, ${(ingestMs / 1000).toFixed(1)} s to ingest)`);
  lines.push(`first search (builds the partition's indexes): ${(await timed('search', { user_id: 'alice', query: 'trip to Kyoto', method: 'hybrid', top_k: 10 })).toFixed(1)} ms`);

  for (const method of METHODS) {
    const times: number[] = [];
    for (const query of queries(SEARCHES)) times.push(await timed('search', { user_id: 'alice', query, method, top_k: 10 }));
    times.sort((a, b) => a - b);
    lines.push(`${method.padEnd(8)} n=${times.length}  p50 ${percentile(times, 50).toFixed(1)} ms  p95 ${percentile(times, 95).toFixed(1)} ms  max ${times.at(-1)!.toFixed(1)} ms`);
  }

  await abortAllDurableObjects();
  lines.push(`first search after an eviction (reopen from SQLite + index build): ${(await timed('search', { user_id: 'alice', query: 'trip to Kyoto', method: 'hybrid', top_k: 10 })).toFixed(1)} ms`);
  console.log(`\nEngram search latency inside workerd (Worker → Durable Object round trip)\n${lines.join('\n')}\n`);
});
