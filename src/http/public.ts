/**
 * The HTTP entry of the package (`engram-memory/http`): the Web-standard fetch handler every host
 * runs (Node, Workers, service workers, Deno, Bun), its error rendering and the OpenAPI document.
 *
 * @example
 * const handler = createFetchHandler(memory);          // (request: Request) => Promise<Response>
 * export default { fetch: handler };
 */
export { createFetchHandler, createErrorRenderer, errorResponse, readJson, readBodyBytes, API_PREFIX, MAX_BODY_BYTES } from './handler.js';
export type { HandlerOptions } from './handler.js';
export { openApiDocument } from './openapi.js';
export type { OpenApiOptions, RouteName } from './openapi.js';
