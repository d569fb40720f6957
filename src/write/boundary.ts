/**
 * Boundary detection: where one conversation segment ends and the next begins. A segment closes
 * before a message that comes more than 4 hours after the previous one or on a different
 * (UTC) calendar day, or that was written with other write-time metadata (so every record of a
 * segment carries its write's metadata exactly), and always at 500 messages; `flush` closes
 * whatever is open.
 */
import { sameMetadata } from '../contract/metadata.js';
import type { BufferedMessage } from '../records.js';

export const MAX_GAP_MS = 4 * 3_600_000;
export const MAX_SEGMENT_MESSAGES = 500;

export type BoundaryReason = 'gap' | 'date_change' | 'size' | 'metadata';

/** Why a segment must close before `next`, or null when `next` continues it. */
export function boundaryBefore(previous: BufferedMessage | undefined, next: BufferedMessage, openCount: number): BoundaryReason | null {
  if (!previous) return null;
  if (openCount >= MAX_SEGMENT_MESSAGES) return 'size';
  if (next.timestamp - previous.timestamp > MAX_GAP_MS) return 'gap';
  if (new Date(next.timestamp).toISOString().slice(0, 10) !== new Date(previous.timestamp).toISOString().slice(0, 10)) return 'date_change';
  if (!sameMetadata(previous.metadata, next.metadata)) return 'metadata';
  return null;
}

/**
 * Splits a buffer plus newly arrived messages into closed segments and the still-open tail.
 * Messages are ordered by timestamp, then arrival, so late-arriving messages slot into place.
 */
export function segmentMessages(buffered: BufferedMessage[], incoming: BufferedMessage[]): { closed: BufferedMessage[][]; open: BufferedMessage[] } {
  const all = [...buffered, ...incoming].sort((a, b) => a.timestamp - b.timestamp || a.seq - b.seq);
  const closed: BufferedMessage[][] = [];
  let current: BufferedMessage[] = [];
  for (const message of all) {
    if (boundaryBefore(current[current.length - 1], message, current.length)) {
      closed.push(current);
      current = [];
    }
    current.push(message);
  }
  return { closed, open: current };
}
