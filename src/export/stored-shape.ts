/**
 * What an imported record or buffered message must hold: every field the engine reads later, of
 * the type it reads it as. A bundle is a file a person can be handed; one item of the wrong shape,
 * once stored, failed every later write to its session ("content.map is not a function", "Invalid
 * time value") or every search of its owner (the index refusing a document whose text is not
 * text), long after the import had said yes. So each field is checked before anything is written.
 */
import { MAX_EPOCH_MS } from '../contract/filters.js';
import { keyProblem, MAX_METADATA_KEYS, valueProblem } from '../contract/metadata.js';
import { isPlainObject } from '../contract/schema.js';
import { MESSAGE_ROLES } from '../contract/types.js';
import { MEDIA_TYPES } from '../write/content-items.js';

type Check = (value: unknown) => boolean;

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
export const isEpochMs = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_EPOCH_MS;
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const orNull = (check: Check): Check => (v) => v === null || check(v);
/**
 * A field, the check it must pass, what it should be (in words), and, for a field the engine can do
 * without, what it holds when a bundle leaves it out (the engine reads every field as present:
 * a record without `source_message_ids` failed every search of its owner's cases).
 */
type Field = [name: string, check: Check, should: string, absent?: (item: Record<string, unknown>) => unknown];

const STRING: [Check, string] = [isString, 'a string'];
const NULL_IF_ABSENT: [Check, string, () => null] = [orNull(isString), 'a string or null', () => null];
const TIME: [Check, string] = [isEpochMs, 'epoch milliseconds'];
const WHEN_WRITTEN: [Check, string, (item: Record<string, unknown>) => unknown] = [isEpochMs, 'epoch milliseconds', (item) => item['timestamp']];

const RECORD: Field[] = [
  ['timestamp', ...TIME],
  ['created_at', ...WHEN_WRITTEN],
  ['updated_at', ...WHEN_WRITTEN],
  ['session_id', ...NULL_IF_ABSENT],
  ['sender_ids', isStrings, 'a list of strings'],
  ['source_message_ids', isStrings, 'a list of strings', () => []],
  ['parent_type', ...NULL_IF_ABSENT],
  ['parent_id', ...NULL_IF_ABSENT],
  ['vector_model', ...NULL_IF_ABSENT],
];

const BY_KIND = new Map<string, Field[]>(Object.entries({
  episode: [['subject', ...STRING], ['summary', ...STRING], ['episode', ...STRING]],
  atomic_fact: [['content', ...STRING], ['evidence', isString, 'a string', (item) => item['content']], ['passage', (v) => v === undefined || v === true, 'true or absent']],
  foresight: [['content', ...STRING], ['evidence', isString, 'a string', (item) => item['content']], ['due_at', orNull(isEpochMs), 'epoch milliseconds or null', () => null]],
  profile: [['profile_data', isPlainObject, 'an object']],
  agent_case: [['task_intent', ...STRING], ['approach', ...STRING], ['quality_score', isNumber, 'a number'], ['key_insight', ...NULL_IF_ABSENT]],
  agent_skill: [
    ['name', ...STRING], ['description', ...STRING], ['content', ...STRING], ['confidence', isNumber, 'a number'],
    ['maturity_score', isNumber, 'a number'], ['source_case_ids', isStrings, 'a list of strings', () => []],
  ],
  knowledge: [['title', ...STRING], ['content', ...STRING], ['source', ...NULL_IF_ABSENT]],
  message: [
    ['timestamp', ...TIME],
    ['seq', isNumber, 'a number', () => 0],
    ['sender_name', ...NULL_IF_ABSENT],
    ['role', (v) => (MESSAGE_ROLES as readonly unknown[]).includes(v), `one of ${MESSAGE_ROLES.join(', ')}`],
    ['content', (v) => isString(v) || (Array.isArray(v) && v.every(isPlainObject)), 'a string or a list of content items'],
    ['tool_calls', orNull((v) => Array.isArray(v) && v.every(isPlainObject)), 'a list of objects or null', () => null],
    ['tool_call_id', ...NULL_IF_ABSENT],
    ['message_id', ...NULL_IF_ABSENT],
  ],
} satisfies Record<string, Field[]>));

/**
 * Why an imported record or buffered message cannot be stored, or null when it can; a field the
 * engine can do without is filled in where the bundle leaves it out (`item` is the caller's copy).
 */
export function storedShapeProblem(item: Record<string, unknown>): string | null {
  const kind = String(item['kind']);
  const fields = kind === 'message' ? BY_KIND.get(kind)! : [...RECORD, ...(BY_KIND.get(kind) ?? [])];
  for (const [name, check, should, absent] of fields) {
    if (item[name] === undefined && absent) item[name] = absent(item);
    if (!check(item[name])) return `${kind} ${name} must be ${should}`;
  }
  return null;
}

const SHA256 = /^[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Why an imported item's metadata, item references or inline bytes are malformed, or null: an
 * export bundle is checked before anything is written, and these fields are read by search.
 */
export function keptItemsProblem(item: Record<string, unknown>): string | null {
  const metadata = item['metadata'];
  if (metadata !== undefined) {
    if (!isPlainObject(metadata) || Object.keys(metadata).length > MAX_METADATA_KEYS) return `metadata must be an object of at most ${MAX_METADATA_KEYS} string values`;
    for (const [k, v] of Object.entries(metadata)) if (keyProblem(k) || valueProblem(v)) return `metadata ${keyProblem(k) ?? valueProblem(v)}`;
  }
  const items = item['items'];
  if (items !== undefined) {
    if (!Array.isArray(items)) return 'items must be a list of item references';
    for (const ref of items) {
      if (!isPlainObject(ref) || !(MEDIA_TYPES as readonly string[]).includes(String(ref['type'])) || typeof ref['mime_type'] !== 'string') return 'each item reference needs a type and a mime_type';
      if (ref['sha256'] !== null && !(typeof ref['sha256'] === 'string' && SHA256.test(ref['sha256']))) return 'an item reference sha256 must be 64 hex digits or null';
      if (ref['size'] !== null && !(Number.isInteger(ref['size']) && (ref['size'] as number) >= 0)) return 'an item reference size must be a byte count or null';
    }
  }
  const media = item['media'];
  if (media !== undefined) {
    if (!isPlainObject(media)) return 'media must be an object of base64 strings by SHA-256';
    for (const [sha, b64] of Object.entries(media)) if (!SHA256.test(sha) || typeof b64 !== 'string' || !BASE64.test(b64)) return 'media must be an object of base64 strings by SHA-256';
  }
  return null;
}
