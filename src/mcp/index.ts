/**
 * The MCP entry of the package (`engram-memory/mcp`): the server over a memory, its tools, and
 * the Streamable HTTP handler. MCP over stdio is Node-only: `serveMcpStdio` in `engram-memory/node`.
 */
export { createMcpServer } from './server.js';
export type { McpServerOptions, McpTenancy } from './server.js';
export { handleMcpRequest } from './http.js';
export { MEMORY_TOOLS, callTool } from './tools.js';
export type { MemoryTool, ToolResult } from './tools.js';
