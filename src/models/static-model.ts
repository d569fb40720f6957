/**
 * The file format of the bundled static embedding model (`models/static-en/model.bin`) and its
 * parser. Pure code: it takes bytes, however the platform obtained them.
 *
 * Layout, little-endian, every section starting on a 64-byte boundary:
 *
 *   0   "ENGRAMST"                  magic
 *   8   u32 format version (1)
 *   12  u32 CRC-32 of bytes [16, end)
 *   16  u32 length of the JSON metadata, then the metadata (UTF-8)
 *   ..  vocabulary: the words, UTF-8, separated by "\n", most frequent first (word i has id i + 1)
 *   ..  scales: float32[rows], one per table row
 *   ..  table: int8[rows × dim], row-major; row 0 is the padding row (all zeros, scale 0)
 *
 * A word's vector is `table[id] × scales[id]`. The ONNX export reads the scales and the table
 * straight out of this file as external data, so the weights are shipped once.
 */

import { MemoryError } from '../errors.js';

/** Magic bytes at the start of every model.bin. */
export const STATIC_MODEL_MAGIC = 'ENGRAMST';
/** The one format version this parser reads. */
export const STATIC_MODEL_FORMAT_VERSION = 1;

const HEADER_BYTES = 20;
const ALIGN = 64;
const MAX_DIM = 4096;

/** Metadata stored in the file's JSON header. Offsets are bytes from the start of the file. */
export interface StaticModelMeta {
  name: string;
  version: string;
  dim: number;
  /** Number of vocabulary words; the table has vocabSize + 1 rows (row 0 pads). */
  vocabSize: number;
  vocabOffset: number;
  vocabLength: number;
  scalesOffset: number;
  tableOffset: number;
  /** Anything else the build recorded (teacher, constants, licences); informative only. */
  [extra: string]: unknown;
}

/** A parsed model: the vocabulary and the quantised table, plus the bytes they were read from. */
export interface StaticModel {
  /** `name@version`, the identifier stored with every vector. */
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly dim: number;
  readonly vocabSize: number;
  /** Vocabulary, most frequent first; word i has token id i + 1. */
  readonly words: readonly string[];
  /** One dequantisation scale per row (vocabSize + 1 of them). */
  readonly scales: Float32Array;
  /** int8 rows, row-major, (vocabSize + 1) × dim. */
  readonly table: Int8Array;
  /** The whole file; the ONNX model reads its weights from these bytes. */
  readonly bytes: Uint8Array;
  readonly meta: Readonly<StaticModelMeta>;
}

/** Options of parseStaticModel. */
export interface ParseStaticModelOptions {
  /** Check the CRC-32 (default true; about 20 ms for 10 MB). */
  verifyChecksum?: boolean;
}

function corrupt(reason: string, cause?: unknown): MemoryError {
  return new MemoryError('MODEL_UNAVAILABLE', {
    message: `The static embedding model file is unusable: ${reason}.`,
    details: { reason },
    cause,
  });
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Parses and validates model.bin bytes; throws MemoryError('MODEL_UNAVAILABLE') on any defect. */
export function parseStaticModel(input: ArrayBuffer | Uint8Array, options: ParseStaticModelOptions = {}): StaticModel {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  if (bytes.length < HEADER_BYTES) throw corrupt('too short for a header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < STATIC_MODEL_MAGIC.length; i++) {
    if (bytes[i] !== STATIC_MODEL_MAGIC.charCodeAt(i)) throw corrupt('not a static model (bad magic)');
  }
  const format = view.getUint32(8, true);
  if (format !== STATIC_MODEL_FORMAT_VERSION) throw corrupt(`unsupported format version ${format}`);
  if (options.verifyChecksum !== false) {
    const expected = view.getUint32(12, true);
    if (crc32(bytes.subarray(16)) !== expected) throw corrupt('checksum mismatch');
  }

  const metaLength = view.getUint32(16, true);
  if (HEADER_BYTES + metaLength > bytes.length) throw corrupt('truncated metadata');
  let meta: StaticModelMeta;
  try {
    meta = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + metaLength))) as StaticModelMeta;
  } catch (error) {
    throw corrupt('unreadable metadata', error);
  }
  if (typeof meta !== 'object' || meta === null) throw corrupt('metadata is not an object');
  const { name, version, dim, vocabSize, vocabOffset, vocabLength, scalesOffset, tableOffset } = meta;
  if (typeof name !== 'string' || name === '' || typeof version !== 'string' || version === '') throw corrupt('missing name or version');
  if (!isCount(dim) || dim < 1 || dim > MAX_DIM) throw corrupt('bad dimension');
  if (!isCount(vocabSize) || vocabSize < 1) throw corrupt('bad vocabulary size');
  if (![vocabOffset, vocabLength, scalesOffset, tableOffset].every(isCount)) throw corrupt('bad section offsets');
  const rows = vocabSize + 1;
  if (vocabOffset < HEADER_BYTES + metaLength || scalesOffset < vocabOffset + vocabLength || scalesOffset % 4 !== 0 || tableOffset < scalesOffset + rows * 4) {
    throw corrupt('overlapping or misaligned sections');
  }
  if (tableOffset + rows * dim !== bytes.length) {
    throw corrupt(tableOffset + rows * dim > bytes.length ? 'truncated table' : 'trailing bytes after the table');
  }

  let words: string[];
  try {
    words = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(vocabOffset, vocabOffset + vocabLength)).split('\n');
  } catch (error) {
    throw corrupt('unreadable vocabulary', error);
  }
  if (words.length !== vocabSize || words.some((w) => w === '')) throw corrupt('vocabulary does not match its size');

  // Typed-array views need aligned offsets; a Uint8Array handed in at an odd byteOffset gets copied.
  const scales =
    (bytes.byteOffset + scalesOffset) % 4 === 0
      ? new Float32Array(bytes.buffer, bytes.byteOffset + scalesOffset, rows)
      : new Float32Array(bytes.slice(scalesOffset, scalesOffset + rows * 4).buffer);
  for (let i = 0; i < rows; i++) {
    const s = scales[i] ?? Number.NaN;
    if (!Number.isFinite(s) || s < 0) throw corrupt(`bad scale in row ${i}`);
  }
  if (scales[0] !== 0) throw corrupt('padding row is not zero');
  const table = new Int8Array(bytes.buffer, bytes.byteOffset + tableOffset, rows * dim);

  return { id: `${name}@${version}`, name, version, dim, vocabSize, words, scales, table, bytes, meta };
}

/** What encodeStaticModel needs: metadata without the section offsets, the words and the quantised rows. */
export interface StaticModelContents {
  meta: { name: string; version: string; [extra: string]: unknown };
  dim: number;
  words: readonly string[];
  /** rows = words.length + 1 scales; scales[0] must be 0. */
  scales: Float32Array;
  /** rows × dim int8 values; row 0 must be zeros. */
  table: Int8Array;
}

function alignUp(n: number): number {
  return Math.ceil(n / ALIGN) * ALIGN;
}

/** Serialises a model into the model.bin layout (used by the build script; the inverse of parseStaticModel). */
export function encodeStaticModel(contents: StaticModelContents): Uint8Array {
  const { dim, words, scales, table } = contents;
  const rows = words.length + 1;
  if (scales.length !== rows || table.length !== rows * dim) throw new RangeError('scales or table do not match the vocabulary');
  if (words.some((w) => w === '' || w.includes('\n'))) throw new RangeError('vocabulary words must be non-empty single lines');
  const encoder = new TextEncoder();
  const vocab = encoder.encode(words.join('\n'));

  // The offsets live inside the metadata, whose length moves them: repeat until they agree.
  let metaBytes = new Uint8Array(0);
  let layout = { vocabOffset: 0, scalesOffset: 0, tableOffset: 0 };
  for (;;) {
    const vocabOffset = alignUp(HEADER_BYTES + metaBytes.length);
    const scalesOffset = alignUp(vocabOffset + vocab.length);
    layout = { vocabOffset, scalesOffset, tableOffset: alignUp(scalesOffset + rows * 4) };
    const meta = { ...contents.meta, dim, vocabSize: words.length, vocabLength: vocab.length, ...layout };
    metaBytes = encoder.encode(JSON.stringify(meta));
    if (alignUp(HEADER_BYTES + metaBytes.length) === vocabOffset) break;
  }

  const out = new Uint8Array(layout.tableOffset + rows * dim);
  const view = new DataView(out.buffer);
  for (let i = 0; i < STATIC_MODEL_MAGIC.length; i++) out[i] = STATIC_MODEL_MAGIC.charCodeAt(i);
  view.setUint32(8, STATIC_MODEL_FORMAT_VERSION, true);
  view.setUint32(16, metaBytes.length, true);
  out.set(metaBytes, HEADER_BYTES);
  out.set(vocab, layout.vocabOffset);
  for (let i = 0; i < rows; i++) view.setFloat32(layout.scalesOffset + i * 4, scales[i] ?? 0, true);
  out.set(new Uint8Array(table.buffer, table.byteOffset, table.length), layout.tableOffset);
  view.setUint32(12, crc32(out.subarray(16)), true);
  return out;
}

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE 802.3, the zip/PNG one) of the bytes. */
export function crc32(bytes: Uint8Array): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  const table = crcTable;
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = (table[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
