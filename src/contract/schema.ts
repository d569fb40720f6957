/**
 * A tiny validator that reports problems the way FastAPI/pydantic does (`{loc, msg, type, input,
 * ctx}`), so clients written against EverOS read our 422s unchanged. Types are strict: a string
 * "5" is not an integer and `true` is not a number.
 */
import type { ValidationDetail } from '../errors.js';
import { MAX_REPORTED_ISSUES } from './echo.js';
import { MAX_JSON_DEPTH, measureJson, type JsonLimits } from './json-bounds.js';

export type Loc = (string | number)[];

/** A field check: returns the (possibly defaulted) value, or pushes issues and returns INVALID. */
export type Check<T> = (value: unknown, loc: Loc, issues: ValidationDetail[]) => T | typeof INVALID;

export const INVALID: unique symbol = Symbol('invalid');

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it) fragment. */
export type JsonSchema = Record<string, unknown>;

// The JSON Schema each check accepts, built on demand: the OpenAPI document, the MCP tools and the
// AI SDK tools describe requests from the very checks that validate them, never from a copy.
const SCHEMAS = new WeakMap<Check<unknown>, () => JsonSchema>();

/** Attaches the JSON Schema of what `check` accepts (a thunk, for shapes built from other checks); returns the check. */
export function withSchema<C extends Check<any>>(check: C, schema: JsonSchema | (() => JsonSchema)): C {
  SCHEMAS.set(check, typeof schema === 'function' ? schema : () => schema);
  return check;
}

/** The JSON Schema of a check, a fresh object each call; `{}` (any JSON) for a check that describes nothing. */
export function jsonSchemaOf(check: Check<unknown>): JsonSchema {
  return structuredClone(SCHEMAS.get(check)?.() ?? {});
}

const defined = (schema: Record<string, unknown>): JsonSchema =>
  Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined));

/**
 * True once more issues are collected than a 422 lists: loops over client-sized collections stop
 * there, so a body of a million bad entries costs no more than one of fifty-one.
 */
export const isFull = (issues: readonly unknown[]): boolean => issues.length > MAX_REPORTED_ISSUES;

/** Records an issue (unless the list is already full) and returns INVALID. */
export function issue(issues: ValidationDetail[], loc: Loc, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): typeof INVALID {
  if (!isFull(issues)) issues.push({ loc, msg, type, input, ...(ctx ? { ctx } : {}) });
  return INVALID;
}

/** An object that is neither null nor an array (what JSON calls an object). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface StringRules {
  min?: number;
  max?: number;
  pattern?: RegExp;
}

/** A string with optional length bounds and pattern. */
export function str(rules: StringRules = {}): Check<string> {
  return withSchema<Check<string>>((value, loc, issues) => {
    if (typeof value !== 'string') return issue(issues, loc, 'string_type', 'Input should be a valid string', value);
    if (rules.min !== undefined && value.length < rules.min) {
      return issue(issues, loc, 'string_too_short', `String should have at least ${rules.min} character${rules.min === 1 ? '' : 's'}`, value, { min_length: rules.min });
    }
    if (rules.max !== undefined && value.length > rules.max) {
      return issue(issues, loc, 'string_too_long', `String should have at most ${rules.max} characters`, value, { max_length: rules.max });
    }
    if (rules.pattern && !rules.pattern.test(value)) {
      return issue(issues, loc, 'string_pattern_mismatch', `String should match pattern '${rules.pattern.source}'`, value, { pattern: rules.pattern.source });
    }
    return value;
  }, defined({ type: 'string', minLength: rules.min, maxLength: rules.max, pattern: rules.pattern?.source }));
}

export interface NumberRules {
  min?: number;
  max?: number;
}

function bounded<T extends number>(value: T, rules: NumberRules, loc: Loc, issues: ValidationDetail[]): T | typeof INVALID {
  if (rules.min !== undefined && value < rules.min) return issue(issues, loc, 'greater_than_equal', `Input should be greater than or equal to ${rules.min}`, value, { ge: rules.min });
  if (rules.max !== undefined && value > rules.max) return issue(issues, loc, 'less_than_equal', `Input should be less than or equal to ${rules.max}`, value, { le: rules.max });
  return value;
}

/** An integer (JSON number without a fraction). */
export function int(rules: NumberRules = {}): Check<number> {
  return withSchema<Check<number>>((value, loc, issues) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return issue(issues, loc, 'int_type', 'Input should be a valid integer', value);
    if (!Number.isInteger(value)) return issue(issues, loc, 'int_from_float', 'Input should be a valid integer, got a number with a fractional part', value);
    return bounded(value, rules, loc, issues);
  }, defined({ type: 'integer', minimum: rules.min, maximum: rules.max }));
}

/** A finite number. */
export function num(rules: NumberRules = {}): Check<number> {
  return withSchema<Check<number>>((value, loc, issues) => {
    if (typeof value !== 'number') return issue(issues, loc, 'float_type', 'Input should be a valid number', value);
    if (!Number.isFinite(value)) return issue(issues, loc, 'finite_number', 'Input should be a finite number', value);
    return bounded(value, rules, loc, issues);
  }, defined({ type: 'number', minimum: rules.min, maximum: rules.max }));
}

/** A boolean. */
export function bool(): Check<boolean> {
  return withSchema<Check<boolean>>((value, loc, issues) => (typeof value === 'boolean' ? value : issue(issues, loc, 'bool_type', 'Input should be a valid boolean', value)), { type: 'boolean' });
}

/** One of a fixed set of strings. */
export function oneOf<T extends string>(values: readonly T[]): Check<T> {
  const expected = values.map((v) => `'${v}'`).join(', ').replace(/, ([^,]*)$/, ' or $1');
  return withSchema<Check<T>>((value, loc, issues) =>
    typeof value === 'string' && (values as readonly string[]).includes(value)
      ? (value as T)
      : issue(issues, loc, 'enum', `Input should be ${expected}`, value, { expected }), { type: 'string', enum: [...values] });
}

/** `null` or the inner check. */
export function nullable<T>(inner: Check<T>): Check<T | null> {
  return withSchema<Check<T | null>>((value, loc, issues) => (value === null ? null : inner(value, loc, issues)), () => {
    const schema = jsonSchemaOf(inner);
    // `type: [t, 'null']` where it can be said so; a union otherwise.
    return typeof schema['type'] === 'string' && !('enum' in schema) ? { ...schema, type: [schema['type'], 'null'] } : { anyOf: [schema, { type: 'null' }] };
  });
}

export interface ArrayRules {
  min?: number;
  max?: number;
}

/** An array whose every element passes `item`. */
export function arrayOf<T>(item: Check<T>, rules: ArrayRules = {}): Check<T[]> {
  return withSchema<Check<T[]>>((value, loc, issues) => {
    if (!Array.isArray(value)) return issue(issues, loc, 'list_type', 'Input should be a valid list', value);
    if (rules.min !== undefined && value.length < rules.min) {
      return issue(issues, loc, 'too_short', `List should have at least ${rules.min} item${rules.min === 1 ? '' : 's'} after validation, not ${value.length}`, value, { field_type: 'List', min_length: rules.min, actual_length: value.length });
    }
    if (rules.max !== undefined && value.length > rules.max) {
      return issue(issues, loc, 'too_long', `List should have at most ${rules.max} items after validation, not ${value.length}`, undefined, { field_type: 'List', max_length: rules.max, actual_length: value.length });
    }
    const before = issues.length;
    const out: T[] = [];
    for (let index = 0; index < value.length; index++) {
      if (isFull(issues)) return INVALID;
      const checked = item(value[index], [...loc, index], issues);
      if (checked !== INVALID) out.push(checked);
    }
    return issues.length > before ? INVALID : out;
  }, () => defined({ type: 'array', items: jsonSchemaOf(item), minItems: rules.min, maxItems: rules.max }));
}

/** Any JSON object (free-form). */
export function record(): Check<Record<string, unknown>> {
  return withSchema<Check<Record<string, unknown>>>((value, loc, issues) => (isPlainObject(value) ? value : issue(issues, loc, 'dict_type', 'Input should be a valid dictionary', value)), { type: 'object' });
}

/** Accepts anything of the listed checks, first that passes wins (pydantic's union, simplified). */
export function anyOf<T>(checks: Check<T>[], type: string, msg: string): Check<T> {
  return withSchema<Check<T>>((value, loc, issues) => {
    for (const check of checks) {
      const scratch: ValidationDetail[] = [];
      const out = check(value, loc, scratch);
      if (out !== INVALID) return out;
    }
    return issue(issues, loc, type, msg, value);
  }, () => ({ anyOf: checks.map(jsonSchemaOf) }));
}

export interface Field<T> {
  check: Check<T>;
  required?: boolean;
  default?: T;
}

export type Shape = Record<string, Field<unknown>>;
export type Parsed<S extends Shape> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/** A JSON object with known fields; unknown fields are `extra_forbidden` (additionalProperties: false). */
export function object<S extends Shape>(shape: S): Check<Parsed<S>> {
  return withSchema<Check<Parsed<S>>>((value, loc, issues) => {
    if (!isPlainObject(value)) return issue(issues, loc, 'model_attributes_type', 'Input should be a valid dictionary or object to extract fields from', value);
    const before = issues.length;
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(shape)) {
      if (!(name in value) || value[name] === undefined) {
        if (field.required) issue(issues, [...loc, name], 'missing', 'Field required', value);
        else if ('default' in field) out[name] = field.default;
        continue;
      }
      const checked = field.check(value[name], [...loc, name], issues);
      if (checked !== INVALID) out[name] = checked;
    }
    for (const name of Object.keys(value)) {
      if (isFull(issues)) break;
      if (!Object.prototype.hasOwnProperty.call(shape, name)) issue(issues, [...loc, name], 'extra_forbidden', 'Extra inputs are not permitted', value[name]);
    }
    return issues.length > before ? INVALID : (out as Parsed<S>);
  }, () => {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [name, field] of Object.entries(shape)) {
      properties[name] = { ...jsonSchemaOf(field.check), ...('default' in field ? { default: field.default } : {}) };
      if (field.required) required.push(name);
    }
    return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
  });
}

/**
 * Free-form JSON within bounds: a list or object is measured (`measureJson`: depth, bytes, JSON
 * types) before `inner` or anything else reads it; scalars go straight to `inner`, whose own
 * rules bound them.
 */
export function boundedJson<T>(inner: Check<T>, limits: JsonLimits): Check<T> {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  return withSchema<Check<T>>((value, loc, issues) => {
    if (typeof value !== 'object' || value === null) return inner(value, loc, issues);
    const measured = measureJson(value, limits);
    if ('bytes' in measured) return inner(value, loc, issues);
    switch (measured.kind) {
      case 'depth':
        return issue(issues, loc, 'json_too_deep', `JSON nesting should be at most ${maxDepth} levels deep`, value, { max_depth: maxDepth });
      case 'bytes':
        return issue(issues, loc, 'json_too_large', `JSON value should be at most ${limits.maxBytes} bytes`, value, { max_bytes: limits.maxBytes });
      case 'type':
        return issue(issues, loc, 'json_type', 'Input should hold only JSON values (strings, finite numbers, booleans, null, lists, objects)', value);
    }
  }, () => jsonSchemaOf(inner));
}

/** Shorthands for the common field forms. */
export const required = <T>(check: Check<T>): Field<T> => ({ check, required: true });
export const optional = <T>(check: Check<T>): Field<T | undefined> => ({ check });
export const withDefault = <T>(check: Check<T>, value: T): Field<T> => ({ check, default: value });
