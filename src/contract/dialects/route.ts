/**
 * What one dialect route is and what it gets from the host. Kept apart from `routes.ts` (which
 * builds the routes from each dialect) so the dialects depend on this and nothing depends back
 * on them in a circle.
 */
import type { Memory } from '../../engine.js';

/** What a dialect route needs from the host: the memory for a request, and the host's body reader. */
export interface DialectContext {
  /** The memory serving this request (the handler's memory, or the one its picker chooses). */
  memory(request: Request, body: unknown): Promise<Memory>;
  /** Reads the JSON body, bounded in size; rejects with a MemoryError. */
  readJson(request: Request): Promise<unknown>;
  /** Reports unexpected failures (a bug, never user input). */
  onError?: ((error: unknown) => void) | undefined;
}

/** Serves one dialect request; never throws (every failure becomes a response in the dialect's shape). */
export type DialectRoute = (request: Request, context: DialectContext) => Promise<Response>;
