/**
 * The vector leg: exact cosine over one partition's unit vectors. A flat scan is exact (no
 * recall lost to an approximate graph) and needs no build step when a memory opens. The vectors
 * live in one contiguous Float32Array, one row per record, so a query is a single pass over
 * memory with no per-record object: at 10k × 128 that is about a millisecond, the machine's limit
 * for 1.3 M multiply-adds. Float32 rather than int8: the products are summed in float64 exactly as
 * before, so cosines (and every ranking built on them) are bit-for-bit those of the per-record scan.
 *
 * Rows are grouped: a fact or a plan belongs to its episode's group, an episode to its own. The
 * narrative track scores an episode by its best visible child ("MaxSim"), which `maxSim` computes
 * in the same pass with group numbers instead of id lookups.
 */
import type { RecordKind } from '../records.js';
import { topK, topValues } from './top-k.js';
import { grown } from './typed-arrays.js';

export interface VectorHit {
  id: string;
  score: number;
}

/** Dot product; both sides are unit vectors, so this is their cosine. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

const KIND_CODES: Record<RecordKind, number> = {
  episode: 1, atomic_fact: 2, foresight: 3, profile: 4, agent_case: 5, agent_skill: 6, knowledge: 7, message: 8, graph_entity: 9, graph_relation: 10,
} as Record<RecordKind, number>;

function kindMask(kinds: readonly RecordKind[]): number {
  let mask = 0;
  for (const k of kinds) mask |= 1 << (KIND_CODES[k] ?? 0);
  return mask;
}

/** What a MaxSim scan asks of the records it cannot see from the index. */
export interface MaxSimOptions {
  units: readonly RecordKind[];
  children: readonly RecordKind[];
  /** Whether a record exists and passes the request's filters. */
  visible(id: string): boolean;
  /** False when no filter is set: children are then visible without asking (their group still is asked once). */
  filtered: boolean;
  /** Whether a unit has a visible child (with or without a vector): if so its own vector does not score it. */
  hasVisibleChildren(id: string): boolean;
}

/** One query's cosines by record id: a child's own, a unit's by MaxSim (undefined where none was computed). */
export interface MaxSimCosines {
  childCos(id: string): number | undefined;
  /** `childCos` of the record in row `slot` (−1: none), read without an id look-up. */
  childCosAt(slot: number): number | undefined;
  unitCos(id: string): number | undefined;
}

/** One query's cosines: every visible child, and every visible unit by MaxSim. */
export class MaxSimScan implements MaxSimCosines {
  constructor(
    private readonly index: VectorIndex,
    private readonly childScores: Float64Array,
    private readonly groupScores: Float64Array,
    private readonly groupNames: readonly string[],
    /** Visible children with a cosine. */
    readonly childCount: number,
    /** Visible units with a cosine. */
    readonly unitCount: number,
  ) {}

  childCos(id: string): number | undefined {
    return this.childCosAt(this.index.slotOf(id) ?? -1);
  }

  childCosAt(slot: number): number | undefined {
    const s = slot < 0 ? NaN : (this.childScores[slot] ?? NaN);
    return Number.isNaN(s) ? undefined : s;
  }

  unitCos(id: string): number | undefined {
    const g = this.index.groupOf(id);
    const s = g === undefined ? NaN : (this.groupScores[g] ?? NaN);
    return Number.isNaN(s) ? undefined : s;
  }

  /** The best `k` units with cosine ≥ `floor`, best first (ties by id). */
  topUnits(k: number, floor: number): VectorHit[] {
    const scores = this.groupScores;
    const names = this.groupNames;
    return topK(scores, scores.length, k, floor, (g) => names[g]!).map((g) => ({ id: names[g]!, score: scores[g]! }));
  }

  /** How many units have cosine ≥ `floor`. */
  unitsAtLeast(floor: number): number {
    let n = 0;
    for (const s of this.groupScores) if (s >= floor) n++;
    return n;
  }

  /** The `k` best child cosines, best first. */
  topChildScores(k: number): number[] {
    return topValues(this.childScores, this.childScores.length, k);
  }
}

/** Exact cosine search over a partition's vectors. */
export class VectorIndex {
  private dim = 0;
  private rows = 0;
  private matrix = new Float32Array(0);
  private kinds = new Uint8Array(0);
  private groups = new Int32Array(0);
  private ids: string[] = [];
  private readonly slots = new Map<string, number>();
  private readonly groupNumbers = new Map<string, number>();
  private readonly groupNames: string[] = [];
  /** Per group, 1 when the group's own record has a row (so it exists); rebuilt after a write. */
  private ownRows: Uint8Array | null = null;
  /**
   * Per-query scratch, reused: the rows a scan visits, and `maxSim`'s cosine per row (which its
   * `MaxSimScan` reads until the next `maxSim`). Two arrays of a row each, allocated per query,
   * were most of a search's garbage at 10k records.
   */
  private todo = new Int32Array(0);
  private maxSimScores = new Float64Array(0);

  get size(): number {
    return this.rows;
  }

  slotOf(id: string): number | undefined {
    return this.slots.get(id);
  }

  groupOf(id: string): number | undefined {
    return this.groupNumbers.get(id);
  }

  /** Adds or replaces a record's vector; `group` is the id of the unit it scores (its own id for a unit, null for none). */
  add(id: string, kind: RecordKind, vector: Float32Array, group: string | null = id): void {
    if (this.dim === 0) this.dim = vector.length;
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.rows++;
      this.reserve(this.rows);
      this.slots.set(id, slot);
      this.ids[slot] = id;
    }
    // A vector of another length is cut or zero-padded: the dot product over the shorter of the
    // two is what the per-record scan computed.
    const row = this.matrix.subarray(slot * this.dim, (slot + 1) * this.dim);
    row.fill(0);
    row.set(vector.length > this.dim ? vector.subarray(0, this.dim) : vector);
    this.kinds[slot] = KIND_CODES[kind] ?? 0;
    this.groups[slot] = group === null ? -1 : this.group(group);
    this.ownRows = null;
  }

  /** Removes a record's vector; the last row moves into its place, so the rows stay contiguous. */
  remove(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    this.slots.delete(id);
    const last = --this.rows;
    if (slot !== last) {
      const d = this.dim;
      this.matrix.copyWithin(slot * d, last * d, (last + 1) * d);
      this.kinds[slot] = this.kinds[last]!;
      this.groups[slot] = this.groups[last]!;
      const moved = this.ids[last]!;
      this.ids[slot] = moved;
      this.slots.set(moved, slot);
    }
    this.ids.length = this.rows;
    this.ownRows = null;
  }

  get(id: string): Float32Array | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.matrix.slice(slot * this.dim, (slot + 1) * this.dim);
  }

  /** Every vector of the given kinds, best first (for the small agent-track kinds). */
  search(query: Float32Array, kinds: readonly RecordKind[], floor = -1): VectorHit[] {
    const scores = this.scan(this.queryRow(query), kindMask(kinds));
    return topK(scores, this.rows, this.rows, floor, (i) => this.ids[i]!).map((i) => ({ id: this.ids[i]!, score: scores[i]! }));
  }

  /**
   * One pass: the cosine of every visible child, and of every visible unit by its best visible
   * child (or its own vector when it has none). The scan it returns reads a buffer the next
   * `maxSim` of this index reuses: read it before asking again (a search is synchronous).
   */
  maxSim(query: Float32Array, options: MaxSimOptions): MaxSimScan {
    const childMask = kindMask(options.children);
    const unitMask = kindMask(options.units);
    const q = this.queryRow(query);
    // Children first: a unit's own vector counts only when it has no visible child, so units'
    // rows are scanned only then (most episodes have facts: a quarter of the rows at 10k).
    const n = this.rows;
    if (this.maxSimScores.length < n) this.maxSimScores = new Float64Array(Math.max(64, n * 2));
    const scores = this.scan(q, childMask, this.maxSimScores.subarray(0, n));
    const groupScores = new Float64Array(this.groupNames.length).fill(NaN);
    // Per group: 0 not asked yet, 1 visible, 2 not. Without a filter, a group whose own record
    // has a row exists, so it is visible without asking.
    const groupVisible = options.filtered ? new Uint8Array(this.groupNames.length) : this.groupsWithOwnRow().slice();
    const visibleGroup = (g: number) => {
      if (groupVisible[g] === 0) groupVisible[g] = options.visible(this.groupNames[g]!) ? 1 : 2;
      return groupVisible[g] === 1;
    };
    let childCount = 0;
    for (let i = 0; i < n; i++) {
      if (!((childMask >> this.kinds[i]!) & 1)) continue;
      const g = this.groups[i]!;
      const s = scores[i]!;
      // A fact without an episode scores nothing; a fact stands for its episode only when the episode itself is visible.
      if (g < 0 || (options.filtered && !options.visible(this.ids[i]!)) || !visibleGroup(g)) {
        scores[i] = NaN;
        continue;
      }
      childCount++;
      const best = groupScores[g]!;
      if (Number.isNaN(best) || s > best) groupScores[g] = s;
    }
    for (let i = 0; i < n; i++) {
      if (!((unitMask >> this.kinds[i]!) & 1)) continue;
      const g = this.groups[i]!;
      scores[i] = NaN;
      if (g < 0 || !Number.isNaN(groupScores[g]!) || !visibleGroup(g)) continue;
      if (options.hasVisibleChildren(this.ids[i]!)) continue;
      groupScores[g] = this.rowCos(q, i);
    }
    let unitCount = 0;
    for (const s of groupScores) if (!Number.isNaN(s)) unitCount++;
    return new MaxSimScan(this, scores, groupScores, this.groupNames, childCount, unitCount);
  }

  /**
   * The cosines `maxSim` computes, for the given units and their children only: a keyword-only
   * search needs the cosines of its few candidates (for the trace), not every record's. Each value
   * is bit-for-bit `maxSim`'s, under the same visibility rules.
   */
  maxSimOf(query: Float32Array, units: readonly string[], options: MaxSimOptions & { childSlots(id: string): ArrayLike<number> }): MaxSimCosines {
    const childMask = kindMask(options.children);
    const unitMask = kindMask(options.units);
    const q = this.queryRow(query);
    // Maps, not per-row arrays: a few dozen units and their children out of thousands of rows.
    const childCos = new Map<number, number>();
    const unitCos = new Map<string, number>();
    const own = options.filtered ? null : this.groupsWithOwnRow();
    // First the rows to score (each unit's visible children, `ends` closing each unit's run), then
    // their cosines eight rows at a time as the full scan computes them, then each unit's best.
    const picked: { unit: string; g: number }[] = [];
    const seen = new Set<string>();
    let rows = new Int32Array(64);
    const ends = new Int32Array(units.length);
    let count = 0;
    for (const unit of units) {
      const g = this.groupNumbers.get(unit);
      if (g === undefined || seen.has(unit) || !(own ? own[g] === 1 : options.visible(unit))) continue;
      seen.add(unit);
      const slots = options.childSlots(unit);
      for (let c = 0; c < slots.length; c++) {
        const slot = slots[c]!;
        if (slot < 0 || this.groups[slot] !== g || !((childMask >> this.kinds[slot]!) & 1)) continue;
        if (options.filtered && !options.visible(this.ids[slot]!)) continue;
        if (count === rows.length) rows = grown(rows, count * 2);
        rows[count++] = slot;
      }
      ends[picked.length] = count;
      picked.push({ unit, g });
    }
    const cos = new Float64Array(count);
    this.cosines(q, rows, count, cos, false);
    let from = 0;
    picked.forEach(({ unit, g }, u) => {
      let best = NaN;
      for (let k = from; k < ends[u]!; k++) {
        const s = cos[k]!;
        if (!Number.isNaN(s)) childCos.set(rows[k]!, s);
        if (Number.isNaN(best) || s > best) best = s;
      }
      from = ends[u]!;
      const slot = this.slots.get(unit);
      if (Number.isNaN(best) && slot !== undefined && this.groups[slot] === g && (unitMask >> this.kinds[slot]!) & 1 && !options.hasVisibleChildren(unit)) {
        best = this.rowCos(q, slot);
      }
      if (!Number.isNaN(best)) unitCos.set(unit, best);
    });
    return {
      childCos: (id) => childCos.get(this.slots.get(id) ?? -1),
      childCosAt: (slot) => childCos.get(slot),
      unitCos: (id) => unitCos.get(id),
    };
  }

  /** Cosines of the rows whose kind is in `mask`, NaN elsewhere (into `out`, one entry per row). */
  private scan(q: Float64Array, mask: number, out = new Float64Array(this.rows)): Float64Array {
    const n = this.rows;
    const kinds = this.kinds;
    if (this.todo.length < n) this.todo = new Int32Array(Math.max(64, n * 2));
    const todo = this.todo;
    let count = 0;
    for (let i = 0; i < n; i++) {
      if ((mask >> kinds[i]!) & 1) todo[count++] = i;
      else out[i] = NaN;
    }
    this.cosines(q, todo, count, out, true);
    return out;
  }

  /**
   * The cosines of rows `rows[0..count)`, into `out` by row number (`byRow`) or by position in
   * `rows`.
   */
  private cosines(q: Float64Array, rows: Int32Array, count: number, out: Float64Array, byRow: boolean): void {
    const d = this.dim;
    const m = this.matrix;
    const len = q.length;
    const todo = rows;
    // Eight rows at a time, each with its own running sum in `dot`'s order: one sum is a chain of
    // dependent additions (bound by their latency), eight independent chains keep the core busy
    // (measured here: 0.65–0.7× the time of one row at a time). Every cosine is still summed term
    // by term in the same order, so it comes out identical.
    let t = 0;
    for (; t + 8 <= count; t += 8) {
      const p0 = todo[t]! * d;
      const p1 = todo[t + 1]! * d;
      const p2 = todo[t + 2]! * d;
      const p3 = todo[t + 3]! * d;
      const p4 = todo[t + 4]! * d;
      const p5 = todo[t + 5]! * d;
      const p6 = todo[t + 6]! * d;
      const p7 = todo[t + 7]! * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let s4 = 0;
      let s5 = 0;
      let s6 = 0;
      let s7 = 0;
      for (let j = 0; j < len; j++) {
        const x = q[j]!;
        s0 += x * m[p0 + j]!;
        s1 += x * m[p1 + j]!;
        s2 += x * m[p2 + j]!;
        s3 += x * m[p3 + j]!;
        s4 += x * m[p4 + j]!;
        s5 += x * m[p5 + j]!;
        s6 += x * m[p6 + j]!;
        s7 += x * m[p7 + j]!;
      }
      if (byRow) {
        out[todo[t]!] = s0;
        out[todo[t + 1]!] = s1;
        out[todo[t + 2]!] = s2;
        out[todo[t + 3]!] = s3;
        out[todo[t + 4]!] = s4;
        out[todo[t + 5]!] = s5;
        out[todo[t + 6]!] = s6;
        out[todo[t + 7]!] = s7;
      } else {
        out[t] = s0;
        out[t + 1] = s1;
        out[t + 2] = s2;
        out[t + 3] = s3;
        out[t + 4] = s4;
        out[t + 5] = s5;
        out[t + 6] = s6;
        out[t + 7] = s7;
      }
    }
    for (; t < count; t++) out[byRow ? todo[t]! : t] = this.rowCos(q, todo[t]!);
  }

  /** The query as float64 (exact: every float32 is a float64), cut to the rows' length. */
  private queryRow(query: Float32Array): Float64Array {
    const q = new Float64Array(Math.min(this.dim, query.length));
    for (let j = 0; j < q.length; j++) q[j] = query[j]!;
    return q;
  }

  /** One row's cosine with a query row: unrolled by four with one running sum, in `dot`'s order. */
  private rowCos(q: Float64Array, slot: number): number {
    const m = this.matrix;
    const len = q.length;
    const tail = len & ~3;
    let sum = 0;
    let p = slot * this.dim;
    let j = 0;
    for (; j < tail; j += 4, p += 4) {
      sum += q[j]! * m[p]!;
      sum += q[j + 1]! * m[p + 1]!;
      sum += q[j + 2]! * m[p + 2]!;
      sum += q[j + 3]! * m[p + 3]!;
    }
    for (; j < len; j++, p++) sum += q[j]! * m[p]!;
    return sum;
  }

  private groupsWithOwnRow(): Uint8Array {
    if (!this.ownRows || this.ownRows.length !== this.groupNames.length) {
      this.ownRows = Uint8Array.from(this.groupNames, (name) => (this.slots.has(name) ? 1 : 0));
    }
    return this.ownRows;
  }

  private group(name: string): number {
    let g = this.groupNumbers.get(name);
    if (g === undefined) {
      g = this.groupNames.length;
      this.groupNames.push(name);
      this.groupNumbers.set(name, g);
    }
    return g;
  }

  private reserve(rows: number): void {
    if (rows * this.dim <= this.matrix.length && rows <= this.kinds.length) return;
    const capacity = Math.max(64, rows * 2);
    this.matrix = grown(this.matrix, capacity * this.dim, (rows - 1) * this.dim);
    this.kinds = grown(this.kinds, capacity, rows - 1);
    this.groups = grown(this.groups, capacity, rows - 1);
  }
}
