/**
 * Write-time metadata: string keys and string values a caller attaches to a write (`add`, the
 * structured upserts), kept on every record that write produces, and matched exactly by the
 * filters DSL's `metadata` extension and by Tablestore's `metadata` conditions. The bounds are
 * Tablestore's (spec 003): at most 16 keys, keys of 1 to 64 and values of at most 1,024 Unicode
 * characters, so anything written here can be asked for there.
 */
import { INVALID, isPlainObject, issue, withSchema, type Check } from './schema.js';

export const MAX_METADATA_KEYS = 16;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 1024;

/** Write-time metadata as stored: a plain string → string map. */
export type Metadata = Record<string, string>;

/** Code points of `s` (a UTF-16 surrogate pair counts once), counted without copying it. */
export function charCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  return n;
}

/** Why a key or value breaks the bounds, or null when it keeps them. */
export function keyProblem(key: string): string | null {
  const n = charCount(key);
  return n === 0 || n > MAX_METADATA_KEY_CHARS ? `key must be 1 to ${MAX_METADATA_KEY_CHARS} characters` : null;
}

export function valueProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'value must be a string';
  return charCount(value) > MAX_METADATA_VALUE_CHARS ? `value must be at most ${MAX_METADATA_VALUE_CHARS} characters` : null;
}


/**
 * The `metadata` field of a write: an object of at most 16 string keys with string values, in the
 * contract's 422 shape when it is not.
 */
export const metadataCheck: Check<Metadata> = withSchema<Check<Metadata>>((value, loc, issues) => {
  if (!isPlainObject(value)) return issue(issues, loc, 'dict_type', 'Input should be a valid dictionary', value);
  const keys = Object.keys(value);
  if (keys.length > MAX_METADATA_KEYS) {
    return issue(issues, loc, 'too_long', `Dictionary should have at most ${MAX_METADATA_KEYS} items after validation, not ${keys.length}`, undefined, { max_length: MAX_METADATA_KEYS, actual_length: keys.length });
  }
  const before = issues.length;
  const out: [string, string][] = [];
  for (const key of keys) {
    const keyIssue = keyProblem(key);
    if (keyIssue) issue(issues, [...loc, key], 'value_error', `Value error, metadata ${keyIssue}`, key, { max_length: MAX_METADATA_KEY_CHARS });
    const raw = value[key];
    const valueIssue = valueProblem(raw);
    if (valueIssue) issue(issues, [...loc, key], typeof raw === 'string' ? 'string_too_long' : 'string_type', `Value error, metadata ${valueIssue}`, raw, { max_length: MAX_METADATA_VALUE_CHARS });
    if (!keyIssue && !valueIssue) out.push([key, raw as string]);
  }
  // fromEntries defines own properties: a key named `__proto__` stays data.
  return issues.length > before ? INVALID : Object.fromEntries(out);
}, {
  type: 'object',
  maxProperties: MAX_METADATA_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_METADATA_KEY_CHARS },
  additionalProperties: { type: 'string', maxLength: MAX_METADATA_VALUE_CHARS },
  description: 'Write-time metadata kept on every record of this write (Engram extension; Tablestore bounds).',
});

/** The metadata a record keeps: a plain copy of the non-empty map, or undefined for none. */
export function storedMetadata(metadata: Metadata | null | undefined): Metadata | undefined {
  if (!metadata) return undefined;
  const keys = Object.keys(metadata);
  return keys.length ? Object.fromEntries(keys.map((k) => [k, metadata[k]!])) : undefined;
}

/** Whether two writes carry the same metadata (absent and empty are the same). */
export function sameMetadata(a: Metadata | null | undefined, b: Metadata | null | undefined): boolean {
  const ka = a ? Object.keys(a) : [];
  const kb = b ? Object.keys(b) : [];
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && b![k] === a![k]);
}

/** Whether a record's metadata holds every key of `conditions` with exactly that value. */
export function metadataMatches(metadata: Metadata | null | undefined, conditions: Metadata): boolean {
  for (const key of Object.keys(conditions)) {
    if (!metadata || !Object.prototype.hasOwnProperty.call(metadata, key) || metadata[key] !== conditions[key]) return false;
  }
  return true;
}

/** Tablestore's three renderings (spec 003): the object, its JSON, and `k=v` pairs joined by commas; keys sorted. */
export function metadataRenderings(metadata: Metadata | null | undefined): { metadata: Metadata; metadata_json: string; metadata_flat: string } {
  const keys = Object.keys(metadata ?? {}).sort();
  const sorted: Metadata = Object.fromEntries(keys.map((k) => [k, metadata![k]!]));
  return { metadata: sorted, metadata_json: JSON.stringify(sorted), metadata_flat: keys.map((k) => `${k}=${sorted[k]}`).join(',') };
}
