/**
 * Wire types of the EverOS memory API (seed 000 for search, the reference server's add / flush /
 * get), plus Engram's additions (delete, structured upserts). Field names are the contract's own
 * snake_case; nothing here is internal.
 */

import type { ItemRef } from '../write/content-items.js';

export type { ItemRef };

export type SearchMethod = 'keyword' | 'vector' | 'hybrid' | 'agentic';
export const SEARCH_METHODS: readonly SearchMethod[] = ['keyword', 'vector', 'hybrid', 'agentic'];

export type MessageRole = 'user' | 'assistant' | 'tool';
export const MESSAGE_ROLES: readonly MessageRole[] = ['user', 'assistant', 'tool'];

/** A filter value: a bare value means `eq`. */
export type FilterScalar = string | number | boolean | null;
export type FilterOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in';
export type FilterCondition = FilterScalar | Partial<Record<FilterOperator, FilterScalar | FilterScalar[]>>;

/** One node of the filters DSL: AND / OR arrays mixed with field conditions (siblings are ANDed). */
export interface FilterNode {
  AND?: FilterNode[] | null;
  OR?: FilterNode[] | null;
  [field: string]: FilterCondition | FilterNode[] | null | undefined;
}

export interface OwnerScope {
  user_id?: string | null;
  agent_id?: string | null;
  app_id?: string;
  project_id?: string;
}

/** `POST /api/v1/memory/search` request (seed 000 `SearchRequest`). */
export interface SearchRequest extends OwnerScope {
  query: string;
  method?: SearchMethod;
  top_k?: number;
  radius?: number | null;
  min_score?: number | null;
  include_profile?: boolean;
  enable_llm_rerank?: boolean;
  filters?: FilterNode | null;
}

export interface SearchAtomicFactItem {
  id: string;
  content: string;
  score: number;
  /** Engram extension: the items the fact's words came from, with the page or section (absent when none). */
  content_items?: ItemRef[];
}

export interface SearchEpisodeItem {
  id: string;
  user_id: string | null;
  app_id: string;
  project_id: string;
  session_id: string | null;
  timestamp: string;
  sender_ids: string[];
  summary: string;
  subject: string;
  episode: string;
  type: 'Conversation';
  score: number;
  atomic_facts: SearchAtomicFactItem[];
  /** Engram extension: the images, audio and documents of the conversation, by reference (absent when none). */
  content_items?: ItemRef[];
}

export interface SearchProfileItem {
  id: string;
  user_id: string | null;
  app_id: string;
  project_id: string;
  profile_data: Record<string, unknown>;
  score: number | null;
}

export interface SearchAgentCaseItem {
  id: string;
  agent_id: string;
  app_id: string;
  project_id: string;
  session_id: string;
  task_intent: string;
  approach: string;
  quality_score: number;
  key_insight: string | null;
  timestamp: string;
  score: number;
}

export interface SearchAgentSkillItem {
  id: string;
  agent_id: string;
  app_id: string;
  project_id: string;
  name: string;
  description: string;
  content: string;
  confidence: number;
  maturity_score: number;
  source_case_ids: string[];
  score: number;
}

export type ContentItem = Record<string, unknown>;

export interface UnprocessedMessageDTO {
  id: string;
  app_id: string;
  project_id: string;
  session_id: string;
  sender_id: string;
  sender_name: string | null;
  role: MessageRole;
  content: string | ContentItem[];
  timestamp: string;
  tool_calls: Record<string, unknown>[] | null;
  tool_call_id: string | null;
}

export interface SearchData {
  episodes: SearchEpisodeItem[];
  profiles: SearchProfileItem[];
  agent_cases: SearchAgentCaseItem[];
  agent_skills: SearchAgentSkillItem[];
  unprocessed_messages: UnprocessedMessageDTO[];
}

export interface SearchResponse {
  request_id: string;
  data: SearchData;
}

/** One message of `POST /api/v1/memory/add`. `id` is optional provenance kept on everything extracted from it. */
export interface AddMessage {
  id?: string;
  sender_id: string;
  sender_name?: string | null;
  role: MessageRole;
  timestamp: number;
  content: string | ContentItem[];
  tool_calls?: Record<string, unknown>[] | null;
  tool_call_id?: string | null;
}

export interface AddRequest {
  session_id: string;
  app_id?: string;
  project_id?: string;
  messages: AddMessage[];
}

export interface AddResponse {
  request_id: string;
  data: { message_count: number; status: 'accumulated' | 'extracted' };
  /** Engram extension: items kept whose words are not (all) searchable, and why (e.g. no PDF reader in this runtime). Absent when there are none. */
  notices?: { code: string; message: string; loc: (string | number)[] }[];
}

export interface FlushRequest {
  session_id: string;
  app_id?: string;
  project_id?: string;
}

export interface FlushResponse {
  request_id: string;
  data: { status: 'extracted' | 'no_extraction' };
}

export type MemoryType = 'episode' | 'atomic_fact' | 'foresight' | 'profile' | 'agent_case' | 'agent_skill' | 'knowledge';
export const MEMORY_TYPES: readonly MemoryType[] = ['episode', 'atomic_fact', 'foresight', 'profile', 'agent_case', 'agent_skill', 'knowledge'];

export interface GetRequest extends OwnerScope {
  memory_type?: MemoryType;
  page?: number;
  page_size?: number;
  sort_by?: 'timestamp' | 'created_at';
  sort_order?: 'asc' | 'desc';
  filters?: FilterNode | null;
}

export interface GetResponse {
  request_id: string;
  data: SearchData & { total_count: number; count: number };
}

/** Engram's delete: one record by id, one session's memories, or (neither) everything of the owner. */
export interface DeleteRequest extends OwnerScope {
  memory_id?: string | null;
  session_id?: string | null;
}

export interface DeleteResponse {
  request_id: string;
  data: { deleted_count: number };
}

export interface UpsertCaseRequest extends OwnerScope {
  id?: string;
  session_id: string;
  task_intent: string;
  approach: string;
  quality_score?: number;
  key_insight?: string | null;
  timestamp?: number | string;
}

export interface UpsertSkillRequest extends OwnerScope {
  id?: string;
  name: string;
  description: string;
  content: string;
  confidence?: number;
  maturity_score?: number;
  source_case_ids?: string[];
}

export interface UpsertKnowledgeRequest extends OwnerScope {
  id?: string;
  title: string;
  content: string;
  source?: string | null;
  timestamp?: number | string;
}

export interface UpsertProfileRequest extends OwnerScope {
  profile_data: Record<string, unknown>;
  /** `merge` (default) folds the keys into the stored profile; `replace` overwrites it. */
  mode?: 'merge' | 'replace';
}

export interface UpsertResponse {
  request_id: string;
  data: { id: string; status: 'created' | 'updated' };
}
