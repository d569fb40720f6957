/**
 * The JSON Schema of the filters DSL (`FilterNode`), for the OpenAPI document and tool schemas.
 * The DSL is validated by hand (filters.ts: recursion, node budget, per-field value rules); this
 * is its published shape. Nested `AND`/`OR` nodes are described one level deep so the schema
 * stays self-contained (no `$ref`): tool-calling LLMs and MCP clients read it without resolving
 * references. The field list is typed against `FilterField`, so a new field cannot be left out.
 */
import type { FilterField } from './filters.js';
import type { FilterOperator } from './types.js';
import type { JsonSchema } from './schema.js';

const OPERATORS: readonly FilterOperator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'];
const TIMESTAMP: JsonSchema = { anyOf: [{ type: 'integer', description: 'epoch milliseconds' }, { type: 'string', format: 'date-time' }] };

const condition = (value: JsonSchema, operators: readonly string[]): JsonSchema => ({
  anyOf: [
    value,
    {
      type: 'object',
      description: 'operator → value; `in` takes a list of 1 to 1000 values',
      properties: Object.fromEntries(operators.map((op) => [op, op === 'in' ? { type: 'array', items: value, minItems: 1, maxItems: 1000 } : value])),
      additionalProperties: false,
      minProperties: 1,
    },
  ],
});

const FIELDS = {
  session_id: condition({ type: ['string', 'null'] }, OPERATORS),
  parent_type: condition({ type: ['string', 'null'] }, OPERATORS),
  parent_id: condition({ type: ['string', 'null'] }, OPERATORS),
  timestamp: condition(TIMESTAMP, OPERATORS),
  sender_id: condition({ type: 'string' }, ['eq', 'in']),
} satisfies Record<FilterField, JsonSchema>;

/** Engram extension: write-time metadata, key → exact value or `{eq | ne | in}` (docs/multimodal.md). */
const METADATA: JsonSchema = {
  type: 'object',
  description: 'Engram extension: write-time metadata, matched exactly per key',
  maxProperties: 256,
  additionalProperties: condition({ type: 'string', maxLength: 1024 }, ['eq', 'ne', 'in']),
};

const node = (nested: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: { ...FIELDS, metadata: METADATA, AND: { type: ['array', 'null'], items: nested }, OR: { type: ['array', 'null'], items: nested, minItems: 1 } },
  additionalProperties: false,
});

/** A FilterNode: field conditions ANDed together, with `AND` / `OR` lists of nested nodes (at most 8 deep, 256 nodes). */
export const FILTER_NODE_SCHEMA: JsonSchema = {
  ...node({ type: 'object', description: 'a nested FilterNode' }),
  description: 'Filters over session_id, parent_type, parent_id, timestamp, sender_id and (Engram extension) metadata; conditions are ANDed. Scope keys (user_id, agent_id, app_id, project_id) belong at the top level of the request.',
};
