/**
 * Valid requests for every route, drawn from a seed. The fuzzer starts from these and mutates
 * them, so most requests get past the first checks and reach the code behind them; a fuzzer
 * that only sends noise tests nothing but the JSON parser.
 */
import type { Rng } from './rng.js';

/** The routes the fuzzer covers, with the service whose error shape each answers in. */
export const ROUTES = [
  { name: 'add', path: '/api/v1/memory/add', family: 'everos' },
  { name: 'flush', path: '/api/v1/memory/flush', family: 'everos' },
  { name: 'search', path: '/api/v1/memory/search', family: 'everos' },
  { name: 'get', path: '/api/v1/memory/get', family: 'everos' },
  { name: 'delete', path: '/api/v1/memory/delete', family: 'everos' },
  { name: 'cases', path: '/api/v1/memory/cases', family: 'everos' },
  { name: 'skills', path: '/api/v1/memory/skills', family: 'everos' },
  { name: 'knowledge', path: '/api/v1/memory/knowledge', family: 'everos' },
  { name: 'profile', path: '/api/v1/memory/profile', family: 'everos' },
  { name: 'health', path: '/health', family: 'health' },
  { name: 'breeth', path: '/v1/search', family: 'breeth' },
  { name: 'tablestore', path: '/SearchMemories', family: 'tablestore' },
] as const;

export type RouteName = (typeof ROUTES)[number]['name'];
export type Family = (typeof ROUTES)[number]['family'] | 'notfound';

/** The user the server's Breeth route reads (`--breeth-user`). */
export const BREETH_USER = 'chaos-u0';

const WORDS = ['kayak', 'espresso', 'marathon', 'violin', 'sourdough', 'glacier', 'python', 'tango', 'orchid', 'saffron', 'lighthouse', 'chess', 'Lisbon', 'Kyoto', 'Rust', 'Go', 'tent', 'garden', 'piano', 'bicycle'];
const NAMES = ['Alice', 'Bob', 'Chen', 'Dana', 'Émile', 'Fatima', 'Gökhan', 'Hana'];

export const users = ['chaos-u0', 'chaos-u1', 'chaos-u2', 'chaos-u3'];
export const agents = ['chaos-a0', 'chaos-a1'];
const sessions = ['s-0', 's-1', 's-2', 's-3', 's-4'];
const apps = ['default', 'default', 'default', 'app-b'];
const projects = ['default', 'default', 'proj-x'];

function sentence(rng: Rng): string {
  const who = rng.pick(NAMES);
  const verbs = ['likes', 'visited', 'plays', 'is learning', 'bought', 'wants to try', 'will fly to', 'hates'];
  const words = Array.from({ length: rng.int(1, 4) }, () => rng.pick(WORDS));
  return `${who} ${rng.pick(verbs)} ${words.join(' and ')}.`;
}

function scope(rng: Rng): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (rng.chance(0.3)) out['app_id'] = rng.pick(apps);
  if (rng.chance(0.3)) out['project_id'] = rng.pick(projects);
  return out;
}

function owner(rng: Rng, kind: 'user' | 'agent' | 'either' = 'either'): Record<string, unknown> {
  const agent = kind === 'agent' || (kind === 'either' && rng.chance(0.25));
  return { ...(agent ? { agent_id: rng.pick(agents) } : { user_id: rng.pick(users) }), ...scope(rng) };
}

function filters(rng: Rng): Record<string, unknown> {
  const leaf = (): Record<string, unknown> => rng.pick([
    () => ({ session_id: rng.pick(sessions) }),
    () => ({ timestamp: { gte: Date.now() - rng.int(0, 1e10) } }),
    () => ({ sender_id: { in: users.slice(0, rng.int(1, users.length)) } }),
    () => ({ session_id: { ne: rng.pick(sessions) } }),
  ])();
  if (rng.chance(0.5)) return leaf();
  return { [rng.pick(['AND', 'OR'])]: Array.from({ length: rng.int(1, 3) }, leaf) };
}

function message(rng: Rng, sender: string, i: number): Record<string, unknown> {
  const role = rng.pick(['user', 'assistant', 'user', 'tool'] as const);
  const text = sentence(rng);
  const m: Record<string, unknown> = {
    sender_id: role === 'user' ? sender : rng.pick(agents),
    role,
    timestamp: Date.now() - rng.int(0, 1e9) + i,
    content: rng.chance(0.7) ? text : [{ type: 'text', text }, ...(rng.chance(0.3) ? [{ type: 'image', url: 'https://example.org/a.png' }] : [])],
  };
  if (rng.chance(0.3)) m['id'] = `m-${rng.int(0, 1e6)}`;
  if (rng.chance(0.3)) m['sender_name'] = rng.pick(NAMES);
  if (role === 'assistant' && rng.chance(0.3)) m['tool_calls'] = [{ id: `call-${rng.int(0, 99)}`, type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }];
  if (role === 'tool') m['tool_call_id'] = `call-${rng.int(0, 99)}`;
  return m;
}

/** A valid JSON body for `route` (the health route has none). */
export function validBody(route: RouteName, rng: Rng): Record<string, unknown> {
  switch (route) {
    case 'add': {
      const sender = rng.pick(users);
      return { session_id: rng.pick(sessions), ...scope(rng), messages: Array.from({ length: rng.int(1, 4) }, (_, i) => message(rng, sender, i)) };
    }
    case 'flush':
      return { session_id: rng.pick(sessions), ...scope(rng) };
    case 'search':
      return {
        ...owner(rng),
        query: Array.from({ length: rng.int(1, 4) }, () => rng.pick(WORDS)).join(' '),
        ...(rng.chance(0.7) ? { method: rng.pick(['keyword', 'vector', 'hybrid', 'hybrid', 'agentic']) } : {}),
        ...(rng.chance(0.5) ? { top_k: rng.pick([1, 5, 10, 50, 100, -1]) } : {}),
        ...(rng.chance(0.2) ? { include_profile: rng.chance(0.5) } : {}),
        ...(rng.chance(0.1) ? { enable_llm_rerank: true } : {}),
        ...(rng.chance(0.1) ? { radius: rng.next() } : {}),
        ...(rng.chance(0.1) ? { min_score: rng.next() } : {}),
        ...(rng.chance(0.3) ? { filters: filters(rng) } : {}),
      };
    case 'get':
      return {
        ...owner(rng),
        ...(rng.chance(0.7) ? { memory_type: rng.pick(['episode', 'atomic_fact', 'foresight', 'profile', 'agent_case', 'agent_skill', 'knowledge']) } : {}),
        ...(rng.chance(0.3) ? { page: rng.int(1, 5) } : {}),
        ...(rng.chance(0.3) ? { page_size: rng.int(1, 100) } : {}),
        ...(rng.chance(0.2) ? { sort_by: rng.pick(['timestamp', 'created_at']), sort_order: rng.pick(['asc', 'desc']) } : {}),
        ...(rng.chance(0.3) ? { filters: filters(rng) } : {}),
      };
    case 'delete': {
      const body = owner(rng);
      const pick = rng.next();
      if (pick < 0.5) body['memory_id'] = `k-${rng.int(0, 50)}`;
      else if (pick < 0.8) body['session_id'] = rng.pick(sessions);
      return body;
    }
    case 'cases':
      return {
        ...owner(rng, 'agent'),
        session_id: rng.pick(sessions),
        task_intent: sentence(rng),
        approach: sentence(rng),
        ...(rng.chance(0.5) ? { quality_score: rng.next() } : {}),
        ...(rng.chance(0.3) ? { key_insight: sentence(rng) } : {}),
        ...(rng.chance(0.3) ? { id: `c-${rng.int(0, 50)}` } : {}),
        ...(rng.chance(0.3) ? { timestamp: rng.chance(0.5) ? Date.now() : new Date().toISOString() } : {}),
      };
    case 'skills':
      return {
        ...owner(rng, 'agent'),
        name: rng.pick(WORDS),
        description: sentence(rng),
        content: sentence(rng),
        ...(rng.chance(0.5) ? { confidence: rng.next(), maturity_score: rng.next() } : {}),
        ...(rng.chance(0.3) ? { source_case_ids: [`c-${rng.int(0, 50)}`] } : {}),
        ...(rng.chance(0.3) ? { id: `sk-${rng.int(0, 50)}` } : {}),
      };
    case 'knowledge':
      return {
        ...owner(rng),
        title: rng.pick(WORDS),
        content: sentence(rng),
        ...(rng.chance(0.5) ? { id: `k-${rng.int(0, 50)}` } : {}),
        ...(rng.chance(0.3) ? { source: 'chaos' } : {}),
        ...(rng.chance(0.3) ? { timestamp: Date.now() } : {}),
      };
    case 'profile':
      return {
        ...owner(rng, 'user'),
        profile_data: { name: rng.pick(NAMES), likes: Array.from({ length: rng.int(0, 4) }, () => rng.pick(WORDS)), ...(rng.chance(0.3) ? { city: rng.pick(['Lisbon', 'Kyoto']) } : {}) },
        ...(rng.chance(0.3) ? { mode: rng.pick(['merge', 'replace']) } : {}),
      };
    case 'health':
      return {};
    case 'breeth':
      return {
        query: Array.from({ length: rng.int(1, 3) }, () => rng.pick(WORDS)).join(' '),
        ...(rng.chance(0.5) ? { group_id: rng.pick(['default', 'proj-x']) } : {}),
        ...(rng.chance(0.5) ? { limit: rng.int(1, 100) } : {}),
      };
    case 'tablestore':
      return {
        memoryStoreName: rng.pick(['default', 'proj-x']),
        query: Array.from({ length: rng.int(1, 3) }, () => rng.pick(WORDS)).join(' '),
        scope: { appId: 'default', tenantId: rng.chance(0.5) ? '*' : rng.pick(users), agentId: '*', runId: '*' },
        ...(rng.chance(0.5) ? { topK: rng.int(1, 50) } : {}),
        ...(rng.chance(0.2) ? { filter: { op: 'eq', field: 'runId', value: rng.pick(sessions) } } : {}),
        ...(rng.chance(0.2) ? { includeEvidence: true } : {}),
        ...(rng.chance(0.2) ? { enableRerank: rng.chance(0.5) } : {}),
        ...(rng.chance(0.1) ? { thresholds: { minScore: rng.next() } } : {}),
        ...(rng.chance(0.1) ? { metadata: { topic: rng.pick(WORDS) } } : {}),
      };
  }
}

/**
 * Where free-form JSON lives in a route's body (a path of keys; `*` is "a new element"): the
 * places a hostile client hides deep nesting, huge lists or odd keys.
 */
export const FREE_FORM: Record<RouteName, (string | number)[][]> = {
  add: [['messages', 0, 'content'], ['messages', 0, 'content', 0, 'extra'], ['messages', 0, 'tool_calls'], ['messages', 0, 'tool_calls', 0, 'function'], ['messages']],
  flush: [['session_id']],
  search: [['filters'], ['filters', 'AND'], ['query'], ['filters', 'session_id']],
  get: [['filters'], ['filters', 'OR'], ['memory_type']],
  delete: [['memory_id'], ['session_id']],
  cases: [['task_intent'], ['key_insight'], ['approach']],
  skills: [['source_case_ids'], ['content']],
  knowledge: [['content'], ['source'], ['title']],
  profile: [['profile_data'], ['profile_data', 'likes'], ['profile_data', 'likes', 0], ['profile_data', 'nested']],
  health: [],
  breeth: [['query'], ['group_id']],
  tablestore: [['query'], ['scope'], ['filter'], ['metadata'], ['contextScope'], ['filter', 'conditions']],
};
