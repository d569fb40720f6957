/**
 * What an imported record or buffered message must hold: every field the engine reads later, of
 * the type it reads it as. A bundle is a file a person can be handed; one item of the wrong shape,
 * once stored, failed every later write to its session ("content.map is not a function", "Invalid
 * time value") or every search of its owner (the index refusing a document whose text is not
 * text), long after the import had said yes. So each field is checked before anything is written.
 */
import { MESSAGE_ROLES } from '../contract/types.js';

/** Outside ±8.64e15 ms a number is no instant a Date can hold. */
const MAX_EPOCH_MS = 8.64e15;

type Check = (value: unknown) => boolean;

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
export const isEpochMs = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_EPOCH_MS;
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isPlain: Check = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const orNull = (check: Check): Check => (v) => v === null || check(v);
/** Absent (older bundles may lack the field), or of the right type. */
const optional = (check: Check): Check => (v) => v === undefined || check(v);

/** A field, the check it must pass, and what it should be, in words. */
type Field = [name: string, check: Check, should: string];

const STRING: [Check, string] = [isString, 'a string'];
const STRING_OR_NULL: [Check, string] = [optional(orNull(isString)), 'a string or null'];
const TIME: [Check, string] = [isEpochMs, 'epoch milliseconds'];

const RECORD: Field[] = [
  ['timestamp', ...TIME],
  ['created_at', optional(isEpochMs), 'epoch milliseconds'],
  ['updated_at', optional(isEpochMs), 'epoch milliseconds'],
  ['session_id', ...STRING_OR_NULL],
  ['sender_ids', isStrings, 'a list of strings'],
  ['source_message_ids', optional(isStrings), 'a list of strings'],
  ['parent_type', ...STRING_OR_NULL],
  ['parent_id', ...STRING_OR_NULL],
  ['vector_model', ...STRING_OR_NULL],
];

const BY_KIND = new Map<string, Field[]>(Object.entries({
  episode: [['subject', ...STRING], ['summary', ...STRING], ['episode', ...STRING]],
  atomic_fact: [['content', ...STRING], ['evidence', optional(isString), 'a string'], ['passage', optional((v) => v === true), 'true or absent']],
  foresight: [['content', ...STRING], ['evidence', optional(isString), 'a string'], ['due_at', optional(orNull(isEpochMs)), 'epoch milliseconds or null']],
  profile: [['profile_data', isPlain, 'an object']],
  agent_case: [['task_intent', ...STRING], ['approach', ...STRING], ['quality_score', isNumber, 'a number'], ['key_insight', ...STRING_OR_NULL]],
  agent_skill: [
    ['name', ...STRING], ['description', ...STRING], ['content', ...STRING], ['confidence', isNumber, 'a number'],
    ['maturity_score', isNumber, 'a number'], ['source_case_ids', isStrings, 'a list of strings'],
  ],
  knowledge: [['title', ...STRING], ['content', ...STRING], ['source', ...STRING_OR_NULL]],
  message: [
    ['timestamp', ...TIME],
    ['seq', optional(isNumber), 'a number'],
    ['sender_name', ...STRING_OR_NULL],
    ['role', (v) => (MESSAGE_ROLES as readonly unknown[]).includes(v), `one of ${MESSAGE_ROLES.join(', ')}`],
    ['content', (v) => isString(v) || (Array.isArray(v) && v.every(isPlain)), 'a string or a list of content items'],
    ['tool_calls', optional(orNull((v) => Array.isArray(v) && v.every(isPlain))), 'a list of objects or null'],
    ['tool_call_id', ...STRING_OR_NULL],
    ['message_id', ...STRING_OR_NULL],
  ],
} satisfies Record<string, Field[]>));

/** Why an imported record or buffered message cannot be stored as it is, or null when it can. */
export function storedShapeProblem(item: Record<string, unknown>): string | null {
  const kind = String(item['kind']);
  const fields = kind === 'message' ? BY_KIND.get(kind)! : [...RECORD, ...(BY_KIND.get(kind) ?? [])];
  for (const [name, check, should] of fields) {
    if (!check(item[name])) return `${kind} ${name} must be ${should}`;
  }
  return null;
}
