/**
 * One memory partition (app, project, owner): its records and, built on first use, its keyword
 * and vector indexes. Building lazily means opening a memory with many owners costs nothing
 * until one of them is searched.
 */
import type { MemoryRecord, RecordKind } from '../records.js';
import { searchText } from '../records.js';
import { KeywordIndex } from './keyword-index.js';
import { VectorIndex } from './vector-index.js';

/** Kinds that take part in search (profiles are fetched, not ranked). */
const SEARCHABLE: ReadonlySet<RecordKind> = new Set(['episode', 'atomic_fact', 'foresight', 'agent_case', 'agent_skill', 'knowledge']);

export class Partition {
  readonly records = new Map<string, MemoryRecord>();
  /** Episode id → ids of its atomic facts and foresight. */
  readonly children = new Map<string, Set<string>>();
  private keyword: KeywordIndex | null = null;
  private vector: VectorIndex | null = null;

  get size(): number {
    return this.records.size;
  }

  put(record: MemoryRecord): void {
    const previous = this.records.get(record.id);
    if (previous) this.remove(previous.id);
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

  /** The indexes, built from the records on first use. */
  indexes(): { keyword: KeywordIndex; vector: VectorIndex } {
    if (!this.keyword) {
      this.keyword = new KeywordIndex();
      this.vector = new VectorIndex();
      this.indexRecords([...this.records.values()]);
    }
    return { keyword: this.keyword, vector: this.vector! };
  }

  get indexed(): boolean {
    return this.keyword !== null;
  }

  private indexRecords(records: MemoryRecord[]): void {
    const searchable = records.filter((r) => SEARCHABLE.has(r.kind));
    this.keyword!.add(searchable.map((r) => ({ id: r.id, kind: r.kind, text: searchText(r) })));
    for (const r of searchable) {
      if (!r.vector) continue;
      // A fact or plan scores its episode (MaxSim); one without an episode scores nothing.
      const child = r.kind === 'atomic_fact' || r.kind === 'foresight';
      this.vector!.add(r.id, r.kind, r.vector, child ? (r.parent_id ?? null) : r.id);
    }
  }
}
