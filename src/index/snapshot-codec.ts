/**
 * The byte layer of index snapshots: a growable writer and a bounds-checked reader (varints,
 * float64, UTF-8 strings), and the frame every snapshot is kept in: a magic number, a format
 * version, the generation of the items it was made from, the body's length and its CRC-32. A
 * frame that is cut, grown, flipped or from another generation is refused, never half-read.
 */
import { crc32 } from '../models/static-model.js';

const MAGIC = 0x31534745; // "EGS1", little-endian
const HEADER = 24;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Why a snapshot was refused (its partition is then rebuilt from the records). */
export class SnapshotRejected extends Error {
  constructor(readonly reason: 'frame' | 'checksum' | 'version' | 'generation' | 'content') {
    super(`index snapshot refused: ${reason}`);
  }
}

export class ByteWriter {
  private bytes = new Uint8Array(1 << 16);
  private view = new DataView(this.bytes.buffer);
  length = 0;
  private readonly pool: string[] = [];

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  /** An unsigned integer below 2^53, seven bits a byte. */
  varint(value: number): void {
    this.room(8);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
  }

  byte(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  f64(value: number): void {
    this.room(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** A string: its length here, its text in the pool (decoded once when read: thousands of small decodes cost more). */
  string(value: string): void {
    this.varint(value.length);
    this.pool.push(value);
  }

  /** The bytes written, framed with `generation` (see `readFrame`). */
  frame(version: number, generation: number): Uint8Array {
    const pool = encoder.encode(this.pool.join(''));
    const stream = this.bytes.subarray(0, this.length);
    // Body: the pool's byte length, the pool, then the stream of numbers and string lengths.
    const body = new Uint8Array(4 + pool.length + stream.length);
    new DataView(body.buffer).setUint32(0, pool.length, true);
    body.set(pool, 4);
    body.set(stream, 4 + pool.length);
    const out = new Uint8Array(HEADER + body.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, version, true);
    view.setFloat64(8, generation, true);
    view.setUint32(16, body.length, true);
    view.setUint32(20, crc32(body), true);
    out.set(body, HEADER);
    return out;
  }
}

export class ByteReader {
  private at: number;
  private readonly view: DataView;
  private readonly pool: string;
  private poolAt = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 4) throw new SnapshotRejected('content');
    const poolBytes = this.view.getUint32(0, true);
    if (4 + poolBytes > bytes.length) throw new SnapshotRejected('content');
    try {
      this.pool = decoder.decode(bytes.subarray(4, 4 + poolBytes));
    } catch {
      throw new SnapshotRejected('content');
    }
    this.at = 4 + poolBytes;
  }

  /** Whether every number and every string was read. */
  get done(): boolean {
    return this.at === this.bytes.length && this.poolAt === this.pool.length;
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length) throw new SnapshotRejected('content');
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      this.need(1);
      const b = this.bytes[this.at++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
    throw new SnapshotRejected('content');
  }

  byte(): number {
    this.need(1);
    return this.bytes[this.at++]!;
  }

  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }

  string(): string {
    const n = this.varint();
    if (this.poolAt + n > this.pool.length) throw new SnapshotRejected('content');
    const s = this.pool.slice(this.poolAt, this.poolAt + n);
    this.poolAt += n;
    return s;
  }
}

/** The body of a framed snapshot, once its magic, version, length, checksum and generation hold. */
export function readFrame(bytes: Uint8Array, version: number, generation: number): ByteReader {
  if (!(bytes instanceof Uint8Array) || bytes.length < HEADER) throw new SnapshotRejected('frame');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new SnapshotRejected('frame');
  if (view.getUint32(4, true) !== version) throw new SnapshotRejected('version');
  if (view.getUint32(16, true) !== bytes.length - HEADER) throw new SnapshotRejected('frame');
  const body = bytes.subarray(HEADER);
  if (view.getUint32(20, true) !== crc32(body)) throw new SnapshotRejected('checksum');
  // Checked after the checksum, so a flipped stamp reads as damage, a clean old one as stale.
  if (view.getFloat64(8, true) !== generation) throw new SnapshotRejected('generation');
  return new ByteReader(body);
}

/** The same frame stamped with another generation (for a partition no commit touched since it was made). */
export function restamp(bytes: Uint8Array, generation: number): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setFloat64(8, generation, true);
  return out;
}
