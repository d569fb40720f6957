/**
 * The engine: one store, one in-memory state derived from it, the models, and the verbs of the
 * memory API. Writes run one at a time and become visible only after the store committed them;
 * searches read the current state. Hosts (HTTP, worker, Durable Object) translate to these verbs
 * and hold no memory logic of their own.
 */
import {
  parseAddRequest, parseDeleteRequest, parseFlushRequest, parseGetRequest, parseSearchRequest,
  parseUpsertCase, parseUpsertKnowledge, parseUpsertProfile, parseUpsertSkill,
  type Scope,
} from './contract/requests.js';
import type {
  AddResponse, DeleteResponse, FlushResponse, GetResponse, SearchResponse, UpsertResponse,
} from './contract/types.js';
import { createError, isMemoryError, validationError, wrapError } from './errors.js';
import { storedMetadata } from './contract/metadata.js';
import { listMemories } from './list.js';
import { MemoryState, profileId } from './memory-state.js';
import { keepSnapshots, readSnapshots } from './index/snapshot-keeper.js';
import { warmUp, type WarmUp } from './index/warm-up.js';
import type { Embedder, Llm, Reranker } from './models/ports.js';
import { createLlmReranker } from './models/llm-reranker.js';
import { fromStored, isMemoryRecord, partitionKey, recordKey, scopedStorageId, sentBy, type AgentCaseRecord, type AgentSkillRecord, type BufferedMessage, type KnowledgeRecord, type MemoryRecord, type ProfileRecord, type RecordView, type StoredItem } from './records.js';
import { rerankTextsOf } from './search/agentic.js';
import { runSearch, type Notice, type SearchTrace } from './search/search.js';
import type { StorageAdapter, StoreBatch } from './store/port.js';
import { createMemoryStore } from './store/memory-store.js';
import { openStore, type EncryptionOptions } from './store/sealed-store.js';
import { segmentMessages } from './write/boundary.js';
import type { Extractor } from './write/extraction.js';
import { embedRecords } from './write/ingest.js';
import { reembedIfModelChanged } from './write/reembed.js';
import { planDeletion, planGraphDeletion } from './forget.js';
import type { GraphView, Neighbourhood } from './graph/partition-graph.js';
import { fromBundle, importClashes, toBundle, type ExportBundle } from './export/bundle.js';
import { toMarkdown, type MarkdownFile } from './export/markdown.js';
import { mergeProfile } from './write/profile-rules.js';
import { createRulesExtractor } from './write/rules-extractor.js';
import { createSegmentWriter } from './write/segment-writer.js';
import { createLlmExtractor } from './write/llm-extractor.js';
import { createPdfjsReader, type PdfTextReader } from './write/documents/index.js';
import { prepareMessages } from './write/prepare-items.js';

import type { Progress } from './progress.js';

export type { Progress } from './progress.js';
export type { RecordView } from './records.js';

export interface MemoryOptions {
  /** Where records live. Default: in memory only (nothing survives `close`). */
  store?: StorageAdapter;
  /** Seal everything the store keeps (AES-256-GCM) under a key or passphrase; see docs/encryption.md. An encrypted store refuses to open without it. */
  encryption?: EncryptionOptions;
  /**
   * The embedding model. Required: use `createDefaultEmbedder()` for the bundled on-device model.
   * A promise of one lets the store's records load (and, with `warmIndexes`, the indexes build)
   * while the model is still loading; the memory opens once both are done.
   */
  embedder: Embedder | Promise<Embedder>;
  /** Optional reranker for agentic round 1 / 2 and hybrid skills. */
  reranker?: Reranker | null;
  /** Optional LLM: agentic sufficiency checks, `enable_llm_rerank`, LLM extraction. */
  llm?: Llm | null;
  /** How segments become memories. Default: the LLM extractor when `llm` is set, else the model-free rules. */
  extractor?: Extractor;
  /**
   * Reads the text of PDFs sent to `add`. Default: pdfjs-dist loaded at run time where it
   * resolves (Node); a bundled browser host passes `createPdfjsReader(loadBrowserPdfjs)`; `null`
   * keeps PDFs by reference only. Where it cannot run (workerd), `add` says so in `notices`.
   */
  pdf?: PdfTextReader | null;
  /**
   * Agentic search without an LLM also asks the question again with the rare words its best facts
   * share (search/expand.ts). Default false: on LongMemEval-S it gains and loses about as many
   * questions as it changes (README, Quality), at up to twice hybrid's time.
   */
  agenticExpansion?: boolean;
  /** The cosine floor used when `top_k` is -1 (default 0.5, EverOS's value). */
  autoRadius?: number;
  /**
   * Build the largest partition's indexes in the background as soon as the records are loaded
   * (while `embedder` may still be loading), so the first search a person types finds them ready
   * (index/warm-up.ts). Default false: indexes are built by the first search of each partition.
   */
  warmIndexes?: boolean;
  /** Called for every degraded path taken (no LLM, extractor fallback, …): nothing degrades silently. */
  onNotice?: (notice: Notice) => void;
  onProgress?: (progress: Progress) => void;
  /** Clock (epoch ms); tests pin it. */
  now?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface MemoryStats {
  records: number;
  partitions: number;
  /** Partitions whose indexes are built (the others build on their first search). */
  indexed_partitions: number;
  buffered_messages: number;
  store: string;
  embedder: { id: string; dim: number };
  reranker: string | null;
  llm: string | null;
  extractor: string;
}

/** The memory API. Every method validates its request and rejects with a `MemoryError`. */
export interface Memory {
  add(request: unknown, options?: CallOptions): Promise<AddResponse>;
  flush(request: unknown, options?: CallOptions): Promise<FlushResponse>;
  search(request: unknown, options?: CallOptions): Promise<SearchResponse>;
  /** `search` plus a trace: recall legs per item, rounds, and notices of degraded paths. */
  searchWithTrace(request: unknown, options?: CallOptions): Promise<{ response: SearchResponse; trace: SearchTrace }>;
  get(request: unknown): Promise<GetResponse>;
  delete(request: unknown): Promise<DeleteResponse>;
  upsertCase(request: unknown, options?: CallOptions): Promise<UpsertResponse>;
  upsertSkill(request: unknown, options?: CallOptions): Promise<UpsertResponse>;
  upsertKnowledge(request: unknown, options?: CallOptions): Promise<UpsertResponse>;
  upsertProfile(request: unknown): Promise<UpsertResponse>;
  /** Everything the memory holds, as a versioned JSON bundle (vectors included). */
  export(): Promise<ExportBundle>;
  /** The memory as Markdown files, one per owner and kind, for a person to read. */
  exportMarkdown(): Promise<MarkdownFile[]>;
  /** Loads a bundle in one atomic write: `merge` (default) upserts by id, `replace` empties the memory first. */
  import(bundle: unknown, options?: ImportOptions): Promise<{ imported: number; reembedded: number; removed: number }>;
  stats(): MemoryStats;
  /** Who holds searchable memories in one app and project, with the sessions they come from (read-only). */
  owners(app_id: string, project_id: string): OwnerSummary[];
  /** Read-only copies of one owner's records by id, vectors left out; ids outside that owner's partition are skipped. */
  peek(scope: Scope, ids: readonly string[]): RecordView[];
  /** One owner's entity graph (a copy): entities with their centrality, relations with the facts they come from. */
  graph(scope: Scope): GraphView;
  /**
   * What the named entities link to in one owner's graph, `hops` relations away (default 1): the
   * related entities' names, the facts the links were read from, and the sessions they were named in.
   * @example memory.neighbours(scope, ['Pixel']) // { matched: ['Pixel'], related: ['Maya'], fact_ids: ['af_…'], session_ids: ['s1'] }
   */
  neighbours(scope: Scope, names: readonly string[], hops?: number): Neighbourhood;
  close(): Promise<void>;
}

/** One owner of an app and project, for hosts that map other services' scopes onto Engram's partitions. */
export interface OwnerSummary {
  owner_type: Scope['owner_type'];
  owner_id: string;
  /** Sessions of the owner's searchable records; `null` stands for records outside any session (knowledge, skills). */
  sessions: (string | null)[];
}

export interface ImportOptions extends CallOptions {
  mode?: 'merge' | 'replace';
}

/** Opens a memory over a store (loading and, if the embedding model changed, re-embedding it). */
export async function createMemory(options: MemoryOptions): Promise<Memory> {
  if (!options?.embedder) throw createError('MODEL_UNAVAILABLE', { message: 'createMemory needs an embedder: pass createDefaultEmbedder() for the bundled model' });
  const embedding = Promise.resolve(options.embedder);
  embedding.catch(() => undefined); // awaited below, once the records are loaded
  const store = await openStore(options.store ?? createMemoryStore(), options.encryption);
  const reranker = options.reranker ?? null;
  const llm = options.llm ?? null;
  const llmReranker = llm ? createLlmReranker(llm) : null;
  const extractor = options.extractor ?? (llm ? createLlmExtractor(llm) : createRulesExtractor());
  const now = options.now ?? (() => Date.now());
  const notify = (notice: Notice) => options.onNotice?.(notice);
  const pdf = options.pdf === undefined ? createPdfjsReader() : options.pdf;

  const [items, stored] = await Promise.all([
    store.loadAll().catch((error: unknown) => {
      throw wrapError(error, 'STORAGE_FAILED', 'cannot load the memory');
    }),
    // Read ahead when the largest partition is warmed at once anyway. Not before the seal check: parsed
    // that early (while the model's bytes still arrive) it held up the model read, which needs the
    // worker's thread between its chunks, and the open ended later (10k: 888 / 1229 / 933 ms
    // against 839 / 1077 / 893 ms for the code before this work, interleaved).
    readSnapshots(store, { parse: options.warmIndexes === true }),
  ]);
  options.onProgress?.({ phase: 'open', loaded: items.length, total: items.length });
  // The state and its indexes are made while the model may still load; re-embedded records (a
  // model change, known only once it loaded) make them again.
  let state = new MemoryState(items);
  // Keyword indexes kept by the store (IndexedDB): restored instead of rebuilt when the items did not change.
  if (store.snapshots) state.offerSnapshots(stored, store.snapshots.generation());
  let warming: WarmUp | null = options.warmIndexes ? warmUp(state.partitions.values()) : null;
  let embedder: Embedder;
  try {
    embedder = await embedding;
    if ((await reembedIfModelChanged(store, items, embedder, options.onProgress)) > 0) {
      warming?.stop();
      state = new MemoryState(items);
      warming = options.warmIndexes ? warmUp(state.partitions.values()) : null;
    }
  } catch (error) {
    warming?.stop();
    throw error;
  }
  const snapshots = store.snapshots
    ? keepSnapshots(state, store.snapshots, stored, { onError: (error) => notify({ code: 'index.snapshot_failed', message: `The search index could not be kept for the next open (${isMemoryError(error) ? error.code : 'error'}); it is rebuilt from the records then.` }) })
    : null;

  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(() => {
      if (closed) throw createError('CLOSED');
      return work();
    });
    queue = run.catch(() => undefined);
    return run;
  };
  const ensureOpen = () => {
    if (closed) throw createError('CLOSED');
  };
  const requestId = () => crypto.randomUUID();
  const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replace(/-/g, '')}`;

  /** Commits a batch in stored form (see `MemoryState.toStored`), then shows it. */
  async function commit(batch: StoreBatch): Promise<void> {
    try {
      await store.commit(batch);
    } catch (error) {
      throw isMemoryError(error) ? error : wrapError(error, 'STORAGE_FAILED', 'the store rejected the write; nothing was written');
    }
    state.apply(batch);
    primeReranker(batch.put);
  }

  /** Lets a reranker prepare for the new records off the write path; a failure only costs speed later. */
  function primeReranker(items: readonly StoredItem[]): void {
    const prime = reranker?.prime?.bind(reranker);
    if (!prime) return;
    // Each partition's texts under its own cache scope, as its searches will ask for them.
    const byScope = new Map<string, string[]>();
    for (const item of items) {
      if (!isMemoryRecord(item)) continue;
      const texts = rerankTextsOf(item);
      if (texts.length === 0) continue;
      const scope = partitionKey(item);
      const list = byScope.get(scope);
      if (list) list.push(...texts);
      else byScope.set(scope, texts);
    }
    for (const [cacheScope, texts] of byScope) {
      prime(texts, { cacheScope }).catch((error: unknown) => {
        notify({ code: 'reranker.prime_failed', message: `The reranker could not prepare new records (${isMemoryError(error) ? error.code : 'error'}); they are prepared at query time instead.` });
      });
    }
  }

  /**
   * Bundle items in stored form, each under one storage id: a record this memory holds keeps its
   * own (an import updates it in place); an id another tenancy's record already takes (a bundle
   * written before ids were scoped, or merged from elsewhere) becomes this record's scoped id.
   */
  function storageIdsForImport(items: readonly StoredItem[]): StoredItem[] {
    const taken = new Map<string, string>();
    return items.map((raw) => {
      if (!isMemoryRecord(raw)) return raw;
      const record = fromStored(raw) as MemoryRecord;
      const key = recordKey(record);
      let id = state.storageId(record);
      const holder = taken.get(id) ?? state.keyOfStorageId(id);
      if (holder !== undefined && holder !== key) id = scopedStorageId(record);
      taken.set(id, key);
      return { ...record, id };
    });
  }

  const recordsForSegments = createSegmentWriter({ state, embedder, extractor, notify, newId, now });

  function unprocessedFor(scope: Scope, sessionId: string | null): BufferedMessage[] {
    if (!sessionId) return [];
    const buffered = state.buffer(scope.app_id, scope.project_id, sessionId);
    // A buffer has no owner yet: it is shown only to someone taking part in that conversation, as
    // the same owner (type and id): user X is not agent X.
    return buffered.some((m) => sentBy(m, scope)) ? buffered : [];
  }

  function ownedRecord(scope: Scope, id: string): MemoryRecord | undefined {
    const record = state.record(scope.app_id, scope.project_id, id);
    return record && partitionKey(record) === partitionKey(scope) ? record : undefined;
  }

  /** Writes one record; `callerId` says its id is the caller's (stored scoped to its app and project). */
  async function upsert(record: MemoryRecord, callerId: boolean, signal?: AbortSignal): Promise<UpsertResponse> {
    // Ids are the caller's within one app and project: another tenancy's id neither blocks nor shows.
    const existing = state.record(record.app_id, record.project_id, record.id);
    // An id names one memory there: another owner's, or one of another kind (a case is no skill), is refused.
    if (existing && (partitionKey(existing) !== partitionKey(record) || existing.kind !== record.kind)) {
      throw createError('VALIDATION_FAILED', {
        message: 'Invalid request (body.id: id is already used by another memory)',
        details: [{ loc: ['body', 'id'], msg: 'Value error, this id is already used by another memory', type: 'value_error', input: record.id }],
      });
    }
    if (existing) record.created_at = existing.created_at;
    await embedRecords([record], { embedder, ...(signal ? { signal } : {}) });
    await commit({ put: [state.toStored(record, callerId)], delete: [] });
    return { request_id: requestId(), data: { id: record.id, status: existing ? 'updated' : 'created' } };
  }

  function baseRecord(scope: Scope, id: string | undefined, prefix: string, timestamp: number | undefined) {
    const t = now();
    return {
      ...scope, id: id ?? newId(prefix), session_id: null as string | null, timestamp: timestamp ?? t, created_at: t, updated_at: t,
      sender_ids: [scope.owner_id], source_message_ids: [] as string[], parent_type: null, parent_id: null, vector: null, vector_model: null,
    };
  }

  /** The write-time metadata an upsert keeps (none when it gave none). */
  const metadataOf = (value: { metadata?: Record<string, string> | undefined }) => {
    const metadata = storedMetadata(value.metadata);
    return metadata ? { metadata } : {};
  };

  const memory: Memory = {
    async add(request, callOptions = {}) {
      const parsed = parseAddRequest(request);
      ensureOpen();
      // Items are hashed and documents read before the write is queued: a long PDF holds no other write.
      const { messages: prepared, notices } = await prepareMessages(parsed.messages, { pdf, llm }, callOptions.signal);
      const req = { ...parsed, messages: prepared };
      for (const n of notices) notify({ code: n.code, message: n.message });
      return exclusive(async () => {
        const existing = state.buffer(req.app_id, req.project_id, req.session_id);
        const seen = new Set(existing.map((m) => m.message_id).filter((id): id is string => id !== null));
        let seq = existing.reduce((max, m) => Math.max(max, m.seq), -1) + 1;
        const incoming: BufferedMessage[] = [];
        for (const m of req.messages) {
          // A message re-sent with the same id (a retried request) is taken once, buffered or extracted.
          if (m.id !== undefined && (seen.has(m.id) || state.wasExtracted(req.app_id, req.project_id, req.session_id, m.id))) continue;
          if (m.id !== undefined) seen.add(m.id);
          incoming.push({
            kind: 'message', id: newId('msg'), app_id: req.app_id, project_id: req.project_id, session_id: req.session_id, seq: seq++,
            sender_id: m.sender_id, sender_name: m.sender_name, role: m.role, timestamp: m.timestamp, content: m.content,
            tool_calls: m.tool_calls, tool_call_id: m.tool_call_id, message_id: m.id ?? null,
            ...(req.metadata ? { metadata: req.metadata } : {}), ...(m.items ? { items: m.items } : {}),
          });
        }
        const { closed: segments, open } = segmentMessages(existing, incoming);
        const records = await recordsForSegments(segments, callOptions.signal);
        const stored = new Set(existing.map((m) => m.id));
        await commit({
          put: [...records.map((r) => state.toStored(r)), ...open.filter((m) => !stored.has(m.id))],
          delete: segments.flat().filter((m) => stored.has(m.id)).map((m) => m.id),
        });
        return {
          request_id: requestId(),
          data: { message_count: incoming.length, status: segments.length ? 'extracted' : 'accumulated' },
          ...(notices.length ? { notices } : {}),
        };
      });
    },

    async flush(request, callOptions = {}) {
      const req = parseFlushRequest(request);
      return exclusive(async () => {
        const buffered = state.buffer(req.app_id, req.project_id, req.session_id);
        if (buffered.length === 0) return { request_id: requestId(), data: { status: 'no_extraction' as const } };
        const records = await recordsForSegments([buffered], callOptions.signal);
        await commit({ put: records.map((r) => state.toStored(r)), delete: buffered.map((m) => m.id) });
        return { request_id: requestId(), data: { status: 'extracted' as const } };
      });
    },

    async search(request, callOptions) {
      return (await memory.searchWithTrace(request, callOptions)).response;
    },

    async searchWithTrace(request, callOptions = {}) {
      const req = parseSearchRequest(request);
      ensureOpen();
      const { data, trace } = await runSearch(req, {
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        partition: state.partition(req.scope),
        profile: state.profile(req.scope),
        unprocessed: unprocessedFor(req.scope, req.filters?.topLevelSessionId ?? null),
        embedder,
        reranker,
        llm,
        llmReranker,
        ...(options.autoRadius !== undefined ? { autoRadius: options.autoRadius } : {}),
        agenticExpansion: options.agenticExpansion === true,
        now,
      }).catch((error: unknown) => {
        throw isMemoryError(error) ? error : wrapError(error, 'MODEL_FAILED', 'search failed');
      });
      for (const n of trace.notices) notify(n);
      return { response: { request_id: requestId(), data }, trace };
    },

    async get(request) {
      const req = parseGetRequest(request);
      ensureOpen();
      const data = listMemories(req, state.partition(req.scope), state.profile(req.scope), unprocessedFor(req.scope, req.filters?.topLevelSessionId ?? null));
      return { request_id: requestId(), data };
    },

    async delete(request) {
      const req = parseDeleteRequest(request);
      return exclusive(async () => {
        const doomed = planDeletion(state, req);
        // Forgetting is physical: the store must not keep copies of what was deleted, graph included.
        await commit({ put: [], delete: [...doomed, ...planGraphDeletion(state, req)], purge: true });
        return { request_id: requestId(), data: { deleted_count: doomed.size } };
      });
    },

    async upsertCase(request, callOptions = {}) {
      const { value, scope } = parseUpsertCase(request);
      return exclusive(() => {
        const record: AgentCaseRecord = {
          ...baseRecord(scope, value.id, 'ac', value.timestamp), kind: 'agent_case', session_id: value.session_id,
          task_intent: value.task_intent, approach: value.approach, quality_score: value.quality_score, key_insight: value.key_insight,
          ...metadataOf(value),
        };
        return upsert(record, value.id !== undefined, callOptions.signal);
      });
    },

    async upsertSkill(request, callOptions = {}) {
      const { value, scope } = parseUpsertSkill(request);
      return exclusive(() => {
        const record: AgentSkillRecord = {
          ...baseRecord(scope, value.id, 'sk', undefined), kind: 'agent_skill', name: value.name, description: value.description,
          content: value.content, confidence: value.confidence, maturity_score: value.maturity_score, source_case_ids: value.source_case_ids,
          ...metadataOf(value),
        };
        return upsert(record, value.id !== undefined, callOptions.signal);
      });
    },

    async upsertKnowledge(request, callOptions = {}) {
      const { value, scope } = parseUpsertKnowledge(request);
      return exclusive(() => {
        const record: KnowledgeRecord = {
          ...baseRecord(scope, value.id, 'kn', value.timestamp), kind: 'knowledge', title: value.title, content: value.content, source: value.source,
          ...metadataOf(value),
        };
        return upsert(record, value.id !== undefined, callOptions.signal);
      });
    },

    async upsertProfile(request) {
      const { value, scope } = parseUpsertProfile(request);
      return exclusive(async () => {
        const current = state.profile(scope);
        const record: ProfileRecord = {
          ...baseRecord(scope, profileId(scope), 'pf', undefined), kind: 'profile',
          created_at: current?.created_at ?? now(),
          profile_data: value.mode === 'replace' ? mergeProfile({}, value.profile_data) : mergeProfile(current?.profile_data ?? {}, value.profile_data),
        };
        await commit({ put: [state.toStored(record)], delete: [] });
        return { request_id: requestId(), data: { id: record.id, status: current ? ('updated' as const) : ('created' as const) } };
      });
    },

    async export() {
      ensureOpen();
      return toBundle(state.storedItems(), { id: embedder.id, dim: embedder.dim }, now());
    },

    async exportMarkdown() {
      ensureOpen();
      return toMarkdown(state.items());
    },

    async import(bundle, importOptions = {}) {
      const { items: bundled } = fromBundle(bundle);
      return exclusive(async () => {
        const clashes = importOptions.mode === 'replace' ? [] : importClashes(bundled, (r) => state.record(r.app_id, r.project_id, r.id));
        if (clashes.length) throw validationError(clashes);
        const items = storageIdsForImport(bundled);
        // Vectors from another model mean nothing here: those records are embedded afresh.
        const stale = items.filter((i): i is MemoryRecord => isMemoryRecord(i) && i.kind !== 'profile' && (i.vector_model !== embedder.id || i.vector?.length !== embedder.dim));
        await embedRecords(stale, { embedder, ...(importOptions.signal ? { signal: importOptions.signal } : {}) });
        const incoming = new Set(items.map((i) => i.id));
        const removed = importOptions.mode === 'replace' ? state.storedItems().map((i) => i.id).filter((id) => !incoming.has(id)) : [];
        await commit({ put: items, delete: removed, ...(removed.length ? { purge: true } : {}) });
        return { imported: items.length, reembedded: stale.length, removed: removed.length };
      });
    },

    stats() {
      let buffered = 0;
      for (const list of state.buffers.values()) buffered += list.length;
      return {
        records: state.records.size,
        partitions: state.partitions.size,
        indexed_partitions: [...state.partitions.values()].filter((p) => p.indexed).length,
        buffered_messages: buffered,
        store: store.kind,
        embedder: { id: embedder.id, dim: embedder.dim },
        reranker: reranker?.id ?? null,
        llm: llm?.id ?? null,
        extractor: extractor.id,
      };
    },

    owners(app_id, project_id) {
      ensureOpen();
      return state.owners(app_id, project_id);
    },

    peek(scope, ids) {
      ensureOpen();
      const out: RecordView[] = [];
      for (const id of ids) {
        const record = ownedRecord(scope, id);
        if (!record) continue;
        const { vector: _vector, ...rest } = record;
        out.push(structuredClone(rest) as RecordView);
      }
      return out;
    },

    graph(scope) {
      ensureOpen();
      return state.graph(scope)?.view() ?? { entities: [], relations: [] };
    },

    neighbours(scope, names, hops = 1) {
      ensureOpen();
      return state.graph(scope)?.neighbours(names, hops) ?? { matched: [], related: [], fact_ids: [], session_ids: [] };
    },

    async close() {
      if (closed) return;
      await queue;
      closed = true;
      warming?.stop();
      await snapshots?.close();
      await store.close();
    },
  };
  return memory;
}
