/**
 * Whose memory an adapter reads and writes: one owner (a user or an agent) in one app and
 * project. The AI SDK tools and the LangChain.js adapters are each bound to one owner, so a model
 * can never name another user's memory in a tool call.
 */
import type { AddResponse, FlushResponse, SearchResponse } from '../contract/types.js';

/** One owner: `{ user_id }` or `{ agent_id }`, optionally in an app and project (default `default`). */
export type MemoryOwner = ({ user_id: string; agent_id?: never } | { agent_id: string; user_id?: never }) & { app_id?: string; project_id?: string };

/**
 * What the adapters need of a memory: `createMemory`'s engine, the browser's `createMemoryClient`
 * and anything else with these verbs of the contract.
 */
export interface SearchableMemory {
  search(request: unknown): Promise<SearchResponse>;
  add(request: unknown): Promise<AddResponse>;
  flush(request: unknown): Promise<FlushResponse>;
}

/** The owner's scope fields of a request. */
export function ownerScope(owner: MemoryOwner): Record<string, string> {
  const scope: Record<string, string> = owner.user_id !== undefined ? { user_id: owner.user_id } : { agent_id: owner.agent_id! };
  if (owner.app_id !== undefined) scope['app_id'] = owner.app_id;
  if (owner.project_id !== undefined) scope['project_id'] = owner.project_id;
  return scope;
}

/** The owner's id and whether it is a user. */
export const ownerId = (owner: MemoryOwner): { id: string; isUser: boolean } =>
  owner.user_id !== undefined ? { id: owner.user_id, isUser: true } : { id: owner.agent_id!, isUser: false };
