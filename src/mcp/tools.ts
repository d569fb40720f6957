/**
 * The memory's MCP tools: each is one memory verb with the input schema of the contract's own
 * request check (`REQUEST_CHECKS`), so an MCP client sees exactly what the HTTP API accepts and the
 * engine's validator stays the only judge of a call. A failed call is a tool result with
 * `isError` and the catalog's code, status and details — never a protocol error, so the model
 * reading it can correct its arguments.
 */
import { REQUEST_CHECKS } from '../contract/requests.js';
import { jsonSchemaOf, type JsonSchema } from '../contract/schema.js';
import type { Memory } from '../engine.js';
import { MemoryError, isMemoryError, wrapError } from '../errors.js';

/** The (app_id, project_id) a server is pinned to, as a Cloudflare API key pins its tenancy. */
export interface McpTenancy {
  app_id: string;
  project_id: string;
}

/** One tool: its MCP description and the memory call it makes. */
export interface MemoryTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  call(memory: Memory, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
}

const ONE_OWNER = 'Exactly one of user_id or agent_id names whose memory this is.';

/** The tools, in the order `tools/list` shows them. */
export const MEMORY_TOOLS: readonly MemoryTool[] = [
  {
    name: 'add_memory',
    title: 'Add messages',
    description: `Add 1-500 conversation messages to a session's buffer (EverOS /memory/add). Memories are extracted when the session's segment closes; call flush_memory to extract now. Re-sending a message id is a no-op.`,
    inputSchema: jsonSchemaOf(REQUEST_CHECKS.add),
    call: (m, args, signal) => m.add(args, signal ? { signal } : {}),
  },
  {
    name: 'flush_memory',
    title: 'Flush a session',
    description: "Close a session's open segment and extract its episodes, facts, foresight and profile now.",
    inputSchema: jsonSchemaOf(REQUEST_CHECKS.flush),
    call: (m, args, signal) => m.flush(args, signal ? { signal } : {}),
  },
  {
    name: 'search_memory',
    title: 'Search memory',
    description: `Search one owner's memory (EverOS search contract): method keyword, vector, hybrid (default) or agentic; top_k -1 returns everything relevant; filters narrow by session, time or sender; include_profile adds the user's profile. ${ONE_OWNER}`,
    inputSchema: jsonSchemaOf(REQUEST_CHECKS.search),
    call: (m, args, signal) => m.search(args, signal ? { signal } : {}),
  },
  {
    name: 'get_memories',
    title: 'List memories',
    description: `List one owner's memories of one type (episode, atomic_fact, foresight, profile, agent_case, agent_skill, knowledge), filtered, sorted and paginated. ${ONE_OWNER}`,
    inputSchema: jsonSchemaOf(REQUEST_CHECKS.get),
    call: (m, args) => m.get(args),
  },
  {
    name: 'delete_memory',
    title: 'Delete or forget',
    description: `Delete one memory by memory_id, everything of one session by session_id, or — with neither — everything the owner has (forget this user). ${ONE_OWNER}`,
    inputSchema: jsonSchemaOf(REQUEST_CHECKS.delete),
    call: (m, args) => m.delete(args),
  },
];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The arguments inside the tenancy: app_id and project_id filled in where absent, FORBIDDEN when
 * they name another tenancy. Without a tenancy the arguments pass unchanged.
 */
export function pinArguments(args: unknown, tenancy: McpTenancy | undefined): unknown {
  if (!tenancy || !isObject(args)) return args;
  const out: Record<string, unknown> = { ...args };
  for (const field of ['app_id', 'project_id'] as const) {
    if (args[field] === undefined) out[field] = tenancy[field];
    else if (args[field] !== tenancy[field]) throw new MemoryError('FORBIDDEN', { details: { field } });
  }
  return out;
}

/** A tool's answer: the memory's response as JSON text and as structured content. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The result of an error, in the catalog's terms (`code`, `status`, `detail`). */
export function errorResult(error: unknown): ToolResult {
  const typed = isMemoryError(error) ? error : wrapError(error, 'INTERNAL', 'The tool call failed.');
  const body = { code: typed.code, status: typed.status, detail: typed.details ?? typed.message };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** Runs a tool; every failure of the call becomes an error result. */
export async function callTool(memory: Memory, tool: MemoryTool, args: unknown, tenancy?: McpTenancy, signal?: AbortSignal): Promise<ToolResult> {
  try {
    const result = await tool.call(memory, pinArguments(args ?? {}, tenancy) as Record<string, unknown>, signal);
    return { content: [{ type: 'text', text: JSON.stringify(result) }], ...(isObject(result) ? { structuredContent: result } : {}) };
  } catch (error) {
    return errorResult(error);
  }
}
