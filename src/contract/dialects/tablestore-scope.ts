/**
 * Tablestore AgentStorage scopes (spec 003, "Common objects") and how they land on Engram.
 *
 * A Tablestore memory belongs to a four-field scope (appId, tenantId, agentId, runId); an Engram
 * record to one partition (app, project, owner) and maybe a session. The memory store names the
 * project; each record's scope is then:
 *
 * - a user's record: `{appId: app_id, tenantId: user, agentId: each agent that took part in its
 *   session (an agent owner with records in that session), or __default__ when none did,
 *   runId: session_id ?? __default__}`;
 * - an agent's record: `{appId: app_id, tenantId: __default__, agentId: agent, runId: session_id ?? __default__}`.
 *
 * Those are the store's conversation scopes. A search resolves its scope and filter to the
 * matching conversation scopes, then runs one engine search per owner among them, narrowed to
 * their sessions: it never reads outside the partitions it resolved to.
 */
import type { OwnerSummary } from '../../engine.js';
import type { OwnerType } from '../requests.js';
import { isFull } from '../schema.js';

/** What an omitted scope field means. */
export const DEFAULT_VALUE = '__default__';
/** A scope field's "any value", honoured only when passed explicitly. */
export const WILDCARD = '*';
export const SCOPE_FIELDS = ['appId', 'tenantId', 'agentId', 'runId'] as const;
export type ScopeField = (typeof SCOPE_FIELDS)[number];
/** A four-field scope: exact, or (in a search's `scope`) with `*` wildcards. */
export type TablestoreScope = Record<ScopeField, string>;

/** A problem with one request field, reported in the INVALID_PARAMETER message. */
export interface Issue {
  field: string;
  reason: string;
}

/** The scope filter of "Common objects": `and`/`or` over `conditions`, `not` over `condition`, `eq`, `in`. */
export type ScopeFilter =
  | { op: 'and' | 'or'; conditions: ScopeFilter[] }
  | { op: 'not'; condition: ScopeFilter }
  | { op: 'eq'; field: ScopeField; value: string }
  | { op: 'in'; field: ScopeField; values: string[] };

export const MAX_SCOPE_VALUE = 128;
export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_CONDITIONS = 100;
export const MAX_IN_VALUES = 1000;
/** Condition objects in one filter: it is matched against every conversation scope of the store. */
export const MAX_FILTER_NODES = 256;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function scopeValue(value: unknown, where: string, issues: Issue[], wildcard: boolean): string | undefined {
  if (typeof value !== 'string' || value.length === 0) {
    issues.push({ field: where, reason: 'must be a non-empty string' });
    return undefined;
  }
  if (value === WILDCARD && !wildcard) {
    issues.push({ field: where, reason: "'*' is not allowed here" });
    return undefined;
  }
  if (value.length > 2 * MAX_SCOPE_VALUE || [...value].length > MAX_SCOPE_VALUE || value.includes('/') || (value !== WILDCARD && value.includes(WILDCARD))) {
    issues.push({ field: where, reason: `must be at most ${MAX_SCOPE_VALUE} characters without '/', and '*' only on its own` });
    return undefined;
  }
  return value;
}

/**
 * A scope object: `appId` required and never `*`; the other fields `__default__` when omitted.
 * With `wildcards`, an explicit `*` matches every value of that field; without, the scope is exact.
 */
export function parseScope(value: unknown, where: string, issues: Issue[], wildcards: boolean): TablestoreScope | undefined {
  if (!isObject(value)) {
    issues.push({ field: where, reason: 'must be an object' });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(value)) {
    if (isFull(issues)) break;
    if (!(SCOPE_FIELDS as readonly string[]).includes(key)) issues.push({ field: `${where}.${key}`, reason: 'is not a scope field' });
  }
  const out = {} as TablestoreScope;
  for (const field of SCOPE_FIELDS) {
    const raw = value[field];
    if (raw === undefined || raw === null) {
      if (field === 'appId') issues.push({ field: `${where}.appId`, reason: 'is required' });
      out[field] = DEFAULT_VALUE;
      continue;
    }
    out[field] = scopeValue(raw, `${where}.${field}`, issues, wildcards && field !== 'appId') ?? DEFAULT_VALUE;
  }
  return issues.length > before ? undefined : out;
}

function scopeField(value: unknown, where: string, issues: Issue[]): ScopeField | undefined {
  if (typeof value === 'string' && (SCOPE_FIELDS as readonly string[]).includes(value)) return value as ScopeField;
  // The filter sees only the scope, never a memory's text or metadata.
  issues.push({ field: where, reason: `must be one of ${SCOPE_FIELDS.join(', ')}` });
  return undefined;
}

function filterValue(value: unknown, where: string, issues: Issue[]): string | undefined {
  if (typeof value === 'string' && value.includes(WILDCARD)) {
    issues.push({ field: where, reason: "wildcards are not supported in filter values; use '*' in scope" });
    return undefined;
  }
  return scopeValue(value, where, issues, false);
}

/** The fields each filter operator takes. A Map: an op a client names "constructor" is no operator (an object would answer with its own properties). */
const FILTER_FIELDS = new Map<string, readonly string[]>([['and', ['conditions']], ['or', ['conditions']], ['not', ['condition', 'conditions']], ['eq', ['field', 'value']], ['in', ['field', 'values', 'value']]]);

function parseNode(node: unknown, where: string, depth: number, issues: Issue[], budget: { nodes: number }): ScopeFilter | undefined {
  if (!isObject(node)) {
    issues.push({ field: where, reason: 'must be an object' });
    return undefined;
  }
  if (depth > MAX_FILTER_DEPTH) {
    issues.push({ field: where, reason: `nests deeper than ${MAX_FILTER_DEPTH} levels` });
    return undefined;
  }
  const op = node['op'];
  const fields = typeof op === 'string' ? FILTER_FIELDS.get(op) : undefined;
  if (typeof op !== 'string' || !fields) {
    issues.push({ field: `${where}.op`, reason: 'must be one of and, or, not, eq, in' });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(node)) {
    if (isFull(issues)) break;
    if (key !== 'op' && !fields.includes(key)) issues.push({ field: `${where}.${key}`, reason: `is not a field of '${op}'` });
  }
  const children = (list: unknown, at: string, min: number, max: number): ScopeFilter[] | undefined => {
    if (!Array.isArray(list) || list.length < min || list.length > max) {
      issues.push({ field: at, reason: `must be a list of ${min === max ? min : `${min} to ${max}`} condition${max === 1 ? '' : 's'}` });
      return undefined;
    }
    if (list.length > budget.nodes) {
      // Reported once per filter; later overflows stay silent.
      if (budget.nodes >= 0) issues.push({ field: at, reason: `makes the filter hold more than ${MAX_FILTER_NODES} conditions` });
      budget.nodes = -1;
      return undefined;
    }
    budget.nodes -= list.length;
    const out: (ScopeFilter | undefined)[] = [];
    for (let i = 0; i < list.length && !isFull(issues); i++) out.push(parseNode(list[i], `${at}[${i}]`, depth + 1, issues, budget));
    return out.length === list.length && out.every((c): c is ScopeFilter => c !== undefined) ? out : undefined;
  };
  let parsed: ScopeFilter | undefined;
  if (op === 'and' || op === 'or') {
    const conditions = children(node['conditions'], `${where}.conditions`, 1, MAX_FILTER_CONDITIONS);
    if (conditions) parsed = { op, conditions };
  } else if (op === 'not') {
    // `not` takes one `condition`; a one-element `conditions` is accepted too.
    const condition = 'condition' in node
      ? parseNode(node['condition'], `${where}.condition`, depth + 1, issues, budget)
      : children(node['conditions'], `${where}.conditions`, 1, 1)?.[0];
    if (condition) parsed = { op, condition };
  } else {
    const field = scopeField(node['field'], `${where}.field`, issues);
    if (op === 'eq') {
      const value = filterValue(node['value'], `${where}.value`, issues);
      if (field && value !== undefined) parsed = { op, field, value };
    } else {
      const key = 'values' in node ? 'values' : 'value';
      const raw = node[key];
      if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_IN_VALUES) {
        issues.push({ field: `${where}.${key}`, reason: `must be a list of 1 to ${MAX_IN_VALUES} values` });
      } else {
        const values: (string | undefined)[] = [];
        for (let i = 0; i < raw.length && !isFull(issues); i++) values.push(filterValue(raw[i], `${where}.${key}[${i}]`, issues));
        if (field && values.length === raw.length && values.every((v): v is string => v !== undefined)) parsed = { op: 'in', field, values };
      }
    }
  }
  return issues.length > before ? undefined : parsed;
}

/** Validates a scope filter; pushes issues and returns undefined when it is invalid. */
export function parseScopeFilter(value: unknown, where: string, issues: Issue[]): ScopeFilter | undefined {
  return parseNode(value, where, 0, issues, { nodes: MAX_FILTER_NODES - 1 });
}

/** Whether an exact scope falls within a scope pattern (`*` matches any value). */
export function scopeMatches(pattern: TablestoreScope, scope: TablestoreScope): boolean {
  return SCOPE_FIELDS.every((f) => pattern[f] === WILDCARD || pattern[f] === scope[f]);
}

/** Whether an exact scope satisfies a scope filter. */
export function filterMatches(filter: ScopeFilter, scope: TablestoreScope): boolean {
  switch (filter.op) {
    case 'and':
      return filter.conditions.every((c) => filterMatches(c, scope));
    case 'or':
      return filter.conditions.some((c) => filterMatches(c, scope));
    case 'not':
      return !filterMatches(filter.condition, scope);
    case 'eq':
      return scope[filter.field] === filter.value;
    case 'in':
      return filter.values.includes(scope[filter.field]);
  }
}

/** `appId/tenantId/agentId/runId`, the `conversation_key` of a memory. */
export function conversationKey(scope: TablestoreScope): string {
  return SCOPE_FIELDS.map((f) => scope[f]).join('/');
}

/** One conversation scope of the store, with the Engram partition and session it stands for. */
export interface ConversationScope {
  scope: TablestoreScope;
  owner_type: OwnerType;
  owner_id: string;
  session: string | null;
}

/** Every conversation scope of an app's owners (see the module comment for the mapping). */
export function conversationScopes(appId: string, owners: readonly OwnerSummary[]): ConversationScope[] {
  const agentsOf = new Map<string, string[]>();
  for (const o of owners) {
    if (o.owner_type !== 'agent') continue;
    for (const s of o.sessions) if (s !== null) agentsOf.set(s, [...(agentsOf.get(s) ?? []), o.owner_id]);
  }
  const out: ConversationScope[] = [];
  for (const o of owners) {
    for (const session of o.sessions) {
      const runId = session ?? DEFAULT_VALUE;
      const base = { owner_type: o.owner_type, owner_id: o.owner_id, session };
      if (o.owner_type === 'agent') {
        out.push({ ...base, scope: { appId, tenantId: DEFAULT_VALUE, agentId: o.owner_id, runId } });
        continue;
      }
      const agents = session === null ? [] : [...(agentsOf.get(session) ?? [])].sort();
      for (const agentId of agents.length ? agents : [DEFAULT_VALUE]) {
        out.push({ ...base, scope: { appId, tenantId: o.owner_id, agentId, runId } });
      }
    }
  }
  return out;
}
