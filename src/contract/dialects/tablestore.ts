/**
 * Tablestore AgentStorage `SearchMemories` (spec 003) over an Engram memory. The memory store
 * names the Engram project; scopes map onto owners and sessions as `tablestore-scope.ts` says.
 *
 * Each result is one Engram memory as a Tablestore memory unit: an atomic fact
 * (`atomic_fact`), a foresight (`temporal_anchor`, a plan anchored to when it is due), an episode
 * that won as a whole (`episode`), a knowledge entry (`knowledge`), an agent's case or skill
 * (`agent_case`, `agent_skill`). `score` is the engine's calibrated 0..1 relevance, `similarity`
 * the raw cosine clamped to 0..1, `source` the recall legs that found it. Profiles are never
 * results (the engine does not rank them), and there are no memory files (`fileResults: []`).
 *
 * `metadata` conditions match the write-time metadata of `add` and the upserts exactly (whole
 * strings, every key ANDed); a memory written without a key never matches a condition on it.
 * Every request field the page does not list is refused with INVALID_PARAMETER: each
 * one could narrow the search, and a condition silently dropped would widen it.
 */
import type { Memory, OwnerSummary } from '../../engine.js';
import { createError, isMemoryError } from '../../errors.js';
import { clipText, MAX_REPORTED_ISSUES } from '../echo.js';
import { isFull } from '../schema.js';
import { roundScore } from '../../search/scores.js';
import type { FilterNode } from '../types.js';
import { SCOPE_ID_PATTERN, type Scope } from '../requests.js';
import { charCount, MAX_METADATA_KEY_CHARS, MAX_METADATA_KEYS, MAX_METADATA_VALUE_CHARS, metadataMatches } from '../metadata.js';
import type { DialectRoute } from './route.js';
import { byScore, hitsOf, json, ownerFields, searchRoute, type Hit } from './shared.js';
import {
  conversationKey, conversationScopes, filterMatches, parseScope, parseScopeFilter, scopeMatches,
  type ConversationScope, type Issue, type ScopeFilter, type TablestoreScope,
} from './tablestore-scope.js';
import { evidenceOf, unitOf, type Evidence, type MemoryUnit } from './tablestore-units.js';
import { ownValue } from '../../own-keys.js';

export const TABLESTORE_SEARCH_PATH = '/SearchMemories';
export const DEFAULT_TOP_K = 10;
export const MAX_TOP_K = 50;
export const MAX_QUERY_CHARS = 8192;
export const MAX_CONVERSATION_SCOPES = 1000;
// Write-time metadata and these conditions share one set of bounds (metadata.ts).
export { MAX_METADATA_KEYS, MAX_METADATA_KEY_CHARS, MAX_METADATA_VALUE_CHARS };
/** What being in the caller's own conversation adds to `rankingScore`: enough to reorder near-ties, not to lift a weak match. */
export const CONTEXT_BOOST = 0.05;

/** How a Tablestore host maps its memory stores onto Engram. */
export interface TablestoreOptions {
  /** The Engram project a memory store names; null for a store this host does not serve. Default: the store name itself. */
  projectFor?: (memoryStoreName: string) => string | null | undefined;
  /** Checks the `x-ots-instancename` / `x-ots-apikey` headers; false answers 401. */
  authorize?: (request: Request) => boolean | Promise<boolean>;
}

/** A validated SearchMemories request with its defaults filled. */
export interface ResolvedSearchMemories {
  memoryStoreName: string;
  project_id: string;
  query: string;
  scope: TablestoreScope;
  filter: ScopeFilter | null;
  contextScope: TablestoreScope | null;
  topK: number;
  enableRerank: boolean;
  includeEvidence: boolean;
  /** Floor on `score` (`thresholds.minScore`, or the compatibility field `minSimilarity`). */
  minScore: number | null;
  /** Floor on `similarity` (`thresholds.minSimilarity`). */
  minSimilarity: number | null;
  metadata: Record<string, string>;
}

const FIELDS = ['memoryStoreName', 'query', 'scope', 'filter', 'contextScope', 'topK', 'enableRerank', 'includeEvidence', 'minSimilarity', 'thresholds', 'metadata'];
/** Code points of `s`, counted without copying it (a query can be megabytes long). */
const chars = charCount;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const present = (value: unknown) => value !== undefined && value !== null;

/** The INVALID_PARAMETER error: the first 50 issues, field names (which quote the client's keys) clipped. */
function invalid(all: Issue[]) {
  const issues = all.slice(0, MAX_REPORTED_ISSUES).map((i) => ({ field: clipText(i.field, 64), reason: i.reason }));
  const more = all.length > MAX_REPORTED_ISSUES ? `; and more (only the first ${MAX_REPORTED_ISSUES} are listed)` : '';
  return createError('VALIDATION_FAILED', {
    message: `Invalid parameter: ${issues.map((i) => `${i.field} ${i.reason}`).join('; ')}${more}`,
    details: { issues },
  });
}

function fraction(value: unknown, field: string, issues: Issue[]): number | null {
  if (!present(value)) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    issues.push({ field, reason: 'must be a number from 0 to 1' });
    return null;
  }
  return value;
}

function flag(value: unknown, field: string, fallback: boolean, issues: Issue[]): boolean {
  if (!present(value)) return fallback;
  if (typeof value !== 'boolean') issues.push({ field, reason: 'must be a boolean' });
  return value === true;
}

/** Validates a SearchMemories body and fills its defaults; throws VALIDATION_FAILED (rendered as INVALID_PARAMETER) listing every problem. */
export function parseSearchMemories(body: unknown, options: TablestoreOptions = {}): ResolvedSearchMemories {
  const issues: Issue[] = [];
  if (!isObject(body)) throw invalid([{ field: 'body', reason: 'must be a JSON object' }]);
  for (const key of Object.keys(body)) {
    if (isFull(issues)) break;
    if (!FIELDS.includes(key)) issues.push({ field: key, reason: 'is not a SearchMemories parameter' });
  }

  const name = body['memoryStoreName'];
  let project_id = '';
  if (typeof name !== 'string' || name.length === 0) issues.push({ field: 'memoryStoreName', reason: 'is required' });
  else {
    const project = options.projectFor ? options.projectFor(name) : name;
    if (typeof project !== 'string' || project.length > 256 || !SCOPE_ID_PATTERN.test(project)) {
      issues.push({ field: 'memoryStoreName', reason: project === null || project === undefined ? 'names no memory store here' : 'is not a valid memory store name' });
    } else project_id = project;
  }

  const query = body['query'];
  if (typeof query !== 'string' || query.trim() === '') issues.push({ field: 'query', reason: 'is required and must contain a non-blank character' });
  else if (chars(query) > MAX_QUERY_CHARS) issues.push({ field: 'query', reason: `must be at most ${MAX_QUERY_CHARS} characters` });

  const scope = present(body['scope']) ? parseScope(body['scope'], 'scope', issues, true) : (issues.push({ field: 'scope', reason: 'is required' }), undefined);
  const filter = present(body['filter']) ? parseScopeFilter(body['filter'], 'filter', issues) ?? null : null;
  const contextScope = present(body['contextScope']) ? parseScope(body['contextScope'], 'contextScope', issues, false) ?? null : null;
  if (scope && contextScope && (!scopeMatches(scope, contextScope) || (filter && !filterMatches(filter, contextScope)))) {
    issues.push({ field: 'contextScope', reason: 'must fall within scope and satisfy filter' });
  }

  let topK = DEFAULT_TOP_K;
  const rawTopK = body['topK'];
  if (present(rawTopK)) {
    if (typeof rawTopK !== 'number' || !Number.isInteger(rawTopK) || rawTopK < 1 || rawTopK > MAX_TOP_K) issues.push({ field: 'topK', reason: `must be an integer from 1 to ${MAX_TOP_K}` });
    else topK = rawTopK;
  }
  const enableRerank = flag(body['enableRerank'], 'enableRerank', true, issues);
  const includeEvidence = flag(body['includeEvidence'], 'includeEvidence', false, issues);

  let minScore = fraction(body['minSimilarity'], 'minSimilarity', issues);
  let minSimilarity: number | null = null;
  const thresholds = body['thresholds'];
  if (present(thresholds)) {
    if (present(body['minSimilarity'])) issues.push({ field: 'minSimilarity', reason: 'cannot be used together with thresholds' });
    if (!isObject(thresholds)) issues.push({ field: 'thresholds', reason: 'must be an object' });
    else {
      for (const key of Object.keys(thresholds)) if (key !== 'minSimilarity' && key !== 'minScore') issues.push({ field: `thresholds.${key}`, reason: 'is not a threshold' });
      minSimilarity = fraction(thresholds['minSimilarity'], 'thresholds.minSimilarity', issues);
      minScore = fraction(thresholds['minScore'], 'thresholds.minScore', issues);
    }
  }

  // Without a prototype: a condition on a key named `__proto__` is a condition, not a prototype change.
  const metadata = Object.create(null) as Record<string, string>;
  const rawMetadata = body['metadata'];
  if (present(rawMetadata)) {
    if (!isObject(rawMetadata)) issues.push({ field: 'metadata', reason: 'must be an object of strings' });
    else {
      const keys = Object.keys(rawMetadata);
      if (keys.length > MAX_METADATA_KEYS) issues.push({ field: 'metadata', reason: `has more than ${MAX_METADATA_KEYS} keys` });
      // Too many keys is reported once; each key is checked only when there are few enough to list.
      else for (const key of keys) {
        const value = rawMetadata[key];
        if (chars(key) === 0 || chars(key) > MAX_METADATA_KEY_CHARS) issues.push({ field: `metadata.${key}`, reason: `key must be 1 to ${MAX_METADATA_KEY_CHARS} characters` });
        if (typeof value !== 'string') issues.push({ field: `metadata.${key}`, reason: 'value must be a string' });
        else if (chars(value) > MAX_METADATA_VALUE_CHARS) issues.push({ field: `metadata.${key}`, reason: `value must be at most ${MAX_METADATA_VALUE_CHARS} characters` });
        else metadata[key] = value;
      }
    }
  }

  if (issues.length || !scope) throw invalid(issues);
  return {
    memoryStoreName: name as string, project_id, query: query as string, scope, filter, contextScope, topK, enableRerank, includeEvidence,
    minScore, minSimilarity, metadata,
  };
}

/** The response of SearchMemories. `evidence` is present only when `includeEvidence` was set. */
export interface SearchMemoriesResponse {
  memoryStoreName: string;
  results: MemoryResult[];
  fileResults: never[];
  evidence?: Evidence[];
  scope: TablestoreScope;
}

/** One entry of `results`. `rankingScore` / `rankingSignals` appear only when `contextScope` was given. */
export interface MemoryResult {
  unit: MemoryUnit;
  score: number;
  similarity: number;
  source: 'vector' | 'text' | 'vector+text';
  rankingScore?: number;
  rankingSignals?: { score: number; contextBoost: number; sameConversation: boolean };
}

interface Found {
  hit: Hit;
  scope: TablestoreScope;
  similarity: number;
  source: MemoryResult['source'];
}

/** Runs a SearchMemories request against the memory and answers in Tablestore's response shape. */
export async function searchMemories(memory: Memory, body: unknown, options: TablestoreOptions = {}, signal?: AbortSignal): Promise<SearchMemoriesResponse> {
  const req = parseSearchMemories(body, options);
  const owners = memory.owners(req.scope.appId, req.project_id);
  const matched = conversationScopes(req.scope.appId, owners)
    .filter((c) => scopeMatches(req.scope, c.scope) && (!req.filter || filterMatches(req.filter, c.scope)));
  if (new Set(matched.map((c) => conversationKey(c.scope))).size > MAX_CONVERSATION_SCOPES) {
    throw invalid([{ field: 'scope', reason: `and filter resolve to more than ${MAX_CONVERSATION_SCOPES} conversation scopes` }]);
  }
  const response: SearchMemoriesResponse = { memoryStoreName: req.memoryStoreName, results: [], fileResults: [], ...(req.includeEvidence ? { evidence: [] } : {}), scope: req.scope };
  if (matched.length === 0) return response;
  const conditions = Object.keys(req.metadata).length ? req.metadata : null;

  const found: Found[] = [];
  const rerank = req.enableRerank && memory.stats().llm !== null;
  const fetch = Math.min(100, req.contextScope || req.minSimilarity !== null || req.minScore !== null ? req.topK * 2 : req.topK);
  for (const group of byOwner(matched, owners)) {
    const scope: Scope = { app_id: req.scope.appId, project_id: req.project_id, owner_type: group.owner_type, owner_id: group.owner_id };
    const { response: res, trace } = await memory.searchWithTrace({
      ...ownerFields(scope), app_id: scope.app_id, project_id: scope.project_id, query: req.query, method: 'hybrid', top_k: fetch,
      // minScore floors each memory unit (a fact as well as an episode), so it is applied to the
      // units below; the engine's min_score floors episodes, and would drop a passing fact with its episode.
      enable_llm_rerank: rerank,
      // The conditions narrow the engine's search itself (the filters' `metadata` extension), so topK counts only matches.
      filters: conditions ? { ...(group.filters ?? {}), metadata: conditions } : group.filters,
    }, signal ? { signal } : {});
    for (const hit of hitsOf(memory, scope, res.data)) {
      // Only memories of the resolved conversation scopes are reported (a session written since
      // the scopes were listed is not one of them).
      const candidates = group.scopes.get(hit.record.session_id);
      if (!candidates || (conditions && !metadataMatches(hit.record.metadata, conditions))) continue;
      const legs = ownValue(trace.legs, hit.parent?.id ?? hit.record.id) ?? [];
      found.push({
        hit,
        scope: unitScope(candidates, req.contextScope),
        similarity: roundScore(Math.min(1, Math.max(0, ownValue(trace.cosine, hit.record.id) ?? 0))),
        source: legs.includes('vector') ? (legs.includes('keyword') ? 'vector+text' : 'vector') : 'text',
      });
    }
  }

  const kept = found.filter((f) => (req.minScore === null || f.hit.score >= req.minScore) && (req.minSimilarity === null || f.similarity >= req.minSimilarity));
  const context = req.contextScope ? conversationKey(req.contextScope) : null;
  // Soft ranking reorders what the scope, filter and thresholds let through; it never adds to it.
  const boostOf = (f: Found) => (context !== null && conversationKey(f.scope) === context ? CONTEXT_BOOST : 0);
  kept.sort((a, b) => b.hit.score + boostOf(b) - (a.hit.score + boostOf(a)) || byScore(a.hit, b.hit));
  const top = kept.slice(0, req.topK);
  response.results = top.map((f) => {
    const result: MemoryResult = { unit: unitOf(f.hit, f.scope), score: f.hit.score, similarity: f.similarity, source: f.source };
    if (context === null) return result;
    const boost = boostOf(f);
    return { ...result, rankingScore: roundScore(f.hit.score + boost), rankingSignals: { score: f.hit.score, contextBoost: boost, sameConversation: boost > 0 } };
  });
  if (response.evidence) response.evidence = evidenceOf(top.map((f) => ({ record: f.hit.record, scope: f.scope })));
  return response;
}

interface OwnerGroup {
  owner_type: Scope['owner_type'];
  owner_id: string;
  /** Session → the matched conversation scopes of this owner in it. */
  scopes: Map<string | null, TablestoreScope[]>;
  /** The engine filter narrowing the owner's search to those sessions (null: all of them). */
  filters: FilterNode | null;
}

/** Matched conversation scopes grouped by owner, each with the session filter its engine search needs. */
function byOwner(matched: ConversationScope[], owners: OwnerSummary[]): OwnerGroup[] {
  const groups = new Map<string, OwnerGroup>();
  for (const c of matched) {
    const key = `${c.owner_type}\u0000${c.owner_id}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { owner_type: c.owner_type, owner_id: c.owner_id, scopes: new Map(), filters: null }));
    group.scopes.set(c.session, [...(group.scopes.get(c.session) ?? []), c.scope]);
  }
  const sessionCount = new Map(owners.map((o) => [`${o.owner_type}\u0000${o.owner_id}`, o.sessions.length]));
  for (const [key, group] of groups) {
    if (group.scopes.size === sessionCount.get(key)) continue;
    const sessions = [...group.scopes.keys()].filter((s): s is string => s !== null);
    const outside = group.scopes.has(null);
    const inSessions: FilterNode = { session_id: { in: sessions } };
    group.filters = sessions.length && outside ? { OR: [inSessions, { session_id: null }] } : outside ? { session_id: null } : inSessions;
  }
  return [...groups.values()];
}

/** The scope a unit is reported under: the caller's own conversation when it is one of them, else the first. */
function unitScope(candidates: TablestoreScope[], context: TablestoreScope | null): TablestoreScope {
  const key = context ? conversationKey(context) : null;
  return candidates.find((s) => conversationKey(s) === key) ?? candidates[0]!;
}

/** A failure in the Tablestore error envelope `{Code, Message, RequestId}`. */
export function tablestoreErrorResponse(error: unknown): Response {
  const envelope = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    json(status, { Code: code, Message: message, RequestId: crypto.randomUUID() }, headers);
  if (!isMemoryError(error)) return envelope(500, 'INTERNAL_ERROR', 'Internal error.');
  switch (error.code) {
    case 'VALIDATION_FAILED':
    case 'PAYLOAD_TOO_LARGE':
    case 'UNSUPPORTED_MEDIA_TYPE': {
      // The host's body reader reports malformed JSON in EverOS's detail[] shape: say it plainly.
      const first = Array.isArray(error.details) ? error.details[0] : undefined;
      return envelope(400, 'INVALID_PARAMETER', first ? `Invalid parameter: body ${first.msg}` : error.message);
    }
    case 'UNAUTHENTICATED':
      return envelope(401, 'UNAUTHORIZED', 'Missing or invalid x-ots-apikey.');
    case 'FORBIDDEN':
    case 'ORIGIN_FORBIDDEN':
      return envelope(403, 'FORBIDDEN', error.message);
    case 'MISDIRECTED_REQUEST':
      return envelope(421, 'MISDIRECTED_REQUEST', error.message);
    case 'METHOD_NOT_ALLOWED':
      return envelope(405, 'METHOD_NOT_ALLOWED', 'Use POST.', { allow: 'POST' });
    case 'ABORTED':
      return envelope(499, 'ABORTED', error.message);
    default:
      return envelope(503, 'SERVICE_UNAVAILABLE', error.message);
  }
}

/** The `POST /SearchMemories` route for a handler. */
export function createTablestoreRoute(options: TablestoreOptions): DialectRoute {
  return searchRoute(options.authorize, (memory, body, signal) => searchMemories(memory, body, options, signal), tablestoreErrorResponse);
}

