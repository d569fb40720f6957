/**
 * Notices on a command's stderr, without flooding it. A notice that describes how the memory is
 * set up ("no reranker is configured") comes with every search, and a failing model sends the
 * same one on every call: a server answering thousands of searches would print thousands of
 * identical lines and bury everything else. Each distinct notice is printed the first time, then
 * at most once a minute while it repeats, with how many times it came since it was last printed.
 */
import type { Notice } from '../search/search.js';

/** How long the same notice stays quiet after it was printed. */
export const NOTICE_QUIET_MS = 60_000;

/** Distinct notices remembered; past this the memory starts over (a message can carry a changing detail). */
const REMEMBERED = 1000;

/** A notice sink for `onNotice`: prints through `write`, each distinct notice at most once per `NOTICE_QUIET_MS`. */
export function createNoticeLog(write: (line: string) => void, now: () => number = Date.now): (notice: Notice) => void {
  const seen = new Map<string, { printedAt: number; unprinted: number }>();
  return (notice) => {
    const key = `${notice.code}\u0000${notice.message}`;
    const at = now();
    const entry = seen.get(key);
    if (entry && at - entry.printedAt < NOTICE_QUIET_MS) {
      entry.unprinted++;
      return;
    }
    const repeats = entry ? entry.unprinted + 1 : 0;
    if (!entry && seen.size >= REMEMBERED) seen.clear();
    seen.set(key, { printedAt: at, unprinted: 0 });
    write(`[engram] ${notice.code}: ${notice.message}${repeats > 1 ? ` (${repeats} times since it was last printed)` : ''}`);
  };
}
