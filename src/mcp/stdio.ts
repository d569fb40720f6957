/**
 * MCP over stdio: what `engram-memory mcp` runs for a desktop assistant. Node only; stdout
 * belongs to the protocol, so everything else the process says goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Memory } from '../engine.js';
import { createMcpServer, type McpServerOptions } from './server.js';

/** Serves `memory` over this process's stdin/stdout; resolves once the client has gone. */
export async function serveMcpStdio(memory: Memory, options: McpServerOptions = {}): Promise<void> {
  const server = createMcpServer(memory, options);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  await closed;
}
