/**
 * The export bundle: everything a memory holds, as versioned JSON that round-trips exactly
 * (vectors as base64 of their float32 bytes). Importing a bundle validates every item before
 * anything is written, then writes them all in one atomic batch.
 *
 * Version 2 keeps each item as a plain JSON object. Version 1 held each item as a JSON string
 * inside the JSON (encoded twice, unreadable by `jq` and people); it is still imported.
 */
import { SCOPE_ID_PATTERN } from '../contract/requests.js';
import { validationError, type ValidationDetail } from '../errors.js';
import { fromStored, isGraphItem, isMemoryRecord, recordKey, type MemoryRecord, type StoredItem } from '../records.js';
import { graphItemProblem } from '../graph/graph-items.js';
import { base64ToVector, itemFromJson, vectorToBase64 } from '../store/serialize.js';
import { isEpochMs, keptItemsProblem, storedShapeProblem } from './stored-shape.js';

export const EXPORT_FORMAT = 'engram-export';
export const EXPORT_VERSION = 2;
/** Items as JSON strings: still read, no longer written. */
const STRING_ITEMS_VERSION = 1;

/** A record or buffered message as the bundle holds it: its own fields, the vector as base64 (or null). */
export type BundleItem = { id: string; kind: StoredItem['kind']; vector?: string | null } & Record<string, unknown>;

export interface ExportBundle {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_at: string;
  embedder: { id: string; dim: number };
  /** Every record and buffered message. */
  items: BundleItem[];
}

const KINDS = new Set(['episode', 'atomic_fact', 'foresight', 'profile', 'agent_case', 'agent_skill', 'knowledge', 'message', 'graph_entity', 'graph_relation']);
const MAX_ITEMS = 1_000_000;

/** Builds a bundle from stored items. */
export function toBundle(items: readonly StoredItem[], embedder: { id: string; dim: number }, now: number): ExportBundle {
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: new Date(now).toISOString(), embedder, items: items.map(toBundleItem) };
}

/** A copy (the caller owns the bundle: changing it must not reach the memory's own items). */
function toBundleItem(item: StoredItem): BundleItem {
  if (item.kind === 'message') return structuredClone(item) as unknown as BundleItem;
  const { vector, ...rest } = item;
  return { ...structuredClone(rest), vector: vector === null ? null : vectorToBase64(vector) } as unknown as BundleItem;
}

/** The stored item of a version-2 entry: an object whose vector, if any, is base64. */
function fromBundleItem(raw: unknown): StoredItem {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new TypeError('not an object');
  const o = raw as Record<string, unknown>;
  if (o['kind'] !== 'message' && typeof o['vector'] === 'string') return { ...o, vector: base64ToVector(o['vector']) } as unknown as StoredItem;
  return { ...o } as unknown as StoredItem;
}

function checkItem(raw: unknown, version: number, index: number, issues: ValidationDetail[]): StoredItem | undefined {
  const loc = ['body', 'items', index];
  const fail = (msg: string) => {
    issues.push({ loc, msg: `Value error, ${msg}`, type: 'value_error' });
    return undefined;
  };
  if (version === STRING_ITEMS_VERSION && typeof raw !== 'string') return fail('each item of a version 1 bundle is a JSON string');
  let item: StoredItem;
  try {
    item = version === STRING_ITEMS_VERSION ? itemFromJson(raw as string) : fromBundleItem(raw);
  } catch {
    return fail(version === STRING_ITEMS_VERSION ? 'item is not valid JSON (or its vector is not base64)' : 'item must be an object (its vector base64 or null)');
  }
  const o = item as unknown as Record<string, unknown>;
  if (!o || typeof o !== 'object' || typeof o['id'] !== 'string' || !o['id']) return fail('item needs an id');
  if (!KINDS.has(String(o['kind']))) return fail(`unknown item kind ${JSON.stringify(o['kind'])}`);
  for (const key of ['app_id', 'project_id'] as const) {
    if (typeof o[key] !== 'string' || !SCOPE_ID_PATTERN.test(o[key])) return fail(`${key} must match ${SCOPE_ID_PATTERN.source}`);
  }
  if (!isEpochMs(o['timestamp'])) return fail('timestamp must be epoch milliseconds');
  const kept = keptItemsProblem(o);
  if (kept) return fail(kept);
  if (item.kind === 'message') {
    if (typeof item.session_id !== 'string' || typeof item.sender_id !== 'string') return fail('a message needs session_id and sender_id');
    const problem = storedShapeProblem(o);
    return problem ? fail(problem) : item;
  }
  if (item.owner_type !== 'user' && item.owner_type !== 'agent') return fail('owner_type must be user or agent');
  if (typeof item.owner_id !== 'string' || !SCOPE_ID_PATTERN.test(item.owner_id)) return fail('owner_id must be a scope id');
  if (isGraphItem(item)) {
    const problem = graphItemProblem(item);
    return problem ? fail(problem) : item;
  }
  const problem = storedShapeProblem(o);
  if (problem) return fail(problem);
  if (item.vector !== null && !(item.vector instanceof Float32Array)) return fail('vector must be base64 float32 or null');
  return item;
}

/** Validates a bundle; throws a 422 listing every bad item, or returns its items. */
export function fromBundle(bundle: unknown): { items: StoredItem[]; embedder: { id: string; dim: number } } {
  const issues: ValidationDetail[] = [];
  const b = bundle as Partial<ExportBundle> | null;
  if (!b || typeof b !== 'object' || b.format !== EXPORT_FORMAT) {
    throw validationError([{ loc: ['body', 'format'], msg: `Value error, not an ${EXPORT_FORMAT} bundle`, type: 'value_error', input: b?.format }]);
  }
  if (b.version !== EXPORT_VERSION && b.version !== STRING_ITEMS_VERSION) {
    throw validationError([{ loc: ['body', 'version'], msg: `Value error, bundle version ${String(b.version)} is not supported (expected ${STRING_ITEMS_VERSION} or ${EXPORT_VERSION})`, type: 'value_error', input: b.version }]);
  }
  const version = b.version;
  if (!Array.isArray(b.items) || b.items.length > MAX_ITEMS) {
    throw validationError([{ loc: ['body', 'items'], msg: `Value error, items must be a list of at most ${MAX_ITEMS}`, type: 'value_error' }]);
  }
  const items = (b.items as unknown[]).map((raw, i) => checkItem(raw, version, i, issues));
  // The store keeps one item per id (a record's within its app and project: bundles written before
  // ids were scoped hold the same plain id in two apps): a second item with an id would replace the
  // first in silence (an owner's episode gone, and the import counting both).
  const firstAt = new Map<string, number>();
  items.forEach((item, i) => {
    if (!item) return;
    const key = isMemoryRecord(item) ? recordKey(fromStored(item)) : item.id;
    const first = firstAt.get(key);
    if (first === undefined) firstAt.set(key, i);
    else issues.push({ loc: ['body', 'items', i], msg: `Value error, id ${JSON.stringify(item.id)} is the id of item ${first} too`, type: 'value_error' });
  });
  if (issues.length) throw validationError(issues.slice(0, 50));
  const embedder = b.embedder && typeof b.embedder.id === 'string' ? { id: b.embedder.id, dim: Number(b.embedder.dim) } : { id: '', dim: 0 };
  return { items: items as StoredItem[], embedder };
}

/**
 * The items of a valid bundle that would turn a record this memory holds into another kind or move
 * it to another owner (an import updates a record with the same id in place): a 422 each. A record
 * id is a record's identity in its app and project; a bundle that reuses one for something else
 * would silently replace it, and the facts nested under an episode would point at a fact.
 */
export function importClashes(items: readonly StoredItem[], held: (record: MemoryRecord) => MemoryRecord | undefined): ValidationDetail[] {
  const issues: ValidationDetail[] = [];
  items.forEach((raw, i) => {
    if (!isMemoryRecord(raw)) return;
    const record = fromStored(raw) as MemoryRecord;
    const old = held(record);
    if (!old || (old.kind === record.kind && old.owner_type === record.owner_type && old.owner_id === record.owner_id)) return;
    issues.push({ loc: ['body', 'items', i], msg: `Value error, id ${JSON.stringify(record.id)} is a stored ${old.kind} of ${old.owner_type} ${old.owner_id}; an import does not change a record's kind or owner`, type: 'value_error' });
  });
  return issues.slice(0, 50);
}
