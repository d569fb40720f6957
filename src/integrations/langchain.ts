/**
 * LangChain.js adapters over a memory (`engram-memory/langchain`): `EngramRetriever`, a
 * `BaseRetriever` whose documents are the episodes (with their facts), cases and skills a search
 * finds for one owner; and `EngramStore`, a LangGraph `BaseStore` (put / get / search / delete /
 * listNamespaces) whose items are knowledge entries of one owner, so they are searched by the
 * same hybrid search as everything else the owner remembers.
 *
 * @example
 * const retriever = new EngramRetriever({ memory, owner: { user_id: 'alice' }, search: { top_k: 5 } });
 * const docs = await retriever.invoke('what pet does Alice have?');
 * const graph = builder.compile({ store: new EngramStore(memory, { user_id: 'alice' }) });
 */
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import {
  BaseStore, type GetOperation, type Item, type ListNamespacesOperation, type MatchCondition, type Operation, type OperationResults, type PutOperation,
  type SearchOperation,
} from '@langchain/langgraph';
import { DEFAULT_SCOPE, type Scope } from '../contract/requests.js';
import type { SearchData } from '../contract/types.js';
import type { Memory } from '../engine.js';
import { isMemoryError } from '../errors.js';
import { ownerId, ownerScope, type MemoryOwner, type SearchableMemory } from './owner.js';
import { ownValue } from '../own-keys.js';

export type { MemoryOwner, SearchableMemory } from './owner.js';

// ---------------------------------------------------------------------------------------------
// retriever

export interface EngramRetrieverInput extends BaseRetrieverInput {
  memory: Pick<SearchableMemory, 'search'>;
  owner: MemoryOwner;
  /** Search fields merged under each query, e.g. `{ method: 'hybrid', top_k: 5, include_profile: true }`. */
  search?: Record<string, unknown>;
}

/** The documents of a search answer, in the engine's order. */
export function searchDocuments(data: SearchData): Document[] {
  const docs: Document[] = [];
  for (const p of data.profiles) docs.push(new Document({ id: p.id, pageContent: JSON.stringify(p.profile_data), metadata: { type: 'profile', id: p.id } }));
  for (const e of data.episodes) {
    docs.push(new Document({
      id: e.id,
      pageContent: e.episode,
      metadata: { type: 'episode', id: e.id, summary: e.summary, timestamp: e.timestamp, session_id: e.session_id, score: e.score, facts: e.atomic_facts.map((f) => f.content) },
    }));
  }
  for (const c of data.agent_cases) {
    docs.push(new Document({ id: c.id, pageContent: `${c.task_intent}\n${c.approach}`, metadata: { type: 'agent_case', id: c.id, timestamp: c.timestamp, score: c.score, key_insight: c.key_insight } }));
  }
  for (const s of data.agent_skills) {
    docs.push(new Document({ id: s.id, pageContent: s.content, metadata: { type: 'agent_skill', id: s.id, name: s.name, description: s.description, score: s.score } }));
  }
  return docs;
}

/** A retriever over one owner's memory. */
export class EngramRetriever extends BaseRetriever {
  static lc_name(): string {
    return 'EngramRetriever';
  }
  lc_namespace = ['engram-memory', 'retrievers'];
  private readonly memory: Pick<SearchableMemory, 'search'>;
  private readonly scope: Record<string, string>;
  private readonly defaults: Record<string, unknown>;

  constructor(fields: EngramRetrieverInput) {
    super(fields);
    this.memory = fields.memory;
    this.scope = ownerScope(fields.owner);
    this.defaults = fields.search ?? {};
  }

  async _getRelevantDocuments(query: string): Promise<Document[]> {
    const response = await this.memory.search({ ...this.defaults, query, ...this.scope });
    return searchDocuments(response.data);
  }
}

// ---------------------------------------------------------------------------------------------
// LangGraph store

/** Marks a knowledge entry as a store item and carries its namespace and key (its `source`). */
const SOURCE_PREFIX = 'langgraph:';
const PAGE = 100;

/** An item found by `search`, with the memory's score when a query ranked it. */
export type SearchItem = Item & { score?: number };

type StoredView = { id: string; kind: string; content?: string; source?: string | null; created_at: number; updated_at: number };

async function itemId(namespace: string[], key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify([namespace, key]))));
  return `lg-${[...digest.slice(0, 20)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function toItem(record: StoredView | undefined): Item | null {
  if (!record || record.kind !== 'knowledge' || !record.source?.startsWith(SOURCE_PREFIX) || record.content === undefined) return null;
  const { namespace, key } = JSON.parse(record.source.slice(SOURCE_PREFIX.length)) as { namespace: string[]; key: string };
  return { namespace, key, value: JSON.parse(record.content) as Record<string, unknown>, createdAt: new Date(record.created_at), updatedAt: new Date(record.updated_at) };
}

const startsWith = (namespace: string[], prefix: readonly string[]) => prefix.every((part, i) => part === '*' || namespace[i] === part);

function matches(namespace: string[], condition: MatchCondition): boolean {
  if (condition.path.length > namespace.length) return false;
  return condition.matchType === 'prefix' ? startsWith(namespace, condition.path) : startsWith(namespace.slice(namespace.length - condition.path.length), condition.path);
}

function compare(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object' || Array.isArray(expected)) return JSON.stringify(actual) === JSON.stringify(expected);
  return Object.entries(expected as Record<string, unknown>).every(([op, value]) => {
    switch (op) {
      case '$eq': return JSON.stringify(actual) === JSON.stringify(value);
      case '$ne': return JSON.stringify(actual) !== JSON.stringify(value);
      case '$gt': return (actual as number) > (value as number);
      case '$gte': return (actual as number) >= (value as number);
      case '$lt': return (actual as number) < (value as number);
      case '$lte': return (actual as number) <= (value as number);
      default: return JSON.stringify(actual !== null && typeof actual === 'object' ? ownValue(actual as Record<string, unknown>, op) : undefined) === JSON.stringify(value);
    }
  });
}

const passes = (item: Item, filter: Record<string, unknown> | undefined) => !filter || Object.entries(filter).every(([field, expected]) => compare(ownValue(item.value, field), expected));

/**
 * A LangGraph store over one owner's memory. Each item is a knowledge entry (title = key,
 * content = the value's JSON, so its words are searchable); `search` with a `query` runs the
 * memory's hybrid search, without one it lists. Listing reads every item of the owner: meant for
 * the thousands of items an agent keeps, not for millions.
 */
export class EngramStore extends BaseStore {
  private readonly memory: Memory;
  private readonly request: Record<string, string>;
  private readonly scope: Scope;

  constructor(memory: Memory, owner: MemoryOwner) {
    super();
    this.memory = memory;
    this.request = ownerScope(owner);
    const { id, isUser } = ownerId(owner);
    this.scope = { app_id: owner.app_id ?? DEFAULT_SCOPE, project_id: owner.project_id ?? DEFAULT_SCOPE, owner_type: isUser ? 'user' : 'agent', owner_id: id };
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) {
      if ('value' in op) results.push(await this.putItem(op));
      else if ('key' in op) results.push(await this.getItem(op));
      else if ('namespacePrefix' in op) results.push(await this.searchItems(op));
      else results.push(await this.listNamespacesOf(op));
    }
    return results as OperationResults<Op>;
  }

  /** The items of these ids, by id; ids with no item are left out. */
  private peek(ids: string[]): Map<string, Item> {
    const out = new Map<string, Item>();
    for (const record of this.memory.peek(this.scope, ids)) {
      const item = toItem(record as StoredView);
      if (item) out.set(record.id, item);
    }
    return out;
  }

  private async getItem(op: GetOperation): Promise<Item | null> {
    const id = await itemId(op.namespace, op.key);
    const item = this.peek([id]).get(id) ?? null;
    // The id is a hash: the stored namespace and key decide.
    return item && item.key === op.key && JSON.stringify(item.namespace) === JSON.stringify(op.namespace) ? item : null;
  }

  private async putItem(op: PutOperation): Promise<void> {
    const id = await itemId(op.namespace, op.key);
    if (op.value === null) {
      try {
        await this.memory.delete({ ...this.request, memory_id: id });
      } catch (error) {
        if (!isMemoryError(error) || error.code !== 'NOT_FOUND') throw error;
      }
      return;
    }
    await this.memory.upsertKnowledge({
      ...this.request,
      id,
      title: op.key,
      content: JSON.stringify(op.value),
      source: `${SOURCE_PREFIX}${JSON.stringify({ namespace: op.namespace, key: op.key })}`,
    });
  }

  /** Every item of the owner, oldest first. */
  private async allItems(): Promise<Item[]> {
    const items: Item[] = [];
    for (let page = 1; ; page++) {
      const { data } = await this.memory.get({ ...this.request, memory_type: 'knowledge', page, page_size: PAGE, sort_by: 'created_at', sort_order: 'asc' });
      const ids = data.episodes.map((e) => e.id);
      const found = this.peek(ids);
      for (const id of ids) {
        const item = found.get(id);
        if (item) items.push(item);
      }
      if (data.count < PAGE) return items;
    }
  }

  private async searchItems(op: SearchOperation): Promise<SearchItem[]> {
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    const inScope = (item: Item | null): item is Item => item !== null && startsWith(item.namespace, op.namespacePrefix) && passes(item, op.filter);
    if (op.query === undefined || op.query.trim() === '') {
      return (await this.allItems()).filter(inScope).slice(offset, offset + limit);
    }
    const { data } = await this.memory.search({ ...this.request, query: op.query, method: 'hybrid', top_k: 100 });
    const found = data.episodes.filter((e) => e.id.startsWith('lg-'));
    const items = this.peek(found.map((e) => e.id));
    const scored: SearchItem[] = [];
    for (const episode of found) {
      const item = items.get(episode.id) ?? null;
      if (inScope(item)) scored.push({ ...item, score: episode.score });
    }
    return scored.slice(offset, offset + limit);
  }

  private async listNamespacesOf(op: ListNamespacesOperation): Promise<string[][]> {
    const seen = new Map<string, string[]>();
    for (const item of await this.allItems()) {
      if (op.matchConditions && !op.matchConditions.every((c) => matches(item.namespace, c))) continue;
      const namespace = op.maxDepth === undefined ? item.namespace : item.namespace.slice(0, op.maxDepth);
      seen.set(JSON.stringify(namespace), namespace);
    }
    const sorted = [...seen.values()].sort((a, b) => (a.join('\u0000') < b.join('\u0000') ? -1 : a.join('\u0000') > b.join('\u0000') ? 1 : 0));
    return sorted.slice(op.offset, op.offset + op.limit);
  }
}
