/**
 * An MCP server over a memory (`@modelcontextprotocol/sdk`): the memory verbs as tools (./tools.ts)
 * and each user's profile as a resource, `engram://profile/{user_id}`. Transport-free: the CLI
 * connects it to stdio (./stdio.ts), the HTTP hosts to Streamable HTTP (./http.ts).
 *
 * @example
 * const server = createMcpServer(memory);
 * await server.connect(new StdioServerTransport());
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SCOPE, SCOPE_ID_PATTERN } from '../contract/requests.js';
import type { Memory } from '../engine.js';
import { MEMORY_TOOLS, callTool, type McpTenancy } from './tools.js';

export type { McpTenancy } from './tools.js';

export interface McpServerOptions {
  /**
   * Pins every call to one (app_id, project_id): arguments that omit them get these, arguments
   * naming another are refused (FORBIDDEN). The Cloudflare Worker pins each key's tenancy.
   * Default: none; calls name their own, or get `default`.
   */
  tenancy?: McpTenancy;
  /** The name the server reports to clients (default `engram`). */
  name?: string;
  /** The version it reports (default the package's API version). */
  version?: string;
}

const PROFILE_URI = /^engram:\/\/profile\/([^/?#]+)$/;

/** Creates the MCP server of `memory`; connect it to a transport to serve it. */
export function createMcpServer(memory: Memory, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: options.name ?? 'engram', version: options.version ?? '0.1.0' },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: 'Long-term memory of users and agents. search_memory before answering questions about the user; add_memory (then flush_memory) to remember a conversation.',
    },
  );
  const app_id = options.tenancy?.app_id ?? DEFAULT_SCOPE;
  const project_id = options.tenancy?.project_id ?? DEFAULT_SCOPE;

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: MEMORY_TOOLS.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema: inputSchema as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = MEMORY_TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}`);
    return callTool(memory, tool, request.params.arguments ?? {}, options.tenancy, extra.signal);
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: 'engram://profile/{user_id}', name: 'profile', title: "A user's profile", mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: memory
      .owners(app_id, project_id)
      .filter((owner) => owner.owner_type === 'user')
      .map((owner) => ({ uri: `engram://profile/${owner.owner_id}`, name: `profile of ${owner.owner_id}`, mimeType: 'application/json' })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const user_id = decodeURIComponent(PROFILE_URI.exec(uri)?.[1] ?? '');
    if (!SCOPE_ID_PATTERN.test(user_id)) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}`);
    const profile = await memory.get({ user_id, app_id, project_id, memory_type: 'profile', page_size: 100 });
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(profile) }] };
  });
  return server;
}
