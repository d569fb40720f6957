/**
 * Relative dates ("yesterday", "next Friday", "3 weeks ago") resolved against the time a message
 * was sent, so an atomic fact still means the same thing when it is read a year later. Dates are
 * computed in UTC: a message timestamp carries no time zone.
 */

const DAY = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, couple: 2, few: 3 };

/** `YYYY-MM-DD` of an epoch-ms instant (UTC). */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function isoMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.getTime();
}

function startOfWeek(ms: number): number {
  const d = new Date(ms);
  const offset = (d.getUTCDay() + 6) % 7; // Monday-based weeks
  return ms - offset * DAY;
}

export interface ResolvedDate {
  /** The matched phrase as written. */
  phrase: string;
  /** The absolute date it names, as text to show (a day, a week, a month or a year). */
  label: string;
  /** The instant it names (start of the day / week / month / year). */
  at: number;
}

type Rule = { pattern: RegExp; resolve: (m: RegExpExecArray, now: number) => { label: string; at: number } | null };

/** "3", "three", "a", "a couple of", "a few" → a number (1 when unreadable, never NaN). */
function count(phrase: string): number {
  const word = phrase.toLowerCase().replace(/^an? (couple|few)(?: of)?$/, '$1');
  const n = NUMBERS[word] ?? Number(word);
  return Number.isFinite(n) ? n : 1;
}

function shift(unit: string, n: number, now: number): { label: string; at: number } | null {
  if (Math.abs(n) > 1000) return null;
  const u = unit.toLowerCase().replace(/s$/, '');
  if (u === 'day') return { label: isoDate(now + n * DAY), at: now + n * DAY };
  if (u === 'week') {
    const at = startOfWeek(now + n * 7 * DAY);
    return { label: `week of ${isoDate(at)}`, at };
  }
  if (u === 'month') {
    const at = addMonths(now, n);
    return { label: isoMonth(at), at };
  }
  const year = new Date(now).getUTCFullYear() + n;
  return { label: String(year), at: Date.UTC(year, 0, 1) };
}

const RULES: Rule[] = [
  { pattern: /\bthe day before yesterday\b/gi, resolve: (_m, now) => ({ label: isoDate(now - 2 * DAY), at: now - 2 * DAY }) },
  { pattern: /\bthe day after tomorrow\b/gi, resolve: (_m, now) => ({ label: isoDate(now + 2 * DAY), at: now + 2 * DAY }) },
  { pattern: /\byesterday\b/gi, resolve: (_m, now) => ({ label: isoDate(now - DAY), at: now - DAY }) },
  { pattern: /\btomorrow\b/gi, resolve: (_m, now) => ({ label: isoDate(now + DAY), at: now + DAY }) },
  { pattern: /\b(today|tonight|this (?:morning|afternoon|evening))\b/gi, resolve: (_m, now) => ({ label: isoDate(now), at: now }) },
  {
    pattern: /\b(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few) (days?|weeks?|months?|years?) ago\b/gi,
    resolve: (m, now) => shift(m[2]!, -count(m[1]!), now),
  },
  {
    pattern: /\bin (\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few) (days?|weeks?|months?|years?)\b/gi,
    resolve: (m, now) => shift(m[2]!, count(m[1]!), now),
  },
  { pattern: /\b(last|next|this) (week|month|year)\b/gi, resolve: (m, now) => shift(m[2]!, m[1]!.toLowerCase() === 'last' ? -1 : m[1]!.toLowerCase() === 'next' ? 1 : 0, now) },
  {
    pattern: /\b(last|next|this|on) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/gi,
    resolve: (m, now) => {
      const target = WEEKDAYS.indexOf(m[2]!.toLowerCase());
      const today = new Date(now).getUTCDay();
      let diff = target - today;
      const which = m[1]!.toLowerCase();
      if (which === 'last') diff = diff >= 0 ? diff - 7 : diff;
      else if (which === 'next') diff = diff <= 0 ? diff + 7 : diff;
      else if (diff < 0) diff += 7; // "this/on Friday" means the coming one
      const at = now + diff * DAY;
      return { label: isoDate(at), at };
    },
  },
];

/** Every relative date phrase in `text`, resolved against `now` (epoch ms). */
export function findRelativeDates(text: string, now: number): ResolvedDate[] {
  const found: (ResolvedDate & { index: number })[] = [];
  const taken: [number, number][] = [];
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (let m = rule.pattern.exec(text); m; m = rule.pattern.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      const resolved = rule.resolve(m, now);
      if (!resolved || !Number.isFinite(resolved.at) || Math.abs(resolved.at) > 8.64e15) continue;
      taken.push([start, end]);
      found.push({ phrase: m[0], index: start, ...resolved });
    }
  }
  return found.sort((a, b) => a.index - b.index).map(({ index: _index, ...rest }) => rest);
}

/** The text with each relative date followed by its absolute date: "yesterday (2026-11-28)". */
export function annotateDates(text: string, now: number): string {
  let out = text;
  for (const date of findRelativeDates(text, now)) {
    out = out.replace(date.phrase, `${date.phrase} (${date.label})`);
  }
  return out;
}
