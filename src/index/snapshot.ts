/**
 * A partition's keyword index as compact binary, so a memory opens without tokenising and
 * inserting every record into Orama again (most of a cold open in Chromium: about a second at 10k
 * records). Kept: Orama's internal ids, each document's kind and field length, the BM25
 * statistics, and each term's postings (internal ids and term frequencies, as the bounded BM25
 * component holds them). Restored through Orama's `load` (ids, documents, statistics, kind index)
 * with the postings handed to the component. Rebuilding Orama's word tree and per-document term
 * records instead took as long as inserting; no search reads them (`bounded-bm25.ts`).
 *
 * Not kept twice: each document's text comes from the partition's records when the snapshot is
 * read, and so do the vectors (the vector index is a copy of the records' vectors, rebuilt in
 * milliseconds; keeping it again would store every vector twice).
 *
 * A snapshot is trusted only when its frame holds (checksum, length, version, generation, see
 * `snapshot-codec.ts`) and its documents are exactly the partition's searchable records with the
 * same kinds; anything else is refused and the partition's index is built from its records.
 */
import type { RawData } from '@orama/orama';
import type { RecordKind } from '../records.js';
import { KeywordIndex } from './keyword-index.js';
import { ByteWriter, readFrame, SnapshotRejected } from './snapshot-codec.js';

/** Bumped whenever the layout below changes: an older snapshot is then refused and rebuilt. */
export const SNAPSHOT_VERSION = 1;

const KINDS: readonly RecordKind[] = ['episode', 'atomic_fact', 'foresight', 'profile', 'agent_case', 'agent_skill', 'knowledge'];

/** A document of the partition as the keyword index holds it (`undefined`: no such searchable record). */
export type DocSource = (id: string) => { kind: RecordKind; text: string } | undefined;

/**
 * The snapshot of a keyword index made at `generation`, or null when the index holds something
 * this layout cannot keep exactly (then the partition is simply rebuilt at the next open).
 */
export function encodeKeywordSnapshot(index: KeywordIndex, generation: number): Uint8Array | null {
  const parts = index.snapshotParts();
  if (!parts) return null;
  const { ids, fieldLengths, occurrences, terms } = parts;
  const out = new ByteWriter();
  out.varint(ids.length);
  for (const id of ids) out.string(id);
  // Per internal id: 0 when no document holds it (removed), else its kind code and field length.
  let present = 0;
  for (let internal = 1; internal <= ids.length; internal++) {
    const kind = parts.kindOf(internal);
    if (kind === undefined) {
      out.byte(0);
      continue;
    }
    const code = KINDS.indexOf(kind) + 1;
    const length = fieldLengths[internal];
    if (code === 0 || typeof length !== 'number' || !Number.isInteger(length) || length < 0 || parts.lengths[internal] !== length) return null;
    out.byte(code);
    out.varint(length);
    present++;
  }
  if (present !== parts.count) return null;
  out.byte(parts.avgFieldLength === undefined ? 0 : 1);
  if (parts.avgFieldLength !== undefined) out.f64(parts.avgFieldLength);
  // Terms with their document frequency and postings. A term frequency is kept as the count it
  // was made from (Orama's tf = count / field length), checked to give the same float back.
  out.varint(terms.size);
  let total = 0;
  for (const p of terms.values()) total += p.ids.length;
  out.varint(total);
  for (const [token, p] of terms) {
    if (occurrences[token] !== p.ids.length) return null;
    out.string(token);
    out.varint(p.ids.length);
    let previous = 0;
    for (let i = 0; i < p.ids.length; i++) {
      const id = p.ids[i]!;
      const length = fieldLengths[id];
      if (id < 1 || id > ids.length || length === undefined) return null;
      // Zigzag delta: ids mostly rise, so most take one or two bytes.
      const delta = id - previous;
      out.varint(delta >= 0 ? delta * 2 : -delta * 2 - 1);
      previous = id;
      const count = Math.round(p.tf[i]! * length);
      if (count / length !== p.tf[i]) return null;
      out.varint(count);
    }
  }
  // A statistic of a term with no postings left would be lost: only zeros may be.
  for (const token in occurrences) if (occurrences[token] !== 0 && !terms.has(token)) return null;
  return out.frame(SNAPSHOT_VERSION, generation);
}

/**
 * What a snapshot holds, read and checked on its own, before the partition's records are known:
 * the costly part of a restore (every posting), which an open runs while the records are still
 * being read. Its postings are handed over to the index it becomes: bind it once.
 */
export interface ParsedKeywordSnapshot {
  readonly generation: number;
  readonly ids: string[];
  /** Per internal id: 0 when no document holds it, else its kind's code. */
  readonly codes: Uint8Array;
  readonly fieldLengths: Record<number, number>;
  readonly lengths: Float64Array<ArrayBuffer>;
  readonly present: number;
  readonly avg: number | undefined;
  readonly occurrences: Record<string, number>;
  readonly terms: Map<string, { ids: Int32Array<ArrayBuffer>; tf: Float64Array<ArrayBuffer> }>;
}

/**
 * Reads a snapshot made at `generation`; throws `SnapshotRejected` when the frame fails its
 * checks, is of another generation, or its contents do not hold together.
 */
export function parseKeywordSnapshot(bytes: Uint8Array, generation: number): ParsedKeywordSnapshot {
  const input = readFrame(bytes, SNAPSHOT_VERSION, generation);
  const count = input.varint();
  if (count > bytes.length) throw new SnapshotRejected('content');
  const ids: string[] = new Array(count);
  for (let i = 0; i < count; i++) ids[i] = input.string();
  const codes = new Uint8Array(count + 1);
  const fieldLengths: Record<number, number> = {};
  const lengths = new Float64Array(count + 1);
  let present = 0;
  for (let internal = 1; internal <= count; internal++) {
    const code = input.byte();
    if (code === 0) continue;
    if (code > KINDS.length) throw new SnapshotRejected('content');
    codes[internal] = code;
    const length = input.varint();
    fieldLengths[internal] = length;
    lengths[internal] = length;
    present++;
  }
  const avg = input.byte() === 1 ? input.f64() : undefined;
  const termCount = input.varint();
  if (termCount > bytes.length) throw new SnapshotRejected('content');
  const total = input.varint();
  if (total > bytes.length) throw new SnapshotRejected('content');
  const occurrences: Record<string, number> = {};
  const terms = new Map<string, { ids: Int32Array<ArrayBuffer>; tf: Float64Array<ArrayBuffer> }>();
  let at = 0;
  for (let t = 0; t < termCount; t++) {
    const token = input.string();
    const n = input.varint();
    if (n > present || at + n > total || terms.has(token)) throw new SnapshotRejected('content');
    // One small pair of arrays per term: measured faster to make than views into one large pair.
    const postingIds = new Int32Array(n);
    const tf = new Float64Array(n);
    let previous = 0;
    for (let i = 0; i < n; i++) {
      const z = input.varint();
      const id = previous + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
      const length = fieldLengths[id];
      if (length === undefined) throw new SnapshotRejected('content');
      previous = id;
      postingIds[i] = id;
      tf[i] = input.varint() / length;
    }
    occurrences[token] = n;
    terms.set(token, { ids: postingIds, tf });
    at += n;
  }
  if (at !== total) throw new SnapshotRejected('content');
  if (!input.done) throw new SnapshotRejected('content');
  return { generation, ids, codes, fieldLengths, lengths, present, avg, occurrences, terms };
}

/**
 * The keyword index a snapshot holds, with each document's text and kind from `source`; throws
 * `SnapshotRejected` when the frame fails its checks, is of another generation, or its documents
 * are not exactly the `expected` searchable records (by id and kind).
 */
export function decodeKeywordSnapshot(bytes: Uint8Array, generation: number, source: DocSource, expected: number): KeywordIndex {
  return bindKeywordSnapshot(parseKeywordSnapshot(bytes, generation), source, expected);
}

/**
 * The keyword index of a parsed snapshot, with each document's text and kind from `source`;
 * throws `SnapshotRejected` when its documents are not exactly the `expected` searchable records
 * (by id and kind).
 */
export function bindKeywordSnapshot(parsed: ParsedKeywordSnapshot, source: DocSource, expected: number): KeywordIndex {
  const { ids, codes, fieldLengths, lengths, present, avg, occurrences, terms } = parsed;
  if (present !== expected) throw new SnapshotRejected('content');
  const docs: Record<number, { id: string; kind: RecordKind; text: string }> = {};
  const byKind = new Map<RecordKind, number[]>();
  const ordered: [number, string][] = [];
  const sortPositions: Record<number, number> = {};
  for (let internal = 1; internal < codes.length; internal++) {
    const code = codes[internal]!;
    if (code === 0) continue;
    const kind = KINDS[code - 1]!;
    const id = ids[internal - 1]!;
    const record = source(id);
    if (!record || record.kind !== kind) throw new SnapshotRejected('content');
    docs[internal] = { id, kind, text: record.text };
    let list = byKind.get(kind);
    if (!list) byKind.set(kind, (list = []));
    list.push(internal);
    sortPositions[internal] = ordered.length;
    ordered.push([internal, record.text]);
  }
  const raw = {
    internalDocumentIDStore: { internalIdToId: ids },
    index: {
      indexes: {
        kind: { type: 'Flat', node: { numberToDocumentId: [...byKind] }, isArray: false },
        // Orama's word tree starts empty: the postings above answer every search (see `KeywordIndex.restore`).
        text: { type: 'Radix', node: { w: '', s: '', e: false, k: '', d: [], c: [] }, isArray: false },
      },
      vectorIndexes: {},
      searchableProperties: ['kind', 'text'],
      searchablePropertiesWithTypes: { kind: 'enum', text: 'string' },
      frequencies: { text: {} },
      tokenOccurrences: { text: occurrences },
      avgFieldLength: { text: avg },
      fieldLengths: { text: fieldLengths },
    },
    docs: { docs, count: present },
    // Orama's sorter keeps 'text' sortable; it sorts on demand (Engram never asks), so it is given unsorted.
    sorting: {
      language: 'english', sortableProperties: ['text'], sortablePropertiesWithTypes: { text: 'string' },
      sorts: { text: { docs: sortPositions, orderedDocs: ordered, type: 'string' } }, enabled: true, isSorted: false,
    },
    pinning: { rules: [] },
    language: 'english',
  };
  return KeywordIndex.restore(raw as unknown as RawData, { terms, lengths });
}
