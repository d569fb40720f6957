/**
 * The memory model: what the store keeps. Every memory record lives in exactly one partition
 * (app, project, owner); buffered messages live per (app, project, session) until boundary
 * detection turns them into records. The store is the source of truth; indexes derive from it.
 */
import type { ContentItem, MessageRole } from './contract/types.js';
import type { OwnerType, Scope } from './contract/requests.js';
import type { Metadata } from './contract/metadata.js';
import type { ItemRef, StoredItemRef } from './write/content-items.js';

export type RecordKind = 'episode' | 'atomic_fact' | 'foresight' | 'profile' | 'agent_case' | 'agent_skill' | 'knowledge';

interface RecordBase extends Scope {
  id: string;
  kind: RecordKind;
  session_id: string | null;
  /** When what the record describes happened (epoch ms). */
  timestamp: number;
  /** When the record was written (epoch ms). */
  created_at: number;
  updated_at: number;
  /**
   * Everyone whose words the record holds (provenance, for the `sender_id` filter and display).
   * It confers no ownership: a record belongs to its partition alone, and forgetting someone
   * removes their partition, never another owner's record that names them.
   */
  sender_ids: string[];
  /** Ids of the messages the record was extracted from (provenance). */
  source_message_ids: string[];
  parent_type: string | null;
  parent_id: string | null;
  /** The embedding of `searchText(record)`, made by the model named `vector_model`. */
  vector: Float32Array | null;
  vector_model: string | null;
  /** The write-time metadata of the write the record came from (absent: none). */
  metadata?: Metadata;
  /** References to the images, audio and documents the record's words came from or were said with (never their bytes). */
  items?: ItemRef[];
}

export interface EpisodeRecord extends RecordBase {
  kind: 'episode';
  subject: string;
  summary: string;
  episode: string;
  /** The inline bytes (base64) of the segment's items, by SHA-256: kept once here, referenced by `items` of every record. */
  media?: Record<string, string>;
}

export interface AtomicFactRecord extends RecordBase {
  kind: 'atomic_fact';
  content: string;
  /** The words as spoken, which `content` restates. */
  evidence: string;
  /**
   * True for a verbatim passage of the conversation ("Mel said: …") kept so that search sees
   * everything said, not a claim the extractor made: searched and nested like a fact, but not
   * listed among the owner's facts. Absent on facts.
   */
  passage?: true;
}

export interface ForesightRecord extends RecordBase {
  kind: 'foresight';
  content: string;
  evidence: string;
  /** When the plan is due, when the text names a date (epoch ms). */
  due_at: number | null;
}

export interface ProfileRecord extends RecordBase {
  kind: 'profile';
  profile_data: Record<string, unknown>;
}

export interface AgentCaseRecord extends RecordBase {
  kind: 'agent_case';
  task_intent: string;
  approach: string;
  quality_score: number;
  key_insight: string | null;
}

export interface AgentSkillRecord extends RecordBase {
  kind: 'agent_skill';
  name: string;
  description: string;
  content: string;
  confidence: number;
  maturity_score: number;
  source_case_ids: string[];
}

export interface KnowledgeRecord extends RecordBase {
  kind: 'knowledge';
  title: string;
  content: string;
  source: string | null;
}

export type MemoryRecord =
  | EpisodeRecord
  | AtomicFactRecord
  | ForesightRecord
  | ProfileRecord
  | AgentCaseRecord
  | AgentSkillRecord
  | KnowledgeRecord;

/** A message waiting in a session's buffer for boundary detection. */
export interface BufferedMessage {
  kind: 'message';
  id: string;
  app_id: string;
  project_id: string;
  session_id: string;
  /** Order of arrival within the session, to keep a stable order for equal timestamps. */
  seq: number;
  sender_id: string;
  sender_name: string | null;
  role: MessageRole;
  timestamp: number;
  content: string | ContentItem[];
  tool_calls: Record<string, unknown>[] | null;
  tool_call_id: string | null;
  /** The id the caller gave the message, kept as provenance; null when none was given. */
  message_id: string | null;
  /** The write-time metadata of the add that brought it (absent: none). */
  metadata?: Metadata;
  /** One reference per image, audio or document item of `content` (hash, size, extracted sections). */
  items?: StoredItemRef[];
}

/** The id a message is known by outside: the caller's own id when it gave one (provenance). */
export function provenanceId(message: BufferedMessage): string {
  return message.message_id ?? message.id;
}

/**
 * A node of an owner's entity graph (see graph/partition-graph.ts): one per canonical entity in
 * the partition, merged across segments (aliases and sessions accumulate). Not a memory: it is
 * neither searched nor listed, and has no vector.
 */
export interface GraphEntityItem extends Scope {
  kind: 'graph_entity';
  /** `ge:<app>/<project>/<owner type>/<owner id>/<entity id>`: the same entity is one item per partition. */
  id: string;
  /** Stable across segments: `e:pixel`, or `user:<id>` for a user who spoke. */
  entity_id: string;
  name: string;
  type: string;
  aliases: string[];
  /** Sessions the entity was named in (forgetting the last one forgets the entity). */
  session_ids: string[];
  /** When it was first named (epoch ms). */
  timestamp: number;
  updated_at: number;
  vector: null;
}

/** An edge of an owner's entity graph: what was said to link two entities, and while it held. */
export interface GraphRelationItem extends Scope {
  kind: 'graph_relation';
  id: string;
  /** Entity ids (`GraphEntityItem.entity_id`) of the same partition. */
  subject: string;
  predicate: string;
  object: string;
  /** The atomic fact or foresight record it was read from, or null (a profile statement no fact holds). */
  fact_id: string | null;
  session_id: string | null;
  source_message_ids: string[];
  /** When it became true (epoch ms). */
  valid_from: number;
  /** When a later statement replaced it ("I moved to Porto" after "I live in Lisbon"), or null while it holds. */
  superseded_at: number | null;
  timestamp: number;
  updated_at: number;
  vector: null;
}

export type GraphItem = GraphEntityItem | GraphRelationItem;

/** Anything the store holds. */
export type StoredItem = MemoryRecord | BufferedMessage | GraphItem;

/** Whether a stored item is part of an entity graph (not a memory record, not a message). */
export function isGraphItem(item: StoredItem): item is GraphItem {
  return item.kind === 'graph_entity' || item.kind === 'graph_relation';
}

/** Whether a stored item is a memory record (searched, listed, embedded). */
export function isMemoryRecord(item: StoredItem): item is MemoryRecord {
  return item.kind !== 'message' && !isGraphItem(item);
}

/**
 * How records of exactly equal score are ordered, so that the same memory answers the same way
 * on every run and through every adapter (two records score exactly alike when they say the same
 * words; only a tie at the edge of a leg's candidate pool is still cut by index order). Record
 * ids are random per write, and the index's insertion order follows the store's load order, so
 * neither can decide; what the records say and when can: the newer first (the current word on a
 * thing said twice), then by session, source message, kind and text, and the id only between
 * records that agree on all of these.
 */
export function tieOrder(a: RecordView, b: RecordView): number {
  if (a.timestamp !== b.timestamp) return b.timestamp - a.timestamp;
  const byKey = compareText(a.session_id ?? '', b.session_id ?? '') || compareText(a.source_message_ids[0] ?? '', b.source_message_ids[0] ?? '') || compareText(a.kind, b.kind);
  return byKey || compareText(searchText(a), searchText(b)) || compareText(a.id, b.id);
}

/** Code-unit order (locale-free, the same in every runtime). */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A stored record without its vector, as `Memory.peek` returns it. */
export type RecordView = MemoryRecord extends infer R ? (R extends MemoryRecord ? Omit<R, 'vector'> : never) : never;

/** The text a record is searched by (keyword and vector legs). */
export function searchText(record: RecordView): string {
  switch (record.kind) {
    case 'episode':
      return `${record.subject}\n${record.summary}\n${record.episode}`;
    case 'atomic_fact':
    case 'foresight':
      return record.content;
    case 'profile':
      return JSON.stringify(record.profile_data);
    case 'agent_case':
      return `${record.task_intent}\n${record.approach}${record.key_insight ? `\n${record.key_insight}` : ''}`;
    case 'agent_skill':
      return `${record.name}\n${record.description}\n${record.content}`;
    case 'knowledge':
      return `${record.title}\n${record.content}`;
  }
}

/**
 * The text a record's vector is made from. Facts are embedded from the words as spoken: the
 * attribution every fact shares ("Alice said", "Alice's") carries no meaning and, in a
 * bag-of-words model, pulls all of one speaker's facts towards each other.
 */
export function embeddingText(record: MemoryRecord): string {
  if ((record.kind === 'atomic_fact' || record.kind === 'foresight') && record.evidence) return record.evidence;
  return searchText(record);
}

/**
 * The owner type of a buffered message's sender, from its role: `user` speaks as a user,
 * `assistant` as an agent. A `tool` message carries the result of a call the assistant made, so it
 * belongs to the agent's turn: its sender is an agent (an agent that sends tool results under its
 * own id owns them; a tool named like a user never becomes that user).
 */
export function senderType(role: MessageRole): OwnerType {
  return role === 'user' ? 'user' : 'agent';
}

/** Whether a buffered message was sent by exactly this owner (type and id). */
export function sentBy(message: BufferedMessage, owner: Pick<Scope, 'owner_type' | 'owner_id'>): boolean {
  return message.sender_id === owner.owner_id && senderType(message.role) === owner.owner_type;
}

/**
 * The key a record is known by inside the engine. Record ids are the caller's and unique only
 * within one app and project: the same id in another tenancy is another record.
 */
export function recordKey(record: Pick<Scope, 'app_id' | 'project_id'> & { id: string }): string {
  return `${record.app_id}\u0000${record.project_id}\u0000${record.id}`;
}

/**
 * The id a record with a caller-chosen id is stored under: prefixed with its app and project
 * (which cannot contain '/', nor can a caller's record id), so stores that key items by id keep
 * the same caller id of two tenancies as two items. Engine-made ids are random and stay as they are.
 */
export function scopedStorageId(record: Pick<Scope, 'app_id' | 'project_id'> & { id: string }): string {
  return `${record.app_id}/${record.project_id}/${record.id}`;
}

/**
 * A stored item as the engine sees it: a scoped storage id becomes the caller's id again.
 * Anything else (engine ids, profile ids, records written before ids were scoped) reads as is.
 */
export function fromStored(item: StoredItem): StoredItem {
  if (!isMemoryRecord(item)) return item;
  const prefix = `${item.app_id}/${item.project_id}/`;
  return item.id.length > prefix.length && item.id.startsWith(prefix) ? { ...item, id: item.id.slice(prefix.length) } : item;
}

/** The key of a record's partition. */
export function partitionKey(scope: Scope): string {
  return `${scope.app_id}\u0000${scope.project_id}\u0000${scope.owner_type}\u0000${scope.owner_id}`;
}

/** The key of a session buffer. */
export function bufferKey(app_id: string, project_id: string, session_id: string): string {
  return `${app_id}\u0000${project_id}\u0000${session_id}`;
}

/** Whether a record belongs to the owner type (guards against a mis-typed scope). */
export function isOwnedBy(record: MemoryRecord, scope: Scope): boolean {
  return record.app_id === scope.app_id && record.project_id === scope.project_id && record.owner_type === scope.owner_type && record.owner_id === scope.owner_id;
}

export type { OwnerType, Scope };
