/**
 * The item schemas of the EverOS search contract (seed 000, `components.schemas`), written down
 * as data, and a small checker that reports every way a value departs from one of them: a
 * missing required key, a key the schema does not have (every item is
 * `additionalProperties: false`), or a value of the wrong type.
 */

type Scalar = 'string' | 'number' | 'integer' | 'boolean';

/** One property's type, as much of JSON Schema as the seed uses. */
export type PropType =
  | { type: Scalar; nullable?: boolean; const?: unknown; enum?: readonly string[]; format?: 'date-time' }
  | { type: 'object'; nullable?: boolean }
  | { type: 'array'; nullable?: boolean; items: PropType | { ref: SchemaName } }
  | { anyOf: readonly PropType[] };

export interface ObjectSchema {
  properties: Record<string, PropType | { ref: SchemaName }>;
  required: readonly string[];
}

export type SchemaName =
  | 'SearchEpisodeItem'
  | 'SearchAtomicFactItem'
  | 'SearchProfileItem'
  | 'SearchAgentCaseItem'
  | 'SearchAgentSkillItem'
  | 'UnprocessedMessageDTO'
  | 'SearchData'
  | 'SearchResponse'
  | 'ValidationError'
  | 'HTTPValidationError';

const str = { type: 'string' } as const;
const nullableStr = { type: 'string', nullable: true } as const;
const num = { type: 'number' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const arrayOf = (items: PropType | { ref: SchemaName }): PropType => ({ type: 'array', items });

export const CONTRACT: Record<SchemaName, ObjectSchema> = {
  SearchAtomicFactItem: {
    properties: { id: str, content: str, score: num },
    required: ['id', 'content', 'score'],
  },
  SearchEpisodeItem: {
    properties: {
      id: str,
      user_id: nullableStr,
      app_id: str,
      project_id: str,
      session_id: nullableStr,
      timestamp: dateTime,
      sender_ids: arrayOf(str),
      summary: str,
      subject: str,
      episode: str,
      type: { type: 'string', const: 'Conversation' },
      score: num,
      atomic_facts: arrayOf({ ref: 'SearchAtomicFactItem' }),
    },
    required: ['id', 'user_id', 'timestamp', 'summary', 'subject', 'episode', 'type', 'score'],
  },
  SearchProfileItem: {
    properties: { id: str, user_id: nullableStr, app_id: str, project_id: str, profile_data: { type: 'object' }, score: { type: 'number', nullable: true } },
    required: ['id', 'user_id', 'profile_data'],
  },
  SearchAgentCaseItem: {
    properties: {
      id: str,
      agent_id: str,
      app_id: str,
      project_id: str,
      session_id: str,
      task_intent: str,
      approach: str,
      quality_score: num,
      key_insight: nullableStr,
      timestamp: dateTime,
      score: num,
    },
    required: ['id', 'agent_id', 'session_id', 'task_intent', 'approach', 'quality_score', 'timestamp', 'score'],
  },
  SearchAgentSkillItem: {
    properties: {
      id: str,
      agent_id: str,
      app_id: str,
      project_id: str,
      name: str,
      description: str,
      content: str,
      confidence: num,
      maturity_score: num,
      source_case_ids: arrayOf(str),
      score: num,
    },
    required: ['id', 'agent_id', 'name', 'description', 'content', 'confidence', 'maturity_score', 'score'],
  },
  UnprocessedMessageDTO: {
    properties: {
      id: str,
      app_id: str,
      project_id: str,
      session_id: str,
      sender_id: str,
      sender_name: nullableStr,
      role: { type: 'string', enum: ['user', 'assistant', 'tool'] },
      content: { anyOf: [str, arrayOf({ type: 'object' })] },
      timestamp: dateTime,
      tool_calls: { type: 'array', nullable: true, items: { type: 'object' } },
      tool_call_id: nullableStr,
    },
    required: ['id', 'session_id', 'sender_id', 'role', 'content', 'timestamp'],
  },
  SearchData: {
    properties: {
      episodes: arrayOf({ ref: 'SearchEpisodeItem' }),
      profiles: arrayOf({ ref: 'SearchProfileItem' }),
      agent_cases: arrayOf({ ref: 'SearchAgentCaseItem' }),
      agent_skills: arrayOf({ ref: 'SearchAgentSkillItem' }),
      unprocessed_messages: arrayOf({ ref: 'UnprocessedMessageDTO' }),
    },
    // "All five arrays are always present" (seed 000, SearchData).
    required: ['episodes', 'profiles', 'agent_cases', 'agent_skills', 'unprocessed_messages'],
  },
  SearchResponse: {
    properties: { request_id: str, data: { ref: 'SearchData' } },
    required: ['request_id', 'data'],
  },
  ValidationError: {
    properties: {
      loc: arrayOf({ anyOf: [str, { type: 'integer' }] }),
      msg: str,
      type: str,
      input: { anyOf: [] },
      ctx: { type: 'object' },
    },
    required: ['loc', 'msg', 'type'],
  },
  HTTPValidationError: {
    properties: { detail: arrayOf({ ref: 'ValidationError' }) },
    required: ['detail'],
  },
};

// RFC 3339 date-time, as `format: date-time` means.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkProp(prop: PropType | { ref: SchemaName }, value: unknown, path: string, out: string[]): void {
  if ('ref' in prop) {
    checkObject(prop.ref, value, path, out);
    return;
  }
  if ('anyOf' in prop) {
    if (prop.anyOf.length === 0) return; // any value
    const ok = prop.anyOf.some((p) => {
      const scratch: string[] = [];
      checkProp(p, value, path, scratch);
      return scratch.length === 0;
    });
    if (!ok) out.push(`${path}: matches none of the allowed types`);
    return;
  }
  if (value === null) {
    if (!prop.nullable) out.push(`${path}: null is not allowed`);
    return;
  }
  switch (prop.type) {
    case 'string':
      if (typeof value !== 'string') return void out.push(`${path}: expected a string`);
      if (prop.const !== undefined && value !== prop.const) out.push(`${path}: expected ${String(prop.const)}`);
      if (prop.enum && !prop.enum.includes(value)) out.push(`${path}: not one of ${prop.enum.join(', ')}`);
      if (prop.format === 'date-time' && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value)))) out.push(`${path}: not an RFC 3339 date-time`);
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) out.push(`${path}: expected a finite number`);
      return;
    case 'integer':
      if (!Number.isInteger(value)) out.push(`${path}: expected an integer`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') out.push(`${path}: expected a boolean`);
      return;
    case 'object':
      if (!isObject(value)) out.push(`${path}: expected an object`);
      return;
    case 'array':
      if (!Array.isArray(value)) return void out.push(`${path}: expected an array`);
      value.forEach((v, i) => checkProp(prop.items, v, `${path}[${i}]`, out));
      return;
  }
}

function checkObject(name: SchemaName, value: unknown, path: string, out: string[]): void {
  const schema = CONTRACT[name];
  if (!isObject(value)) {
    out.push(`${path}: expected a ${name} object`);
    return;
  }
  for (const key of schema.required) if (!(key in value)) out.push(`${path}.${key}: required by ${name} but missing`);
  for (const [key, v] of Object.entries(value)) {
    const prop = schema.properties[key];
    if (!prop) out.push(`${path}.${key}: not a property of ${name}`);
    else checkProp(prop, v, `${path}.${key}`, out);
  }
}

/** Every departure of `value` from the named schema (empty when it conforms). */
export function shapeProblems(name: SchemaName, value: unknown, path = '$'): string[] {
  const out: string[] = [];
  checkObject(name, value, path, out);
  return out;
}

/** The property names of a schema (to assert "exactly these keys" where a test wants it). */
export function schemaKeys(name: SchemaName): string[] {
  return Object.keys(CONTRACT[name].properties);
}
