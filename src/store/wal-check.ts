/**
 * A check SQLite does not make: whether a write-ahead log left by a crash holds committed
 * transactions SQLite would skip. SQLite replays the WAL frame by frame and stops at the first
 * frame whose checksum fails, which is right for a torn last write but, for a flipped byte in
 * the middle, silently drops every later transaction, acknowledged ones included. Each frame's
 * header stores the running checksum as written, so the frames after a damaged one can still be
 * verified from it: if a whole, committed transaction lies past the point where SQLite would stop,
 * the WAL is damaged, and the store refuses to open rather than lose it.
 *
 * Format: https://www.sqlite.org/fileformat2.html#walformat. Pure bytes in, no platform imports.
 */

const HEADER = 32;
const FRAME_HEADER = 24;

export interface WalDamage {
  /** Frames SQLite would replay (up to its last valid commit). */
  replayed: number;
  /** Frames up to the last commit that verifies once the damaged frames are stepped over. */
  committed: number;
}

/** Where a WAL's committed frames would be lost by replay, or null when replay keeps them all. */
export function walDamage(wal: Uint8Array): WalDamage | null {
  if (wal.length <= HEADER) return null;
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = view.getUint32(0);
  const bigEndian = magic === 0x377f0683 ? true : magic === 0x377f0682 ? false : null;
  let pageSize = view.getUint32(8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) pageSize = 4096;
  const frameSize = FRAME_HEADER + pageSize;
  const frames = Math.floor((wal.length - HEADER) / frameSize);
  if (frames === 0) return null;
  const salt1 = view.getUint32(16);
  const salt2 = view.getUint32(20);
  const stored: [number, number] = [view.getUint32(24), view.getUint32(28)];

  // How SQLite reads it: a damaged header hides the whole log; the first bad frame ends it.
  let replayed = 0;
  const headerSum = bigEndian === null ? null : checksum(wal.subarray(0, 24), [0, 0], bigEndian);
  if (bigEndian !== null && headerSum && headerSum[0] === stored[0] && headerSum[1] === stored[1] && view.getUint32(4) === 3007000) {
    let running = headerSum;
    for (let i = 0; i < frames; i++) {
      const frame = readFrame(wal, view, i, frameSize, running, bigEndian);
      if (!frame.saltsMatch(salt1, salt2) || !frame.valid) break;
      running = frame.stored;
      if (frame.commit) replayed = i + 1;
    }
  }

  // What was written: each frame verified from the checksum its predecessor stored, or from the
  // one its predecessor's bytes give (when the stored one is what was hit), so one damaged frame
  // or header does not hide the frames after it. Both byte orders when the magic is damaged.
  let committed = 0;
  for (const order of bigEndian === null ? [false, true] : [bigEndian]) {
    let fromStored = stored;
    let fromBytes = checksum(wal.subarray(0, 24), [0, 0], order);
    // Frames left from before the last checkpoint verify among themselves but carry other salts
    // (both change at each restart); a flipped byte changes at most one of the two.
    for (let i = 0; i < frames; i++) {
      const a = readFrame(wal, view, i, frameSize, fromStored, order);
      const b = readFrame(wal, view, i, frameSize, fromBytes, order);
      if ((a.valid || b.valid) && a.commit && a.saltMatches(salt1, salt2) > 0) committed = Math.max(committed, i + 1);
      fromStored = a.stored;
      fromBytes = a.valid || b.valid ? a.stored : a.sum;
    }
  }
  return committed > replayed ? { replayed, committed } : null;
}

function readFrame(wal: Uint8Array, view: DataView, index: number, frameSize: number, previous: [number, number], bigEndian: boolean) {
  const at = HEADER + index * frameSize;
  const stored: [number, number] = [view.getUint32(at + 16), view.getUint32(at + 20)];
  const sum = checksum(wal.subarray(at + FRAME_HEADER, at + frameSize), checksum(wal.subarray(at, at + 8), previous, bigEndian), bigEndian);
  return {
    stored,
    sum,
    valid: sum[0] === stored[0] && sum[1] === stored[1],
    commit: view.getUint32(at + 4) !== 0,
    saltsMatch: (s1: number, s2: number) => view.getUint32(at + 8) === s1 && view.getUint32(at + 12) === s2,
    /** How many of the two salts match (0, 1 or 2). */
    saltMatches: (s1: number, s2: number) => Number(view.getUint32(at + 8) === s1) + Number(view.getUint32(at + 12) === s2),
  };
}

/** SQLite's WAL checksum: two running 32-bit sums over pairs of 32-bit words. */
function checksum(bytes: Uint8Array, [a, b]: [number, number], bigEndian: boolean): [number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let s1 = a >>> 0;
  let s2 = b >>> 0;
  const little = !bigEndian;
  for (let i = 0; i + 8 <= bytes.length; i += 8) {
    s1 = (s1 + view.getUint32(i, little) + s2) >>> 0;
    s2 = (s2 + view.getUint32(i + 4, little) + s1) >>> 0;
  }
  return [s1, s2];
}
