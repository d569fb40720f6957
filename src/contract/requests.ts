/**
 * Validation of every request of the memory API into resolved, defaulted values. Each function
 * throws one `MemoryError('VALIDATION_FAILED')` listing every problem in FastAPI's `detail[]`
 * shape, or returns a value the engine can trust.
 */
import { validationError, type ValidationDetail } from '../errors.js';
import { parseFilters, parseTimestamp, type ParsedFilters } from './filters.js';
import {
  INVALID, anyOf, arrayOf, bool, boundedJson, int, issue, isFull, nullable, num, object, oneOf, optional, record, required, str, withDefault, withSchema,
  type Check, type Parsed, type Shape,
} from './schema.js';
import { FILTER_NODE_SCHEMA } from './filter-schema.js';
import { metadataCheck, storedMetadata, type Metadata } from './metadata.js';
import { checkRequestBytes, contentCheck as contentItemsCheck, hasMedia, itemText } from '../write/content-items.js';
import {
  MEMORY_TYPES, MESSAGE_ROLES, SEARCH_METHODS,
  type AddMessage, type MemoryType, type SearchMethod,
} from './types.js';

/** Scope ids (user, agent, app, project, session) share one safe alphabet. */
export const SCOPE_ID_PATTERN = /^[A-Za-z0-9_.@+-]+$/;
export const MAX_QUERY_LENGTH = 16_000;
export const MAX_MESSAGES_PER_ADD = 500;
export const MAX_CONTENT_LENGTH = 100_000;
/** Bytes of JSON a message's content-item list may hold, and likewise its `tool_calls`. */
export const MAX_MESSAGE_JSON_BYTES = 262_144;
/** Bytes of JSON one profile upsert's `profile_data` may hold. */
export const MAX_PROFILE_BYTES = 65_536;
/**
 * Items of one list in `profile_data`: what the stored profile keeps of a list, so one request
 * never holds more than can be kept.
 */
export const MAX_PROFILE_LIST_ITEMS = 50;
export const DEFAULT_SCOPE = 'default';

const scopeId = () => str({ min: 1, max: 256, pattern: SCOPE_ID_PATTERN });
const text = (max: number) => str({ min: 1, max });
const timestampCheck: Check<number> = withSchema<Check<number>>((value, loc, issues) => {
  const ms = parseTimestamp(value);
  if (ms === undefined) {
    issues.push({ loc, msg: 'Input should be epoch milliseconds or an ISO-8601 date-time', type: 'datetime_parsing', input: value });
    return INVALID;
  }
  return ms;
}, { anyOf: [{ type: 'integer', description: 'epoch milliseconds' }, { type: 'string', format: 'date-time' }] });

export type OwnerType = 'user' | 'agent';

/** The partition every record lives in: one app, one project, exactly one owner. */
export interface Scope {
  app_id: string;
  project_id: string;
  owner_type: OwnerType;
  owner_id: string;
}

const ownerFields = {
  user_id: optional(nullable(scopeId())),
  agent_id: optional(nullable(scopeId())),
  app_id: withDefault(scopeId(), DEFAULT_SCOPE),
  project_id: withDefault(scopeId(), DEFAULT_SCOPE),
};

/** A rule over the whole body (pydantic's model validator), given the raw object. */
type ModelRule = (raw: Record<string, unknown>, issues: ValidationDetail[]) => void;

const isBodyObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Runs the field checks, then `extra` (needs valid fields), then the model rules. The model
 * rules (one owner, not both ids…) read the raw body, so they are reported together with the
 * field errors and after them, as the README promises: every problem at once.
 */
function run<T>(check: Check<T>, body: unknown, extra?: ((value: T, issues: ValidationDetail[]) => void) | null, ...rules: ModelRule[]): T {
  const issues: ValidationDetail[] = [];
  const value = check(body, ['body'], issues);
  if (value !== INVALID && extra) extra(value, issues);
  if (isBodyObject(body)) for (const rule of rules) rule(body, issues);
  if (value === INVALID || issues.length > 0) throw validationError(issues);
  return value;
}

/** Which owner a raw body names: exactly one of user_id / agent_id set (not null), else undefined. */
function ownerTypeOf(raw: Record<string, unknown>): OwnerType | undefined {
  const user = raw['user_id'] ?? null;
  const agent = raw['agent_id'] ?? null;
  if ((user === null) === (agent === null)) return undefined;
  return user !== null ? 'user' : 'agent';
}

/** The one-owner rule, on the raw body. */
const oneOwner: ModelRule = (raw, issues) => {
  if (ownerTypeOf(raw) !== undefined) return;
  issues.push({
    loc: ['body'],
    msg: 'Value error, exactly one of user_id or agent_id must be set',
    type: 'value_error',
    input: { user_id: raw['user_id'] ?? null, agent_id: raw['agent_id'] ?? null },
  });
};

/** The partition of a validated body (the one-owner rule has passed). */
function scopeOf(value: { user_id?: string | null | undefined; agent_id?: string | null | undefined; app_id: string; project_id: string }): Scope {
  const user = value.user_id ?? null;
  return user !== null
    ? { app_id: value.app_id, project_id: value.project_id, owner_type: 'user', owner_id: user }
    : { app_id: value.app_id, project_id: value.project_id, owner_type: 'agent', owner_id: value.agent_id as string };
}

/** A `filters` field: a FilterNode or null, validated by the DSL's own rules. */
const filtersCheck: Check<ParsedFilters | null> = withSchema<Check<ParsedFilters | null>>((value, loc, issues) => {
  if (value === null) return null;
  return parseFilters(value, loc, issues) ?? INVALID;
}, { anyOf: [FILTER_NODE_SCHEMA, { type: 'null' }] });

// ---------------------------------------------------------------------------------------------
// search

export interface ResolvedSearch {
  scope: Scope;
  query: string;
  method: SearchMethod;
  /** -1 ("everything relevant") or 1..100. */
  top_k: number;
  radius: number | null;
  min_score: number | null;
  include_profile: boolean;
  enable_llm_rerank: boolean;
  filters: ParsedFilters | null;
}

/** `query`: 1.. characters, at least one of them not blank. */
const queryCheck: Check<string> = withSchema<Check<string>>((value, loc, issues) => {
  const out = text(MAX_QUERY_LENGTH)(value, loc, issues);
  if (out === INVALID || out.trim().length > 0) return out;
  issues.push({ loc, msg: 'Value error, query must contain a non-blank character', type: 'value_error', input: out });
  return INVALID;
}, { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH, pattern: '\\S' });

/** `top_k`: -1 ("everything relevant") or 1..100. Checked per field, so it is reported with the others. */
const topKCheck: Check<number> = withSchema<Check<number>>((value, loc, issues) => {
  const out = int()(value, loc, issues);
  if (out === INVALID || out === -1 || (out >= 1 && out <= 100)) return out;
  issues.push({ loc, msg: 'Value error, top_k must be -1 or between 1 and 100', type: 'value_error', input: out });
  return INVALID;
}, { type: 'integer', minimum: -1, maximum: 100, not: { const: 0 }, description: '-1 (everything relevant) or 1..100' });

const searchShape = object({
  ...ownerFields,
  query: required(queryCheck),
  method: withDefault(oneOf(SEARCH_METHODS), 'hybrid' as SearchMethod),
  top_k: withDefault(topKCheck, -1),
  radius: withDefault(nullable(num({ min: 0, max: 1 })), null),
  min_score: withDefault(nullable(num({ min: 0, max: 1 })), null),
  include_profile: withDefault(bool(), false),
  enable_llm_rerank: withDefault(bool(), false),
  filters: withDefault(filtersCheck, null),
});

/** Validates a SearchRequest (seed 000) and fills its defaults. */
export function parseSearchRequest(body: unknown): ResolvedSearch {
  const value = run(searchShape, body, null, oneOwner);
  return {
    scope: scopeOf(value),
    query: value.query,
    method: value.method,
    top_k: value.top_k,
    radius: value.radius,
    min_score: value.min_score,
    include_profile: value.include_profile,
    enable_llm_rerank: value.enable_llm_rerank,
    filters: value.filters,
  };
}

// ---------------------------------------------------------------------------------------------
// add / flush

// Content items are checked by their type (write/content-items.ts); tool calls are free-form JSON, bounded in depth and size.
const contentCheck = contentItemsCheck(MAX_CONTENT_LENGTH);

const messageShape = object({
  id: optional(nullable(str({ min: 1, max: 256 }))),
  sender_id: required(scopeId()),
  sender_name: optional(nullable(str({ max: 256 }))),
  role: required(oneOf(MESSAGE_ROLES)),
  timestamp: required(timestampCheck),
  content: required(contentCheck),
  tool_calls: optional(nullable(boundedJson(arrayOf(record(), { max: 100 }), { maxBytes: MAX_MESSAGE_JSON_BYTES }))),
  tool_call_id: optional(nullable(str({ max: 256 }))),
});

const addShape = object({
  session_id: required(scopeId()),
  app_id: withDefault(scopeId(), DEFAULT_SCOPE),
  project_id: withDefault(scopeId(), DEFAULT_SCOPE),
  messages: required(arrayOf(messageShape, { min: 1, max: MAX_MESSAGES_PER_ADD })),
  metadata: optional(metadataCheck),
});

export interface ResolvedAdd {
  app_id: string;
  project_id: string;
  session_id: string;
  messages: ResolvedMessage[];
  /** Write-time metadata kept on every record of this write (absent: none). */
  metadata: Metadata | undefined;
}

/** A validated message: optional fields made explicit. */
export interface ResolvedMessage {
  id: string | undefined;
  sender_id: string;
  sender_name: string | null;
  role: AddMessage['role'];
  timestamp: number;
  content: AddMessage['content'];
  tool_calls: Record<string, unknown>[] | null;
  tool_call_id: string | null;
}

/** Validates an add request; every message is checked before anything is written. */
export function parseAddRequest(body: unknown): ResolvedAdd {
  const value = run(addShape, body, (v, issues) => {
    v.messages.forEach((m, i) => {
      if (typeof m.content !== 'string' && extractText(m.content).trim() === '' && !hasMedia(m.content) && !m.tool_calls) {
        issues.push({ loc: ['body', 'messages', i, 'content'], msg: 'Value error, content items carry no text', type: 'value_error', input: m.content });
      }
    });
    checkRequestBytes(v.messages, issues);
  });
  return {
    metadata: storedMetadata(value.metadata),
    app_id: value.app_id,
    project_id: value.project_id,
    session_id: value.session_id,
    messages: value.messages.map((m) => ({
      id: m.id ?? undefined,
      sender_id: m.sender_id,
      sender_name: m.sender_name ?? null,
      role: m.role,
      timestamp: m.timestamp,
      content: m.content,
      tool_calls: m.tool_calls ?? null,
      tool_call_id: m.tool_call_id ?? null,
    })),
  };
}

/** The plain text of a message's content (text parts of a content-item list, joined). */
export function extractText(content: string | Record<string, unknown>[]): string {
  if (typeof content === 'string') return content;
  return content
    .map(itemText)
    .filter(Boolean)
    .join('\n');
}

const flushShape = object({
  session_id: required(scopeId()),
  app_id: withDefault(scopeId(), DEFAULT_SCOPE),
  project_id: withDefault(scopeId(), DEFAULT_SCOPE),
});

export interface ResolvedFlush {
  app_id: string;
  project_id: string;
  session_id: string;
}

/** Validates a flush request. */
export function parseFlushRequest(body: unknown): ResolvedFlush {
  return run(flushShape, body);
}

// ---------------------------------------------------------------------------------------------
// get

export interface ResolvedGet {
  scope: Scope;
  memory_type: MemoryType;
  page: number;
  page_size: number;
  sort_by: 'timestamp' | 'created_at';
  sort_order: 'asc' | 'desc';
  filters: ParsedFilters | null;
}

const getShape = object({
  ...ownerFields,
  memory_type: withDefault(oneOf(MEMORY_TYPES), 'episode' as MemoryType),
  page: withDefault(int({ min: 1, max: 1_000_000 }), 1),
  page_size: withDefault(int({ min: 1, max: 100 }), 20),
  sort_by: withDefault(oneOf(['timestamp', 'created_at'] as const), 'timestamp' as const),
  sort_order: withDefault(oneOf(['asc', 'desc'] as const), 'desc' as const),
  filters: withDefault(filtersCheck, null),
});

/** Validates a paginated listing request. */
export function parseGetRequest(body: unknown): ResolvedGet {
  const value = run(getShape, body, null, oneOwner);
  return { ...value, scope: scopeOf(value) };
}

// ---------------------------------------------------------------------------------------------
// delete

export interface ResolvedDelete {
  scope: Scope;
  memory_id: string | null;
  session_id: string | null;
}

const deleteShape = object({
  ...ownerFields,
  memory_id: optional(nullable(str({ min: 1, max: 256 }))),
  session_id: optional(nullable(scopeId())),
});

/** Validates a delete request: by memory id, by session, or the whole owner when neither is set. */
export function parseDeleteRequest(body: unknown): ResolvedDelete {
  const value = run(deleteShape, body, null, oneOwner, (raw, issues) => {
    const memoryId = raw['memory_id'] ?? null;
    const sessionId = raw['session_id'] ?? null;
    if (memoryId !== null && memoryId !== '' && sessionId !== null && sessionId !== '') {
      issues.push({ loc: ['body'], msg: 'Value error, give memory_id or session_id, not both', type: 'value_error', input: { memory_id: memoryId, session_id: sessionId } });
    }
  });
  return { scope: scopeOf(value), memory_id: value.memory_id ?? null, session_id: value.session_id ?? null };
}

// ---------------------------------------------------------------------------------------------
// structured upserts

/** An upsert's body: the owner fields and the record's own. */
const scoped = <S extends Shape>(shape: S) => object({ ...ownerFields, ...shape });

function parseScoped<S extends Shape>(check: Check<Parsed<S>>, body: unknown, ownerRule?: ModelRule) {
  const value = run(check, body, null, oneOwner, ...(ownerRule ? [ownerRule] : []));
  return { value, scope: scopeOf(value as never) };
}

const agentOnly = (kind: string): ModelRule => (raw, issues) => {
  if (ownerTypeOf(raw) === 'user') issues.push({ loc: ['body', 'agent_id'], msg: `Value error, ${kind} belong to an agent: set agent_id`, type: 'value_error', input: null });
};
const userOnly = (kind: string): ModelRule => (raw, issues) => {
  if (ownerTypeOf(raw) === 'agent') issues.push({ loc: ['body', 'user_id'], msg: `Value error, ${kind} belong to a user: set user_id`, type: 'value_error', input: null });
};

/** `profile_data`: an object within the free-form bounds whose lists hold at most what a stored profile keeps. */
const profileDataCheck: Check<Record<string, unknown>> = boundedJson(withSchema<Check<Record<string, unknown>>>((value, loc, issues) => {
  const data = record()(value, loc, issues);
  if (data === INVALID) return INVALID;
  const before = issues.length;
  for (const key of Object.keys(data)) {
    if (isFull(issues)) break;
    const list = data[key];
    if (!Array.isArray(list) || list.length <= MAX_PROFILE_LIST_ITEMS) continue;
    issue(issues, [...loc, key], 'too_long', `List should have at most ${MAX_PROFILE_LIST_ITEMS} items after validation, not ${list.length}`, undefined, {
      field_type: 'List', max_length: MAX_PROFILE_LIST_ITEMS, actual_length: list.length,
    });
  }
  return issues.length > before ? INVALID : data;
}, { type: 'object', additionalProperties: { anyOf: [{ not: { type: 'array' } }, { type: 'array', maxItems: MAX_PROFILE_LIST_ITEMS }] } }), { maxBytes: MAX_PROFILE_BYTES });

const recordId = () => str({ min: 1, max: 128, pattern: SCOPE_ID_PATTERN });

const caseShape = scoped({
  id: optional(recordId()),
  session_id: required(scopeId()),
  task_intent: required(text(10_000)),
  approach: required(text(20_000)),
  quality_score: withDefault(num({ min: 0, max: 1 }), 0.5),
  key_insight: withDefault(nullable(str({ max: 10_000 })), null),
  timestamp: optional(timestampCheck),
  metadata: optional(metadataCheck),
});

const skillShape = scoped({
  id: optional(recordId()),
  name: required(text(256)),
  description: required(text(10_000)),
  content: required(text(50_000)),
  confidence: withDefault(num({ min: 0, max: 1 }), 0.5),
  maturity_score: withDefault(num({ min: 0, max: 1 }), 0.5),
  source_case_ids: withDefault(arrayOf(str({ min: 1, max: 256 }), { max: 1000 }), [] as string[]),
  metadata: optional(metadataCheck),
});

const knowledgeShape = scoped({
  id: optional(recordId()),
  title: required(text(512)),
  content: required(text(50_000)),
  source: withDefault(nullable(str({ max: 2048 })), null),
  timestamp: optional(timestampCheck),
  metadata: optional(metadataCheck),
});

const profileShape = scoped({
  profile_data: required(profileDataCheck),
  mode: withDefault(oneOf(['merge', 'replace'] as const), 'merge' as const),
});

/** Validates an agent-case upsert. */
export function parseUpsertCase(body: unknown) {
  return parseScoped(caseShape, body, agentOnly('agent cases'));
}

/** Validates an agent-skill upsert. */
export function parseUpsertSkill(body: unknown) {
  return parseScoped(skillShape, body, agentOnly('agent skills'));
}

/** Validates a knowledge-entry upsert (either owner type). */
export function parseUpsertKnowledge(body: unknown) {
  return parseScoped(knowledgeShape, body);
}

/** Validates a profile upsert (users only, as in the contract). */
export function parseUpsertProfile(body: unknown) {
  return parseScoped(profileShape, body, userOnly('profiles'));
}

/**
 * The check of each API route's body, by route name (`POST /api/v1/memory/<name>`): what the
 * parsers above run first, and what `jsonSchemaOf` turns into the published schemas. The rules
 * over the whole body (one owner, agent-only kinds, memory_id or session_id) are not in them.
 */
export const REQUEST_CHECKS = {
  add: addShape,
  flush: flushShape,
  search: searchShape,
  get: getShape,
  delete: deleteShape,
  cases: caseShape,
  skills: skillShape,
  knowledge: knowledgeShape,
  profile: profileShape,
} as const satisfies Record<string, Check<unknown>>;
