/**
 * The engine's in-memory view of its store: every record grouped into partitions, and the
 * session buffers. It changes only through `apply`, called after the store committed the same
 * batch, so it never shows a write the store does not hold.
 *
 * Records carry the caller's id here; the store may keep one under a scoped id (see
 * `scopedStorageId`). This class is the one place that knows both, so batches it takes and
 * gives (`apply`, `toStored`, `storedItems`) are in stored form and everything else reads records
 * by (app, project, id).
 */
import { Partition } from './index/partition.js';
import type { ParsedKeywordSnapshot } from './index/snapshot.js';
import type { Scope } from './contract/requests.js';
import { PartitionGraph } from './graph/partition-graph.js';
import { bufferKey, fromStored, isGraphItem, isOwnedBy, partitionKey, recordKey, scopedStorageId, type BufferedMessage, type GraphItem, type MemoryRecord, type ProfileRecord, type StoredItem } from './records.js';
import type { StoreBatch } from './store/port.js';

export class MemoryState {
  /** Every record, by `recordKey` (app, project, the caller's id). */
  readonly records = new Map<string, MemoryRecord>();
  readonly partitions = new Map<string, Partition>();
  readonly buffers = new Map<string, BufferedMessage[]>();
  /** Each partition's entity graph, by partition key (graph items are no records: never searched or listed). */
  readonly graphs = new Map<string, PartitionGraph>();
  private readonly messages = new Map<string, BufferedMessage>();
  /** Graph items by their storage id (which is their only id). */
  private readonly graphItems = new Map<string, GraphItem>();
  /** Record key → the id the store keeps the record under, and back. */
  private readonly storageIds = new Map<string, string>();
  private readonly keysByStorageId = new Map<string, string>();
  /** Per session: how many stored episodes cite each message id (so a re-sent message is known). */
  private readonly extracted = new Map<string, Map<string, number>>();
  /** Called after a batch is applied and when a partition's indexes were built from its records. */
  onChange: (() => void) | null = null;

  constructor(items: readonly StoredItem[] = []) {
    this.apply({ put: [...items], delete: [] });
  }

  /** The record a caller's id names in one app and project. */
  record(app_id: string, project_id: string, id: string): MemoryRecord | undefined {
    return this.records.get(recordKey({ app_id, project_id, id }));
  }

  /** The id the store keeps an item under (a record not stored yet: its own id). */
  storageId(item: StoredItem): string {
    return item.kind === 'message' || isGraphItem(item) ? item.id : (this.storageIds.get(recordKey(item)) ?? item.id);
  }

  /** The record key a storage id belongs to, if a record is stored under it. */
  keyOfStorageId(id: string): string | undefined {
    return this.keysByStorageId.get(id);
  }

  /**
   * An item in stored form: a known record keeps the id it is stored under; a new one with a
   * caller-chosen id (`scoped`) gets its tenancy's scoped id, any other keeps its own.
   */
  toStored(item: StoredItem, scoped = false): StoredItem {
    if (item.kind === 'message' || isGraphItem(item)) return item;
    const id = this.storageIds.get(recordKey(item)) ?? (scoped ? scopedStorageId(item) : item.id);
    return id === item.id ? item : { ...item, id };
  }

  /** Every item in stored form (records, then buffered messages), as the store holds them. */
  storedItems(): StoredItem[] {
    return this.items().map((i) => this.toStored(i));
  }

  partition(scope: Scope): Partition | undefined {
    return this.partitions.get(partitionKey(scope));
  }

  graph(scope: Scope): PartitionGraph | undefined {
    return this.graphs.get(partitionKey(scope));
  }

  buffer(app_id: string, project_id: string, session_id: string): BufferedMessage[] {
    return this.buffers.get(bufferKey(app_id, project_id, session_id)) ?? [];
  }

  profile(scope: Scope): ProfileRecord | undefined {
    const record = this.record(scope.app_id, scope.project_id, profileId(scope));
    // The id names no owner type: a user's profile must never answer for an agent of the same id.
    return record?.kind === 'profile' && isOwnedBy(record, scope) ? record : undefined;
  }

  /** Whether a message id of this session was already turned into memories (and not deleted since). */
  wasExtracted(app_id: string, project_id: string, session_id: string, messageId: string): boolean {
    return (this.extracted.get(bufferKey(app_id, project_id, session_id))?.get(messageId) ?? 0) > 0;
  }

  private countExtracted(record: MemoryRecord, delta: 1 | -1): void {
    if (record.kind !== 'episode' || record.session_id === null) return;
    const key = bufferKey(record.app_id, record.project_id, record.session_id);
    let counts = this.extracted.get(key);
    if (!counts) this.extracted.set(key, (counts = new Map()));
    for (const id of record.source_message_ids) {
      const next = (counts.get(id) ?? 0) + delta;
      if (next > 0) counts.set(id, next);
      else counts.delete(id);
    }
    if (counts.size === 0) this.extracted.delete(key);
  }

  /** Who holds searchable records in one app and project, with the sessions they come from. */
  owners(app_id: string, project_id: string): { owner_type: MemoryRecord['owner_type']; owner_id: string; sessions: (string | null)[] }[] {
    const out: { owner_type: MemoryRecord['owner_type']; owner_id: string; sessions: (string | null)[] }[] = [];
    for (const partition of this.partitions.values()) {
      // Every record of a partition shares its app, project and owner: the first one speaks for all.
      const owner = partition.records.values().next().value;
      if (!owner || owner.app_id !== app_id || owner.project_id !== project_id) continue;
      const sessions = new Set<string | null>();
      // A profile is fetched, never ranked: it gives its owner nothing to search.
      for (const r of partition.records.values()) if (r.kind !== 'profile') sessions.add(r.session_id);
      if (sessions.size) out.push({ owner_type: owner.owner_type, owner_id: owner.owner_id, sessions: [...sessions] });
    }
    return out.sort((a, b) => (a.owner_type + a.owner_id < b.owner_type + b.owner_id ? -1 : 1));
  }

  /** Every item as the engine sees it (records under the caller's ids, then buffered messages). */
  items(): StoredItem[] {
    return [...this.records.values(), ...this.graphItems.values(), ...this.messages.values()];
  }

  /** Applies a batch in stored form (storage ids), as the store just committed it. */
  apply(batch: StoreBatch): void {
    for (const id of batch.delete) this.remove(id);
    for (const item of batch.put) this.put(item);
    if (batch.put.length || batch.delete.length) this.onChange?.();
  }

  /**
   * Offers stored keyword snapshots to their partitions: only those stamped `generation`, the
   * generation of the items this state was loaded from (any other describes other items). Returns
   * how many were offered; each is still checked when its partition is first searched.
   */
  offerSnapshots(stored: ReadonlyMap<string, { generation: number; bytes: Uint8Array; parsed?: ParsedKeywordSnapshot }>, generation: number): number {
    let offered = 0;
    for (const [key, snapshot] of stored) {
      const partition = this.partitions.get(key);
      if (!partition || snapshot.generation !== generation) continue;
      partition.offerSnapshot(snapshot.bytes, generation, snapshot.parsed);
      offered++;
    }
    return offered;
  }

  /** Each partition's keyword snapshot for the items at `generation` (what this state holds now), by partition key. */
  snapshots(generation: number): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    for (const [key, partition] of this.partitions) {
      const bytes = partition.snapshotAt(generation);
      if (bytes) out.set(key, bytes);
    }
    return out;
  }

  private put(item: StoredItem): void {
    if (isGraphItem(item)) {
      this.remove(item.id);
      this.graphItems.set(item.id, item);
      const pkey = partitionKey(item);
      let graph = this.graphs.get(pkey);
      if (!graph) this.graphs.set(pkey, (graph = new PartitionGraph()));
      graph.put(item);
      return;
    }
    if (item.kind === 'message') {
      this.remove(item.id);
      this.messages.set(item.id, item);
      const key = bufferKey(item.app_id, item.project_id, item.session_id);
      const list = this.buffers.get(key) ?? [];
      // Messages mostly arrive in order: walk back from the end instead of re-sorting the buffer
      // for every message (a 500-message add would sort it 500 times).
      let at = list.length;
      while (at > 0 && (list[at - 1]!.timestamp > item.timestamp || (list[at - 1]!.timestamp === item.timestamp && list[at - 1]!.seq > item.seq))) at--;
      list.splice(at, 0, item);
      this.buffers.set(key, list);
      return;
    }
    const storageId = item.id;
    const record = fromStored(item) as MemoryRecord;
    const key = recordKey(record);
    const previous = this.records.get(key);
    if (previous && partitionKey(previous) !== partitionKey(record)) this.remove(this.storageIds.get(key) ?? storageId);
    else if (previous) this.countExtracted(previous, -1); // replaced in place: its citations go with it
    // Another storage id of the same record (never written by the engine) is shadowed by this one.
    const shadowed = this.storageIds.get(key);
    if (shadowed !== undefined && shadowed !== storageId) this.keysByStorageId.delete(shadowed);
    this.records.set(key, record);
    this.storageIds.set(key, storageId);
    this.keysByStorageId.set(storageId, key);
    this.countExtracted(record, 1);
    const pkey = partitionKey(record);
    let partition = this.partitions.get(pkey);
    if (!partition) this.partitions.set(pkey, (partition = new Partition(() => this.onChange?.())));
    partition.put(record);
  }

  private remove(id: string): void {
    const graphItem = this.graphItems.get(id);
    if (graphItem) {
      this.graphItems.delete(id);
      const pkey = partitionKey(graphItem);
      const graph = this.graphs.get(pkey);
      graph?.remove(graphItem);
      if (graph && graph.size === 0) this.graphs.delete(pkey);
      return;
    }
    const message = this.messages.get(id);
    if (message) {
      this.messages.delete(id);
      const key = bufferKey(message.app_id, message.project_id, message.session_id);
      const list = (this.buffers.get(key) ?? []).filter((m) => m.id !== id);
      if (list.length) this.buffers.set(key, list);
      else this.buffers.delete(key);
      return;
    }
    const key = this.keysByStorageId.get(id);
    const record = key === undefined ? undefined : this.records.get(key);
    if (key === undefined || !record) return;
    this.records.delete(key);
    this.storageIds.delete(key);
    this.keysByStorageId.delete(id);
    this.countExtracted(record, -1);
    const pkey = partitionKey(record);
    const partition = this.partitions.get(pkey);
    partition?.remove(record.id);
    if (partition && partition.size === 0) this.partitions.delete(pkey);
  }
}

/** The one profile id of a user partition (scope ids cannot contain ':' or '/', so this is unambiguous). */
export function profileId(scope: Scope): string {
  return `pf:${scope.app_id}/${scope.project_id}/${scope.owner_id}`;
}
