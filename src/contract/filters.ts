/**
 * The filters DSL (`FilterNode`): validated into a tree and compiled into a plain predicate over
 * records. Filter values are data compared in JavaScript, never spliced into a query string, so
 * nothing in a filter can be injected; and a filter only ever narrows the owner's own partition.
 *
 * Engram extension: `metadata` matches the write-time metadata a record was written with,
 * key by key (`{"metadata": {"source": "chat", "trace": {"in": ["t1", "t2"]}}}`); a bare value is
 * an exact, whole-string `eq`, and `eq` / `ne` / `in` are the operators. A record written without
 * a key never equals a value for it (and is `ne` every value).
 */
import type { ValidationDetail } from '../errors.js';
import type { FilterOperator } from './types.js';
import { isFull, type Loc } from './schema.js';
import { keyProblem, valueProblem } from './metadata.js';

/** The fields of a record a filter can see. */
export interface FilterableFields {
  session_id: string | null;
  parent_type: string | null;
  parent_id: string | null;
  timestamp: number;
  sender_ids: readonly string[];
  metadata?: Readonly<Record<string, string>> | undefined;
}

export type FilterField = 'session_id' | 'parent_type' | 'parent_id' | 'timestamp' | 'sender_id';
const FILTER_FIELDS: readonly FilterField[] = ['session_id', 'parent_type', 'parent_id', 'timestamp', 'sender_id'];
const METADATA_OPERATORS: readonly FilterOperator[] = ['eq', 'ne', 'in'];
const OPERATORS: readonly FilterOperator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'];
const SCOPE_KEYS = new Set(['user_id', 'agent_id', 'app_id', 'project_id', 'owner_id', 'owner_type']);
const MAX_DEPTH = 8;
const MAX_IN_VALUES = 1000;
/**
 * FilterNode objects and field conditions in one filter. The compiled predicate runs once per
 * record, so its size multiplies every search; and each node can carry an issue.
 */
export const MAX_FILTER_NODES = 256;

type Value = string | number | null;

export type FilterTree =
  | { kind: 'and'; children: FilterTree[] }
  | { kind: 'or'; children: FilterTree[] }
  | { kind: 'cmp'; field: FilterField; op: FilterOperator; value: Value | Value[] }
  | { kind: 'meta'; key: string; op: 'eq' | 'ne' | 'in'; value: string | string[] };

export type FilterPredicate = (record: FilterableFields) => boolean;

export interface ParsedFilters {
  tree: FilterTree;
  test: FilterPredicate;
  /** The session named by a top-level `session_id` equality, which turns on `unprocessed_messages`. */
  topLevelSessionId: string | null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses an ISO-8601 date-time or epoch-ms number into epoch ms; undefined when it is neither. */
export function parseTimestamp(value: unknown): number | undefined {
  // Outside ±8.64e15 ms a number is no instant a Date can hold (it could never be shown as ISO-8601).
  if (typeof value === 'number') return Number.isFinite(value) && Math.abs(value) <= MAX_EPOCH_MS ? value : undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return undefined;
  // A date-time without an offset is read as UTC, like a bare date: never the host's time zone.
  const zoned = /[T ]\d/.test(value) && !/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value}Z` : value;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  return Number.isNaN(ms) ? undefined : ms;
}

/** Outside ±8.64e15 ms a number is no instant a Date can hold. */
export const MAX_EPOCH_MS = 8.64e15;

function push(issues: ValidationDetail[], loc: Loc, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): void {
  if (!isFull(issues)) issues.push({ loc, msg, type, input, ...(ctx ? { ctx } : {}) });
}

/** Nodes a filter may still add (shared across one parse); below zero once the overflow is reported. */
interface Budget {
  nodes: number;
}

/** Reports, once per filter, that it holds too many nodes; later overflows stay silent. */
function overBudget(issues: ValidationDetail[], loc: Loc, input: unknown, budget: Budget): void {
  if (budget.nodes >= 0) push(issues, loc, 'value_error', `Value error, filters hold more than ${MAX_FILTER_NODES} nodes and conditions`, input, { max_nodes: MAX_FILTER_NODES });
  budget.nodes = -1;
}

function checkValue(field: FilterField, value: unknown, loc: Loc, issues: ValidationDetail[]): Value | undefined {
  if (field === 'timestamp') {
    const ms = parseTimestamp(value);
    if (ms === undefined) push(issues, loc, 'value_error', 'Value error, timestamp must be epoch milliseconds or an ISO-8601 date-time', value);
    return ms;
  }
  if (value === null && field !== 'sender_id') return null;
  if (typeof value !== 'string') {
    push(issues, loc, 'string_type', `Input should be a valid string (filter field '${field}')`, value);
    return undefined;
  }
  return value;
}

function parseCondition(field: FilterField, condition: unknown, loc: Loc, issues: ValidationDetail[]): FilterTree[] {
  // Condition objects are client-sized (any number of unknown operators): the loop stops once the issues are full.
  if (!isObject(condition)) {
    const value = checkValue(field, condition, loc, issues);
    return value === undefined ? [] : [{ kind: 'cmp', field, op: 'eq', value }];
  }
  const keys = Object.keys(condition);
  if (keys.length === 0) push(issues, loc, 'value_error', `Value error, empty operator object for '${field}'`, condition);
  const out: FilterTree[] = [];
  for (const key of keys) {
    if (isFull(issues)) break;
    const opLoc = [...loc, key];
    if (!(OPERATORS as readonly string[]).includes(key)) {
      push(issues, opLoc, 'value_error', `Value error, unknown operator '${key}'; use one of ${OPERATORS.join(', ')}`, condition[key]);
      continue;
    }
    const op = key as FilterOperator;
    if (field === 'sender_id' && op !== 'eq' && op !== 'in') {
      push(issues, opLoc, 'value_error', `Value error, sender_id takes only 'eq' or 'in', not '${op}'`, condition[key]);
      continue;
    }
    const raw = condition[key];
    if (op === 'in') {
      if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_IN_VALUES) {
        push(issues, opLoc, 'value_error', `Value error, 'in' takes a list of 1 to ${MAX_IN_VALUES} values`, raw);
        continue;
      }
      const values = raw.map((v, i) => checkValue(field, v, [...opLoc, i], issues));
      if (values.every((v) => v !== undefined)) out.push({ kind: 'cmp', field, op, value: values as Value[] });
      continue;
    }
    if ((op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte') && raw === null) {
      push(issues, opLoc, 'value_error', `Value error, '${op}' cannot compare with null`, raw);
      continue;
    }
    const value = checkValue(field, raw, opLoc, issues);
    if (value !== undefined) out.push({ kind: 'cmp', field, op, value });
  }
  return out;
}

/** The `metadata` extension: per key, a string (eq) or `{eq | ne: string, in: [string…]}`. */
function parseMetadata(value: unknown, loc: Loc, issues: ValidationDetail[], budget: Budget): FilterTree[] {
  if (!isObject(value)) {
    push(issues, loc, 'dict_type', "Input should be a valid dictionary of metadata keys (filter field 'metadata')", value);
    return [];
  }
  const out: FilterTree[] = [];
  for (const key of Object.keys(value)) {
    if (isFull(issues)) break;
    if (budget.nodes <= 0) {
      overBudget(issues, [...loc, key], value[key], budget);
      break;
    }
    budget.nodes -= 1;
    const keyLoc = [...loc, key];
    const problem = keyProblem(key);
    if (problem) push(issues, keyLoc, 'value_error', `Value error, metadata ${problem}`, key);
    const condition = value[key];
    const entries: [string, unknown][] = isObject(condition) ? Object.entries(condition) : [['eq', condition]];
    if (entries.length === 0) push(issues, keyLoc, 'value_error', `Value error, empty operator object for metadata '${key}'`, condition);
    for (const [op, raw] of entries) {
      const opLoc = isObject(condition) ? [...keyLoc, op] : keyLoc;
      if (!(METADATA_OPERATORS as readonly string[]).includes(op)) {
        push(issues, opLoc, 'value_error', `Value error, metadata takes only ${METADATA_OPERATORS.join(', ')}, not '${op}'`, raw);
        continue;
      }
      const values = op === 'in' ? raw : [raw];
      if (!Array.isArray(values) || values.length === 0 || values.length > MAX_IN_VALUES) {
        push(issues, opLoc, 'value_error', `Value error, 'in' takes a list of 1 to ${MAX_IN_VALUES} values`, raw);
        continue;
      }
      const bad = values.findIndex((v) => valueProblem(v) !== null);
      if (bad >= 0) {
        push(issues, op === 'in' ? [...opLoc, bad] : opLoc, 'string_type', `Value error, metadata ${valueProblem(values[bad])}`, values[bad]);
        continue;
      }
      if (!problem) out.push({ kind: 'meta', key, op: op as 'eq' | 'ne' | 'in', value: op === 'in' ? (values as string[]) : (raw as string) });
    }
  }
  return out;
}

function parseNode(node: unknown, loc: Loc, depth: number, issues: ValidationDetail[], budget: Budget): FilterTree {
  const and: FilterTree[] = [];
  if (!isObject(node)) {
    push(issues, loc, 'model_type', 'Input should be a valid dictionary or instance of FilterNode', node);
    return { kind: 'and', children: and };
  }
  if (depth > MAX_DEPTH) {
    push(issues, loc, 'value_error', `Value error, filters nest deeper than ${MAX_DEPTH} levels`, undefined);
    return { kind: 'and', children: and };
  }
  for (const key of Object.keys(node)) {
    if (isFull(issues)) break;
    const value = node[key];
    const keyLoc = [...loc, key];
    if (value === undefined) continue;
    if (key === 'AND' || key === 'OR') {
      if (value === null) continue;
      if (!Array.isArray(value)) {
        push(issues, keyLoc, 'list_type', 'Input should be a valid list', value);
        continue;
      }
      if (key === 'OR' && value.length === 0) {
        push(issues, keyLoc, 'value_error', 'Value error, OR needs at least one condition', value);
        continue;
      }
      if (value.length > budget.nodes) {
        overBudget(issues, keyLoc, value, budget);
        continue;
      }
      budget.nodes -= value.length;
      const children: FilterTree[] = [];
      for (let i = 0; i < value.length && !isFull(issues); i++) children.push(parseNode(value[i], [...keyLoc, i], depth + 1, issues, budget));
      and.push({ kind: key === 'AND' ? 'and' : 'or', children });
      continue;
    }
    if (key === 'metadata') {
      and.push(...parseMetadata(value, keyLoc, issues, budget));
      continue;
    }
    if (SCOPE_KEYS.has(key)) {
      push(issues, keyLoc, 'value_error', `Value error, '${key}' is a scope key: set it at the top level of the request, not inside filters`, value);
      continue;
    }
    if (!(FILTER_FIELDS as readonly string[]).includes(key)) {
      push(issues, keyLoc, 'value_error', `Value error, unknown filter field '${key}'; use one of ${FILTER_FIELDS.join(', ')}, metadata`, value);
      continue;
    }
    if (budget.nodes <= 0) {
      overBudget(issues, keyLoc, value, budget);
      continue;
    }
    budget.nodes -= 1;
    and.push(...parseCondition(key as FilterField, value, keyLoc, issues));
  }
  return { kind: 'and', children: and };
}

function compare(actual: Value, op: FilterOperator, expected: Value | Value[]): boolean {
  switch (op) {
    case 'eq':
      return actual === expected;
    case 'ne':
      return actual !== expected;
    case 'in':
      return (expected as Value[]).includes(actual);
    default: {
      if (actual === null || expected === null || Array.isArray(expected)) return false;
      if (op === 'gt') return actual > expected;
      if (op === 'gte') return actual >= expected;
      if (op === 'lt') return actual < expected;
      return actual <= expected;
    }
  }
}

function compile(tree: FilterTree): FilterPredicate {
  if (tree.kind === 'meta') {
    const { key, op, value } = tree;
    const get = (r: FilterableFields) => (r.metadata && Object.prototype.hasOwnProperty.call(r.metadata, key) ? r.metadata[key] : undefined);
    if (op === 'eq') return (r) => get(r) === value;
    if (op === 'ne') return (r) => get(r) !== value;
    return (r) => {
      const actual = get(r);
      return actual !== undefined && (value as string[]).includes(actual);
    };
  }
  if (tree.kind === 'cmp') {
    const { field, op, value } = tree;
    if (field === 'sender_id') {
      return (r) => r.sender_ids.some((id) => compare(id, op, value));
    }
    return (r) => compare(r[field], op, value);
  }
  const children = tree.children.map(compile);
  return tree.kind === 'and' ? (r) => children.every((c) => c(r)) : (r) => children.some((c) => c(r));
}

function findTopLevelSession(tree: FilterTree): string | null {
  if (tree.kind !== 'and') return null;
  for (const child of tree.children) {
    if (child.kind === 'cmp' && child.field === 'session_id' && child.op === 'eq' && typeof child.value === 'string') return child.value;
  }
  return null;
}

/** Validates a `filters` value; pushes FastAPI-style issues under `loc` and returns undefined when it is invalid. */
export function parseFilters(node: unknown, loc: Loc, issues: ValidationDetail[]): ParsedFilters | undefined {
  const before = issues.length;
  const tree = parseNode(node, loc, 0, issues, { nodes: MAX_FILTER_NODES - 1 });
  if (issues.length > before) return undefined;
  return { tree, test: compile(tree), topLevelSessionId: findTopLevelSession(tree) };
}
