/**
 * Breeth's `POST /v1/search` (spec 002) over an Engram memory, so an app written against Breeth
 * reads the user's local memory unchanged.
 *
 * Tenancy: a Breeth key names a (team, project) and `group_id` narrows inside it. Engram's
 * partition is (app, project, owner), so the host fixes the owner and the app (`BreethOptions`)
 * and `group_id` picks the Engram project: Breeth's default group `"default"` is Engram's default
 * project `"default"`, the one EverOS writes go to when they name none. A search never leaves
 * that one partition.
 *
 * Results: Breeth returns relation edges. A fact the owner's entity graph links two entities with
 * answers as that link (`edge_uuid` the relation's id, `source_node` / `target_node` / `name` its
 * subject, object and predicate, `fact` the fact's words), and the links of entities the query
 * names come along; ranking adds graph centrality to the hybrid BM25 + vector relevance (see
 * breeth-graph.ts). A memory with no link becomes one edge of its own: `edge_uuid` is its id,
 * `fact` its text (an atomic fact, or an episode's summary when the episode won as a whole),
 * `source_node` who said it, `name` a predicate read off the fact, and `target_node` its most
 * salient term. `intent_meta` is never present (nothing here is written with `extract_intent`),
 * and `_tier` is always `"hot"`: the whole memory is local and in memory.
 *
 * Unknown request fields are ignored, as the page documents no rejection but a missing query;
 * fields it does document are checked strictly and answered with 400 `invalid_request`.
 */
import type { Memory } from '../../engine.js';
import type { RecordView } from '../../records.js';
import { createError, isMemoryError, validationError, type ValidationDetail } from '../../errors.js';
import { DEFAULT_SCOPE, MAX_QUERY_LENGTH, SCOPE_ID_PATTERN, type Scope } from '../requests.js';
import { rankGraphEdges } from './breeth-graph.js';
import { keywords } from './keywords.js';
import type { DialectRoute } from './route.js';
import { clip, hitsOf, json, ownerFields, searchRoute, type Hit } from './shared.js';

export const BREETH_SEARCH_PATH = '/v1/search';
export const BREETH_DEFAULT_GROUP = 'default';
export const BREETH_DEFAULT_LIMIT = 10;
export const BREETH_MAX_LIMIT = 100;
const MAX_NODE_LENGTH = 64;

/** How a Breeth host maps its single (team, project) onto Engram. */
export interface BreethOptions {
  /** Whose memory the route reads: exactly one of `user_id` / `agent_id`. */
  owner: { user_id: string } | { agent_id: string };
  /** The Engram app the Breeth (team, project) stands for. Default `default`. */
  app_id?: string;
  /** Checks the request's credentials (say, the `Authorization: Bearer` key); false answers 401 `unauthenticated`. */
  authorize?: (request: Request) => boolean | Promise<boolean>;
}

/** A validated Breeth search body with its defaults filled. */
export interface BreethSearchRequest {
  query: string;
  group_id: string;
  limit: number;
}

/** One relation edge of a Breeth answer: here, one memory. */
export interface BreethEdge {
  edge_uuid: string;
  source_node: string;
  target_node: string;
  fact: string;
  name: string;
  _tier: 'hot';
}

/** The 200 body of `POST /v1/search`. */
export interface BreethSearchResponse {
  edges: BreethEdge[];
  _cache: { tier: 'disabled'; hot_hits: number; cold_hits: number; group_id: string };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Validates a Breeth search body and fills its defaults; throws VALIDATION_FAILED listing every problem. */
export function parseBreethSearch(body: unknown): BreethSearchRequest {
  const issues: ValidationDetail[] = [];
  const problem = (field: string, type: string, msg: string, input: unknown) => issues.push({ loc: ['body', field], msg, type, input });
  if (!isObject(body)) {
    throw validationError([{ loc: ['body'], msg: 'Input should be an object', type: 'model_type', input: body }], 'The body must be a JSON object');
  }
  const { query, group_id: group, limit } = body;
  if (query === undefined || query === null) problem('query', 'missing', 'Field required', query);
  else if (typeof query !== 'string') problem('query', 'string_type', 'query must be a string', query);
  else if (query.trim() === '') problem('query', 'string_too_short', 'query must contain at least one non-blank character', query);
  else if (query.length > MAX_QUERY_LENGTH) problem('query', 'string_too_long', `query must be at most ${MAX_QUERY_LENGTH} characters`, query.length);
  if (group !== undefined && group !== null && (typeof group !== 'string' || group.length > 256 || !SCOPE_ID_PATTERN.test(group))) {
    problem('group_id', 'string_pattern_mismatch', `group_id must be 1 to 256 characters of ${SCOPE_ID_PATTERN.source}`, group);
  }
  if (limit !== undefined && limit !== null && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > BREETH_MAX_LIMIT)) {
    problem('limit', 'int_range', `limit must be an integer from 1 to ${BREETH_MAX_LIMIT}`, limit);
  }
  if (issues.length) throw validationError(issues, `${issues[0]!.loc[1]}: ${issues[0]!.msg}`);
  return {
    query: query as string,
    group_id: typeof group === 'string' ? group : BREETH_DEFAULT_GROUP,
    limit: typeof limit === 'number' ? limit : BREETH_DEFAULT_LIMIT,
  };
}

/** Runs a Breeth search against the memory and answers in Breeth's response shape. */
export async function breethSearch(memory: Memory, body: unknown, options: BreethOptions, signal?: AbortSignal): Promise<BreethSearchResponse> {
  const req = parseBreethSearch(body);
  const owner = options.owner;
  const scope: Scope = 'user_id' in owner
    ? { app_id: options.app_id ?? DEFAULT_SCOPE, project_id: req.group_id, owner_type: 'user', owner_id: owner.user_id }
    : { app_id: options.app_id ?? DEFAULT_SCOPE, project_id: req.group_id, owner_type: 'agent', owner_id: owner.agent_id };
  const { data } = await memory.search({
    // More candidates than edges: centrality may lift a fact that ranked just below the cut.
    ...ownerFields(scope), app_id: scope.app_id, project_id: scope.project_id, query: req.query, method: 'hybrid', top_k: Math.min(BREETH_MAX_LIMIT, req.limit * 2),
    // The profile is asked for only for the owner's display name.
    include_profile: scope.owner_type === 'user',
  }, signal ? { signal } : {});
  const profileName = data.profiles[0]?.profile_data['name'];
  const ownerName = typeof profileName === 'string' && profileName.trim() ? profileName.trim() : scope.owner_id;
  const ranked = rankGraphEdges({
    graph: memory.graph(scope),
    query: req.query,
    owner: `user:${scope.owner_id}`,
    hits: hitsOf(memory, scope, data),
    fallback: (hit) => edgeOf(hit, scope, ownerName),
    factText: (ids) => new Map(memory.peek(scope, ids).map((r) => [r.id, r.kind === 'atomic_fact' || r.kind === 'foresight' ? r.content : ''])),
  });
  const edges = ranked.slice(0, req.limit).map(({ score: _score, ...edge }) => ({ ...edge, _tier: 'hot' as const }));
  return { edges, _cache: { tier: 'disabled', hot_hits: edges.length, cold_hits: 0, group_id: req.group_id } };
}

/** The edge of a memory the graph holds no link for. */
function edgeOf(hit: Hit, scope: Scope, ownerName: string): Omit<BreethEdge, '_tier'> {
  const r = hit.record;
  const speaker = r.kind === 'atomic_fact' || r.kind === 'foresight' ? (r.sender_ids[0] ?? scope.owner_id) : scope.owner_id;
  const source = speaker === scope.owner_id ? ownerName : speaker;
  const fact = factOf(r);
  const name = predicateOf(r, [source, speaker]);
  return { edge_uuid: r.id, source_node: source, target_node: targetOf(r, fact, [source, speaker, name]), fact, name };
}

function factOf(r: RecordView): string {
  switch (r.kind) {
    case 'atomic_fact':
    case 'foresight':
      return r.content;
    case 'episode':
      return r.summary;
    case 'knowledge':
      return r.content;
    case 'agent_case':
      return `${r.task_intent} — ${r.approach}`;
    case 'agent_skill':
      return r.description;
    case 'profile':
      return JSON.stringify(r.profile_data);
  }
}

const ADVERBS = new Set(['usually', 'always', 'often', 'never', 'also', 'really', 'just', 'still', 'sometimes', 'not']);
const MODALS = new Set(['will', 'shall', 'would', 'can', 'could', 'should', 'might', 'may', 'must']);

/**
 * The edge's predicate. A fact written as "<speaker> <verb> …" (what the extractors write) gives
 * its verb; "<speaker> said: …" / "asked: …" give `said` / `asked`; other kinds have fixed labels.
 */
function predicateOf(r: RecordView, names: string[]): string {
  switch (r.kind) {
    case 'foresight':
      return 'plans';
    case 'episode':
      return 'discussed';
    case 'knowledge':
      return 'noted';
    case 'agent_case':
      return 'handled';
    case 'agent_skill':
      return 'knows';
    case 'profile':
      return 'has_profile';
    case 'atomic_fact': {
      const quoted = /^[^:]{1,80}?\s(said|asked|replied|wrote):/u.exec(r.content);
      if (quoted) return quoted[1]!;
      for (const name of names) {
        if (!name || !r.content.toLowerCase().startsWith(`${name.toLowerCase()} `)) continue;
        const words = r.content.slice(name.length).trim().split(/\s+/).map((w) => w.toLowerCase().replace(/[^\p{L}'’-]/gu, ''));
        const at = words.findIndex((w) => !ADVERBS.has(w) && !MODALS.has(w));
        const verb = words[at];
        // "will …" / "is going to …" state an intention; "would like" / "can play" keep their verb.
        if (words.slice(0, Math.max(at, 0)).some((w) => w === 'will' || w === 'shall') || (verb === 'is' && words[at + 1] === 'going')) return 'plans';
        if (verb && /^\p{L}/u.test(verb)) return verb.replace(/['’-]/g, '_').slice(0, 32);
      }
      return 'said';
    }
  }
}

/** The edge's target: a knowledge entry's title, a skill's name, else the fact's most salient term. */
function targetOf(r: RecordView, fact: string, exclude: string[]): string {
  if (r.kind === 'knowledge') return clip(r.title, MAX_NODE_LENGTH);
  if (r.kind === 'agent_skill') return clip(r.name, MAX_NODE_LENGTH);
  const text = r.kind === 'agent_case' ? r.task_intent : fact;
  return keywords(text, 1, [...exclude, 'said', 'asked', 'replied', 'wrote'])[0] ?? clip(text, MAX_NODE_LENGTH);
}

/** A failure in Breeth's error shape: `{error: slug, message}` with 400 / 401 / 429 (503 when the memory itself fails). */
export function breethErrorResponse(error: unknown): Response {
  if (!isMemoryError(error)) return json(500, { error: 'internal_error', message: 'Internal error.' });
  switch (error.code) {
    case 'VALIDATION_FAILED':
    case 'PAYLOAD_TOO_LARGE':
    case 'UNSUPPORTED_MEDIA_TYPE': {
      const first = Array.isArray(error.details) ? error.details[0] : undefined;
      const field = first && typeof first.loc[1] === 'string' ? first.loc[1] : undefined;
      const message = first ? `${field ?? 'body'}: ${first.msg}` : error.message;
      return json(400, { error: 'invalid_request', message, ...(field ? { field } : {}) });
    }
    case 'UNAUTHENTICATED':
    case 'FORBIDDEN':
      return json(401, { error: 'unauthenticated', message: 'Missing or invalid Bearer key.' }, { 'www-authenticate': 'Bearer' });
    case 'ORIGIN_FORBIDDEN':
      return json(403, { error: 'origin_forbidden', message: error.message });
    case 'MISDIRECTED_REQUEST':
      return json(421, { error: 'misdirected_request', message: error.message });
    case 'RATE_LIMITED':
      return json(429, { error: 'quota_exceeded', kind: 'retrievals', message: error.message });
    case 'METHOD_NOT_ALLOWED':
      return json(405, { error: 'method_not_allowed', message: 'Use POST.' }, { allow: 'POST' });
    case 'ABORTED':
      return json(499, { error: 'aborted', message: error.message });
    default:
      return json(503, { error: 'unavailable', message: error.message });
  }
}

function checkOptions(options: BreethOptions): BreethOptions {
  const owner = options?.owner as Record<string, unknown> | undefined;
  const ids = owner ? (['user_id', 'agent_id'] as const).filter((k) => owner[k] !== undefined) : [];
  const valid = (v: unknown) => typeof v === 'string' && v.length <= 256 && SCOPE_ID_PATTERN.test(v);
  if (ids.length !== 1 || !valid(owner![ids[0]!])) {
    throw createError('VALIDATION_FAILED', { message: 'Breeth dialect: owner must be {user_id} or {agent_id} with a valid Engram id' });
  }
  if (options.app_id !== undefined && !valid(options.app_id)) throw createError('VALIDATION_FAILED', { message: 'Breeth dialect: app_id is not a valid Engram id' });
  return options;
}

/** The `POST /v1/search` route for a handler; checks the options now. */
export function createBreethRoute(options: BreethOptions): DialectRoute {
  const config = checkOptions(options);
  return searchRoute(config.authorize, (memory, body, signal) => breethSearch(memory, body, config, signal), breethErrorResponse);
}
