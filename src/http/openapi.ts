/**
 * The OpenAPI 3.1 document of the HTTP API, built from the very checks that validate each route's
 * body (`REQUEST_CHECKS` through `jsonSchemaOf`): there is no second, hand-written copy of a field
 * to drift. Served at `GET /openapi.json` by every host. Response bodies are described by their
 * envelope; their full field lists are the contract's (README, "The EverOS contract").
 */
import { REQUEST_CHECKS } from '../contract/requests.js';
import { jsonSchemaOf, type JsonSchema } from '../contract/schema.js';
import { ERROR_CATALOG } from '../errors.js';

/** The API routes, by name: `POST /api/v1/memory/<name>`. */
export type RouteName = keyof typeof REQUEST_CHECKS;

const PREFIX = '/api/v1/memory';

const SUMMARIES: Record<RouteName, { summary: string; rules?: string }> = {
  add: { summary: "Add 1-500 messages to a session's buffer; a re-sent message id is a no-op." },
  flush: { summary: "Close a session's open segment and extract it now." },
  search: { summary: 'Search one owner’s memory (keyword, vector, hybrid, agentic).', rules: 'Exactly one of user_id or agent_id.' },
  get: { summary: 'List one owner’s memories of one type, filtered, sorted and paginated.', rules: 'Exactly one of user_id or agent_id.' },
  delete: { summary: 'Delete by memory_id, by session_id, or everything of the owner.', rules: 'Exactly one of user_id or agent_id; memory_id or session_id, not both.' },
  cases: { summary: 'Insert or update an agent case.', rules: 'Agent cases belong to an agent: set agent_id.' },
  skills: { summary: 'Insert or update an agent skill.', rules: 'Agent skills belong to an agent: set agent_id.' },
  knowledge: { summary: 'Insert or update a knowledge entry.', rules: 'Exactly one of user_id or agent_id.' },
  profile: { summary: "Merge into or replace a user's profile.", rules: 'Profiles belong to a user: set user_id.' },
};

const VALIDATION_ERROR: JsonSchema = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'array',
      description: 'Every problem of the body, FastAPI/pydantic style (at most 50).',
      items: {
        type: 'object',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: { type: 'array', items: { type: ['string', 'integer'] } },
          msg: { type: 'string' },
          type: { type: 'string' },
          input: {},
          ctx: { type: 'object' },
        },
      },
    },
  },
};

const ERROR: JsonSchema = {
  type: 'object',
  required: ['detail', 'code'],
  properties: {
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOG) },
    details: { type: 'object' },
  },
};

const jsonContent = (schema: JsonSchema) => ({ 'application/json': { schema } });
const errorResponses = {
  '401': { description: 'Missing or wrong bearer token (when the host requires one).', content: jsonContent({ $ref: '#/components/schemas/Error' }) },
  '413': { description: 'Body over 10 MiB.', content: jsonContent({ $ref: '#/components/schemas/Error' }) },
  '422': { description: 'The body does not follow the contract.', content: jsonContent({ $ref: '#/components/schemas/ValidationError' }) },
  default: { description: 'Any other catalog error (403, 415, 421, 503, …).', content: jsonContent({ $ref: '#/components/schemas/Error' }) },
};

/** Options of the document. */
export interface OpenApiOptions {
  /** The server URL to list (default none: relative to where the document was fetched). */
  serverUrl?: string;
  /** The API version shown (default `0.1.0`). */
  version?: string;
  /** Whether the host serves MCP at `/mcp` (default true). */
  mcp?: boolean;
}

/** The OpenAPI 3.1 document; a fresh object on every call. */
export function openApiDocument(options: OpenApiOptions = {}): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, JsonSchema> = { ValidationError: VALIDATION_ERROR, Error: ERROR };
  for (const name of Object.keys(REQUEST_CHECKS) as RouteName[]) {
    const schemaName = `${name[0]!.toUpperCase()}${name.slice(1)}Request`;
    const { summary, rules } = SUMMARIES[name];
    schemas[schemaName] = { ...jsonSchemaOf(REQUEST_CHECKS[name]), ...(rules ? { description: rules } : {}) };
    paths[`${PREFIX}/${name}`] = {
      post: {
        operationId: name,
        summary,
        requestBody: { required: true, content: jsonContent({ $ref: `#/components/schemas/${schemaName}` }) },
        responses: { '200': { description: 'The contract’s response.', content: jsonContent({ type: 'object' }) }, ...errorResponses },
      },
    };
  }
  paths['/health'] = { get: { operationId: 'health', summary: 'Liveness, with the memory’s counters where the host has one memory.', security: [], responses: { '200': { description: 'ok', content: jsonContent({ type: 'object', properties: { status: { const: 'ok' } } }) } } } };
  paths['/openapi.json'] = { get: { operationId: 'openapi', summary: 'This document.', security: [], responses: { '200': { description: 'OpenAPI 3.1', content: jsonContent({ type: 'object' }) } } } };
  if (options.mcp !== false) paths['/mcp'] = {
    post: {
      operationId: 'mcp',
      summary: 'Model Context Protocol over Streamable HTTP (stateless, JSON answers): the tools add_memory, flush_memory, search_memory, get_memories, delete_memory and the resource engram://profile/{user_id}.',
      requestBody: { required: true, content: jsonContent({ type: 'object', description: 'A JSON-RPC 2.0 message' }) },
      responses: { '200': { description: 'JSON-RPC response', content: jsonContent({ type: 'object' }) }, '202': { description: 'Notification accepted' } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Engram memory API',
      version: options.version ?? '0.1.0',
      description: 'The EverOS memory contract (add, flush, search, get) with Engram’s delete and structured upserts.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{}, { bearer: [] }],
  };
}
