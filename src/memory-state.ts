/**
 * The engine's in-memory view of its store: every record grouped into partitions, and the
 * session buffers. It changes only through `apply`, called after the store committed the same
 * batch, so it never shows a write the store does not hold.
 */
import { Partition } from './index/partition.js';
import type { Scope } from './contract/requests.js';
import { bufferKey, isOwnedBy, partitionKey, type BufferedMessage, type MemoryRecord, type ProfileRecord, type StoredItem } from './records.js';
import type { StoreBatch } from './store/port.js';

export class MemoryState {
  readonly records = new Map<string, MemoryRecord>();
  readonly partitions = new Map<string, Partition>();
  readonly buffers = new Map<string, BufferedMessage[]>();
  private readonly messages = new Map<string, BufferedMessage>();
  /** Per session: how many stored episodes cite each message id (so a re-sent message is known). */
  private readonly extracted = new Map<string, Map<string, number>>();

  constructor(items: readonly StoredItem[] = []) {
    this.apply({ put: [...items], delete: [] });
  }

  partition(scope: Scope): Partition | undefined {
    return this.partitions.get(partitionKey(scope));
  }

  buffer(app_id: string, project_id: string, session_id: string): BufferedMessage[] {
    return this.buffers.get(bufferKey(app_id, project_id, session_id)) ?? [];
  }

  profile(scope: Scope): ProfileRecord | undefined {
    const record = this.records.get(profileId(scope));
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

  /** Every item: records, then buffered messages. */
  items(): StoredItem[] {
    return [...this.records.values(), ...this.messages.values()];
  }

  /** A stored item by id (record or buffered message). */
  get(id: string): StoredItem | undefined {
    return this.records.get(id) ?? this.messages.get(id);
  }

  apply(batch: StoreBatch): void {
    for (const id of batch.delete) this.remove(id);
    for (const item of batch.put) this.put(item);
  }

  private put(item: StoredItem): void {
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
    const previous = this.records.get(item.id);
    if (previous && partitionKey(previous) !== partitionKey(item)) this.remove(item.id);
    else if (previous) this.countExtracted(previous, -1); // replaced in place: its citations go with it
    this.records.set(item.id, item);
    this.countExtracted(item, 1);
    const key = partitionKey(item);
    let partition = this.partitions.get(key);
    if (!partition) this.partitions.set(key, (partition = new Partition()));
    partition.put(item);
  }

  private remove(id: string): void {
    const message = this.messages.get(id);
    if (message) {
      this.messages.delete(id);
      const key = bufferKey(message.app_id, message.project_id, message.session_id);
      const list = (this.buffers.get(key) ?? []).filter((m) => m.id !== id);
      if (list.length) this.buffers.set(key, list);
      else this.buffers.delete(key);
      return;
    }
    const record = this.records.get(id);
    if (!record) return;
    this.records.delete(id);
    this.countExtracted(record, -1);
    const key = partitionKey(record);
    const partition = this.partitions.get(key);
    partition?.remove(id);
    if (partition && partition.size === 0) this.partitions.delete(key);
  }
}

/** The one profile id of a user partition (scope ids cannot contain ':' or '/', so this is unambiguous). */
export function profileId(scope: Scope): string {
  return `pf:${scope.app_id}/${scope.project_id}/${scope.owner_id}`;
}
