/**
 * The Node entry of the package (`engram-memory/node`): the parts that need Node — the SQLite
 * store (better-sqlite3, an optional peer dependency loaded only when a store is opened), the
 * HTTP server with its local guard, the bundled model read from disk, MCP over stdio.
 *
 * @example
 * import { createMemory } from 'engram-memory';
 * import { createSqliteStore, createDefaultEmbedder, startNodeServer } from 'engram-memory/node';
 * import { createFetchHandler } from 'engram-memory/http';
 * const memory = await createMemory({ store: await createSqliteStore('./.engram'), embedder: await createDefaultEmbedder() });
 * const server = await startNodeServer({ port: 8787, handler: createFetchHandler(memory) });
 */
export { createSqliteStore } from './store/sqlite-store.js';
export type { SqliteStoreOptions } from './store/sqlite-store.js';
export { startNodeServer } from './http/node-server.js';
export type { NodeServerOptions, RunningServer } from './http/node-server.js';
export type { LocalGuardPolicy } from './http/local-guard.js';
export { createDefaultEmbedder, createDefaultOnnxEmbedder, loadBundledStaticModel, bundledModelUrl } from './models/load-static-model.js';
export { serveMcpStdio } from './mcp/stdio.js';
export { openDataDirectory } from './cli/open-memory.js';
export { repairSqliteStore } from './store/sqlite-repair.js';
export type { RepairReport } from './store/sqlite-repair.js';
