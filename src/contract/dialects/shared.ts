/**
 * What the dialects share: turning an engine search response into flat hits (the other services
 * return one list of memories, not episodes with nested facts), and small response helpers.
 */
import type { Memory } from '../../engine.js';
import { tieOrder, type RecordView } from '../../records.js';
import { createError, isMemoryError } from '../../errors.js';
import type { DialectRoute } from './route.js';
import type { Scope } from '../requests.js';
import type { SearchData } from '../types.js';

/** One memory a search found, as a flat list item. */
export interface Hit {
  /** A fact or foresight, an episode that won as a whole, a knowledge entry, a case or a skill. */
  record: RecordView;
  /** The episode a fact or foresight belongs to (its id carries the recall legs); null otherwise. */
  parent: RecordView | null;
  /** The engine's calibrated 0..1 relevance. */
  score: number;
}

/**
 * The hits of one owner's search, best first. An episode whose facts won the granularity
 * competition stands as those facts; one that won as a whole stands as itself.
 */
export function hitsOf(memory: Memory, scope: Scope, data: SearchData): Hit[] {
  const ids: string[] = [];
  for (const e of data.episodes) ids.push(e.id, ...e.atomic_facts.map((f) => f.id));
  ids.push(...data.agent_cases.map((c) => c.id), ...data.agent_skills.map((s) => s.id));
  const views = new Map(memory.peek(scope, ids).map((r) => [r.id, r]));
  const hits: Hit[] = [];
  const push = (id: string, parent: RecordView | null, score: number) => {
    const record = views.get(id);
    // A record deleted between the search and this look-up is simply not reported.
    if (record) hits.push({ record, parent, score });
  };
  for (const e of data.episodes) {
    if (e.atomic_facts.length === 0) push(e.id, null, e.score);
    else for (const f of e.atomic_facts) push(f.id, views.get(e.id) ?? null, f.score);
  }
  for (const c of data.agent_cases) push(c.id, null, c.score);
  for (const s of data.agent_skills) push(s.id, null, s.score);
  return hits.sort(byScore);
}

/** Best score first; equal scores in the engine's order for them (`tieOrder`), the same way every time. */
export const byScore = (a: { score: number; record: RecordView }, b: { score: number; record: RecordView }): number => b.score - a.score || tieOrder(a.record, b.record);

/** The EverOS owner fields of a partition scope. */
export function ownerFields(scope: Scope): { user_id: string } | { agent_id: string } {
  return scope.owner_type === 'user' ? { user_id: scope.owner_id } : { agent_id: scope.owner_id };
}

/** Clips text to `max` characters (code points), marking the cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** A JSON response. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * The skeleton every dialect route shares: POST only, the host's credential check, the bounded
 * JSON body, the memory for the request, then the dialect's own search; any failure is rendered
 * in the dialect's error shape (and a non-catalog one reported to the host as a bug).
 */
export function searchRoute(
  authorize: ((request: Request) => boolean | Promise<boolean>) | undefined,
  search: (memory: Memory, body: unknown, signal: AbortSignal) => Promise<unknown>,
  renderError: (error: unknown) => Response,
): DialectRoute {
  return async (request, context) => {
    try {
      if (request.method !== 'POST') throw createError('METHOD_NOT_ALLOWED');
      if (authorize && !(await authorize(request))) throw createError('UNAUTHENTICATED');
      const body = await context.readJson(request);
      const memory = await context.memory(request, body);
      return json(200, await search(memory, body, request.signal));
    } catch (error) {
      if (!isMemoryError(error)) context.onError?.(error);
      return renderError(error);
    }
  };
}
