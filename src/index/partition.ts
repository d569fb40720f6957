/**
 * One memory partition (app, project, owner): its records and, built on first use, its keyword
 * and vector indexes. Building lazily means opening a memory with many owners costs nothing
 * until one of them is searched. When the store kept a snapshot of the keyword index made from
 * exactly these records (`offerSnapshot`), the first use restores it instead of tokenising and
 * inserting every record; a snapshot that fails any check is dropped and the index is built from
 * the records, which stay the source of truth.
 */
import type { AtomicFactRecord, ForesightRecord, MemoryRecord, RecordKind } from '../records.js';
import { searchText, tieOrder } from '../records.js';
import { KeywordIndex } from './keyword-index.js';
import { restamp } from './snapshot-codec.js';
import { bindKeywordSnapshot, encodeKeywordSnapshot, parseKeywordSnapshot, type ParsedKeywordSnapshot } from './snapshot.js';
import { VectorIndex } from './vector-index.js';

/** Kinds that take part in search (profiles are fetched, not ranked). */
type ChildRecord = AtomicFactRecord | ForesightRecord;

/** A unit's children (see `Partition.childRows`): records, and per record its vector row and keyword internal id (−1: none). */
export interface ChildRows {
  readonly records: readonly ChildRecord[];
  readonly slots: Int32Array;
  readonly keywordIds: Int32Array;
  /** Whether two of the records have the same text (`withoutTwins` has something to fold). */
  readonly repeatsText: boolean;
}

const SEARCHABLE: ReadonlySet<RecordKind> = new Set(['episode', 'atomic_fact', 'foresight', 'agent_case', 'agent_skill', 'knowledge']);

export class Partition {
  readonly records = new Map<string, MemoryRecord>();
  /** Episode id → ids of its atomic facts and foresight. */
  readonly children = new Map<string, Set<string>>();
  private keyword: KeywordIndex | null = null;
  private vector: VectorIndex | null = null;
  /** A stored keyword snapshot made at `generation` (maybe parsed already), not used yet; dropped as soon as a record changes. */
  private snapshot: { bytes: Uint8Array; generation: number; parsed: ParsedKeywordSnapshot | undefined } | null = null;
  /** Where the indexes came from (null: not built yet). */
  built: 'snapshot' | 'records' | null = null;
  /** Per unit, its children as rows of the indexes (`childRows`); emptied by every write. */
  private childRowsCache = new Map<string, ChildRows>();

  /** `changed` is called when the indexes were built from the records (so a snapshot is worth keeping). */
  constructor(private readonly changed?: () => void) {}

  get size(): number {
    return this.records.size;
  }

  put(record: MemoryRecord): void {
    const previous = this.records.get(record.id);
    if (previous) this.remove(previous.id);
    this.snapshot = null;
    this.forgetChildRows();
    this.records.set(record.id, record);
    if (record.parent_id && (record.kind === 'atomic_fact' || record.kind === 'foresight')) {
      let set = this.children.get(record.parent_id);
      if (!set) this.children.set(record.parent_id, (set = new Set()));
      set.add(record.id);
    }
    if (this.keyword) this.indexRecords([record]);
  }

  remove(id: string): void {
    const record = this.records.get(id);
    if (!record) return;
    this.snapshot = null;
    this.forgetChildRows();
    this.records.delete(id);
    if (record.parent_id) this.children.get(record.parent_id)?.delete(id);
    if (this.keyword && SEARCHABLE.has(record.kind)) {
      this.keyword.remove([id]);
      this.vector!.remove(id);
    }
  }

  childrenOf(id: string): MemoryRecord[] {
    const ids = this.children.get(id);
    if (!ids) return [];
    return [...ids].map((c) => this.records.get(c)).filter((r): r is MemoryRecord => r !== undefined);
  }

  /**
   * A unit's facts and plans as the narrative track reads them: each record with its vector row
   * and keyword document (−1: none), so a search reads its candidates' children from typed arrays
   * instead of looking each one up by id in three maps (at 10k records those look-ups, each a
   * cache miss, cost more than scoring the children). In `tieOrder` (what they say and when, never
   * the order they were written or loaded in), so a search that sorts them by score alone, a
   * stable sort, leaves equal scores in that order: most of a unit's children tie, at the floor of
   * both legs, and comparing them record by record in every search cost a tenth of a hybrid
   * search at 10k records. Built on first ask after a write, from the indexes (which it builds if
   * needed).
   */
  childRows(id: string): ChildRows {
    let rows = this.childRowsCache.get(id);
    if (rows) return rows;
    const { keyword, vector } = this.indexes();
    const records: ChildRecord[] = [];
    for (const c of this.children.get(id) ?? []) {
      const r = this.records.get(c);
      if (r && (r.kind === 'atomic_fact' || r.kind === 'foresight')) records.push(r);
    }
    records.sort(tieOrder);
    const slots = new Int32Array(records.length);
    const keywordIds = new Int32Array(records.length);
    records.forEach((r, i) => {
      slots[i] = vector.slotOf(r.id) ?? -1;
      keywordIds[i] = keyword.internalOf(r.id);
    });
    rows = { records, slots, keywordIds, repeatsText: new Set(records.map((r) => r.content)).size < records.length };
    this.childRowsCache.set(id, rows);
    return rows;
  }

  private forgetChildRows(): void {
    if (this.childRowsCache.size > 0) this.childRowsCache = new Map();
  }

  /** The indexes, restored from the offered snapshot or built from the records on first use. */
  indexes(): { keyword: KeywordIndex; vector: VectorIndex } {
    if (!this.keyword) {
      const records = [...this.records.values()];
      this.vector = new VectorIndex();
      this.keyword = this.restore(records);
      if (this.keyword) {
        this.built = 'snapshot';
        this.indexVectors(records);
      } else {
        this.keyword = new KeywordIndex();
        this.indexRecords(records);
        this.built = 'records';
        this.changed?.();
      }
    }
    return { keyword: this.keyword, vector: this.vector! };
  }

  /**
   * Offers a stored keyword snapshot made when the items were at `generation` (used by the first
   * `indexes()`), with its parse when it was read ahead (`parseKeywordSnapshot` of these bytes).
   */
  offerSnapshot(bytes: Uint8Array, generation: number, parsed?: ParsedKeywordSnapshot): void {
    if (!this.keyword) this.snapshot = { bytes, generation, parsed: parsed?.generation === generation ? parsed : undefined };
  }

  /**
   * The keyword snapshot to keep for the items at `generation` (the generation of what this
   * partition holds now): encoded from the index, or the offered one re-stamped when the partition
   * was neither used nor changed since; null when there is nothing to keep.
   */
  snapshotAt(generation: number): Uint8Array | null {
    if (this.keyword) return encodeKeywordSnapshot(this.keyword, generation);
    return this.snapshot ? restamp(this.snapshot.bytes, generation) : null;
  }

  /** The offered snapshot's keyword index, or null when there is none or it fails a check. */
  private restore(records: readonly MemoryRecord[]): KeywordIndex | null {
    const offered = this.snapshot;
    this.snapshot = null;
    if (!offered) return null;
    const searchable = records.filter((r) => SEARCHABLE.has(r.kind));
    try {
      return bindKeywordSnapshot(offered.parsed ?? parseKeywordSnapshot(offered.bytes, offered.generation), (id) => {
        const r = this.records.get(id);
        return r && SEARCHABLE.has(r.kind) ? { kind: r.kind, text: searchText(r) } : undefined;
      }, searchable.length);
    } catch {
      // Damaged, stale or for other records: the records rebuild it (`built` says which way it went).
      return null;
    }
  }

  get indexed(): boolean {
    return this.keyword !== null;
  }

  private indexRecords(records: readonly MemoryRecord[]): void {
    const searchable = records.filter((r) => SEARCHABLE.has(r.kind));
    this.keyword!.add(searchable.map((r) => ({ id: r.id, kind: r.kind, text: searchText(r) })));
    this.indexVectors(searchable);
  }

  private indexVectors(records: readonly MemoryRecord[]): void {
    for (const r of records) {
      if (!SEARCHABLE.has(r.kind)) continue;
      if (!r.vector) continue;
      // A fact or plan scores its episode (MaxSim); one without an episode scores nothing.
      const child = r.kind === 'atomic_fact' || r.kind === 'foresight';
      this.vector!.add(r.id, r.kind, r.vector, child ? (r.parent_id ?? null) : r.id);
    }
  }
}
