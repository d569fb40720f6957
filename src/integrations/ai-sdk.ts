/**
 * Vercel AI SDK tools over a memory (`engram-memory/ai`): `searchMemory` and `addMemory` for one
 * owner, to pass as `tools` to `generateText`, `streamText` or an agent; and `memoryPromptBlock`
 * for apps that search before calling the model instead. The search tool's input schema is the
 * contract's own search schema without the owner fields (the owner is fixed here, never chosen
 * by the model); the engine validates every call, and a refused call comes back to the model as
 * `{ error: { code, detail } }` so it can correct itself.
 *
 * @example
 * const { text } = await generateText({
 *   model, tools: createMemoryTools(memory, { user_id: 'alice' }), stopWhen: stepCountIs(3),
 *   prompt: 'What is my cat called?',
 * });
 */
import { jsonSchema, tool, type Tool } from 'ai';
import { REQUEST_CHECKS } from '../contract/requests.js';
import { jsonSchemaOf, type JsonSchema } from '../contract/schema.js';
import { isMemoryError } from '../errors.js';
import { memoryLines } from './memory-prompt.js';
import { ownerId, ownerScope, type MemoryOwner, type SearchableMemory } from './owner.js';

export { memoryPromptBlock, memoryLines } from './memory-prompt.js';
export type { MemoryPromptOptions } from './memory-prompt.js';
export type { MemoryOwner, SearchableMemory } from './owner.js';

export interface MemoryToolsOptions {
  /** Session that `addMemory` writes to (default `ai-sdk`). */
  session_id?: string;
  /** Defaults merged under what the model asks for, e.g. `{ method: 'hybrid', top_k: 5 }`. */
  searchDefaults?: Record<string, unknown>;
  /** The clock for the messages `addMemory` writes (default `Date.now`). */
  now?: () => number;
}

const SCOPE_FIELDS = ['user_id', 'agent_id', 'app_id', 'project_id'];

/** The search request's schema without the owner fields. */
function searchInputSchema(): JsonSchema {
  const schema = jsonSchemaOf(REQUEST_CHECKS.search) as { properties: Record<string, JsonSchema> } & JsonSchema;
  for (const field of SCOPE_FIELDS) delete schema.properties[field];
  return schema;
}

/** The schema of one message's text, as the add request's check states it. */
function contentSchema(): JsonSchema {
  const message = (jsonSchemaOf(REQUEST_CHECKS.add) as any).properties.messages.items;
  const text = (message.properties.content.anyOf as JsonSchema[]).find((s) => s['type'] === 'string');
  return { ...text, description: 'What to remember, in one or a few sentences.' };
}

/** A refused call, for the model to read. */
const failure = (error: unknown) => {
  if (!isMemoryError(error)) throw error;
  return { error: { code: error.code, detail: error.details ?? error.message } };
};

/**
 * `{ searchMemory, addMemory }`: AI SDK tools bound to one owner's memory. `addMemory` writes a
 * message from the owner and flushes the session, so what it stores is searchable at once.
 */
export function createMemoryTools(memory: SearchableMemory, owner: MemoryOwner, options: MemoryToolsOptions = {}): { searchMemory: Tool; addMemory: Tool } {
  const scope = ownerScope(owner);
  const { id, isUser } = ownerId(owner);
  const session_id = options.session_id ?? 'ai-sdk';
  const now = options.now ?? Date.now;
  const where = { ...(owner.app_id !== undefined ? { app_id: owner.app_id } : {}), ...(owner.project_id !== undefined ? { project_id: owner.project_id } : {}) };

  const searchMemory = tool({
    description: `Search long-term memory of ${isUser ? 'the user' : 'this agent'} (earlier conversations, facts, plans, profile). Use it before answering anything that depends on what was said before.`,
    inputSchema: jsonSchema<Record<string, unknown>>(searchInputSchema()),
    execute: async (input) => {
      try {
        const response = await memory.search({ ...options.searchDefaults, ...input, ...scope });
        return { memories: memoryLines(response.data), found: response.data.episodes.length };
      } catch (error) {
        return failure(error);
      }
    },
  });

  const addMemory = tool({
    description: `Remember something ${isUser ? 'the user said about themselves' : 'this agent learned'} for later conversations.`,
    inputSchema: jsonSchema<{ content: string }>({ type: 'object', properties: { content: contentSchema() }, required: ['content'], additionalProperties: false }),
    execute: async ({ content }) => {
      try {
        await memory.add({ ...where, session_id, messages: [{ sender_id: id, role: isUser ? 'user' : 'assistant', timestamp: now(), content }] });
        await memory.flush({ ...where, session_id });
        return { stored: true };
      } catch (error) {
        return failure(error);
      }
    },
  });

  return { searchMemory, addMemory };
}
