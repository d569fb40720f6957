/**
 * Other hosted memory services' search routes, served over the same memory: Breeth
 * `POST /v1/search` and Tablestore AgentStorage `POST /SearchMemories`. Each is off unless the
 * host configures it, and each renders its errors in its own service's shape. The HTTP handler
 * only asks this module whether a path belongs to a dialect and hands the request over.
 */
import { BREETH_SEARCH_PATH, createBreethRoute, type BreethOptions } from './breeth.js';
import type { DialectRoute } from './route.js';
import { TABLESTORE_SEARCH_PATH, createTablestoreRoute, type TablestoreOptions } from './tablestore.js';

export type { DialectContext, DialectRoute } from './route.js';

/** Which dialects a handler serves, with each one's mapping onto Engram's partitions. */
export interface DialectOptions {
  breeth?: BreethOptions;
  tablestore?: TablestoreOptions;
}

/**
 * The dialect routes of a handler, keyed by path; options are checked once, here, so a
 * misconfigured host fails when it starts rather than on its first request.
 */
export function createDialectRoutes(options: DialectOptions | undefined): (path: string) => DialectRoute | undefined {
  const routes = new Map<string, DialectRoute>();
  if (options?.breeth) routes.set(BREETH_SEARCH_PATH, createBreethRoute(options.breeth));
  if (options?.tablestore) routes.set(TABLESTORE_SEARCH_PATH, createTablestoreRoute(options.tablestore));
  return (path) => routes.get(path);
}
