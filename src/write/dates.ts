/**
 * Dates in a message resolved against the time it was sent, so an atomic fact still means the same
 * thing when it is read a year later. chrono-node reads the phrases ("yesterday", "on March 3rd",
 * "in two weeks", "next Friday at 5pm"); the rules here add what it leaves out or reads otherwise
 * than people mean:
 * - "on the 14th": the next 14th (the last one in a sentence about the past), or the 14th of a
 *   month named in the same sentence ("next month … on the 14th");
 * - "in 2019": a year;
 * - "last/next/this week": a week (starting Monday), not the day seven days away;
 * - a bare weekday ("on Friday") looks back in a sentence about the past and ahead otherwise;
 * - "next Monday" said on a Sunday is the Monday after tomorrow's, not tomorrow;
 * - "a weekend in Austin", "the Sunday mass", "Happy Sunday!", "in 27 minutes", "a busy weekend" name no day, and
 *   in "the weekend of August 20th" or "the last week of February" the date after "of" does.
 * Dates are computed in UTC: a message timestamp carries no time zone.
 */
import * as chrono from 'chrono-node/en';
import * as ja from 'chrono-node/ja';
import * as zh from 'chrono-node/zh';

const DAY = 86_400_000;

/**
 * Whether chrono, configured with `parsers` and `refiners` alone, tags what it reads in `probe`
 * with `tag`: how a parser or refiner of chrono's is known by what it does. Not by its class name,
 * which a minifier renames: the library's bundle and the demo's are minified, and there a filter
 * by name kept the time-of-day parser, so a browser dated "tomorrow at 5pm" as one phrase where
 * Node dates "tomorrow", and wrote other facts.
 */
function tagsWith(configuration: Pick<chrono.Chrono, 'parsers' | 'refiners'>, probe: string, tag: string): boolean {
  return new chrono.Chrono(configuration).parse(probe, new Date(0)).some((r) => r.start.tags().has(tag));
}

/** Whether a chrono parser is its time-of-day parser: alone, it reads "10:30 pm" and tags the result. */
export function readsTimeOfDay(parser: chrono.Chrono['parsers'][number]): boolean {
  return tagsWith({ parsers: [parser], refiners: [] }, '10:30 pm', 'parser/ENTimeExpressionParser');
}

/**
 * chrono's casual English parser without its time-of-day parser ("at 5pm", "10:30"): a time names
 * no day, the dates are all that is kept, and that one parser is more than half of chrono's cost
 * per sentence. "tomorrow at 5pm" is still "tomorrow". Exported for the test that checks exactly
 * one parser went.
 */
export const english = (() => {
  const c = chrono.casual.clone();
  c.parsers = c.parsers.filter((p) => !readsTimeOfDay(p));
  return c;
})();

/**
 * `english` without chrono's "end of …" refiner ("the end of March", "last day of the month"),
 * for a text where it cannot act. For every date it reads, that refiner matches a pattern anchored
 * at the date against all the text before it, which costs the text's length per date: a message of
 * many dates took time growing with their square. It moves a date only when the words before it
 * end in "end of" or "last day of", so a text without either reads the same without it. Exported
 * for the test that checks it lacks exactly that refiner.
 */
export const englishNoEndOf = (() => {
  const c = english.clone();
  c.refiners = c.refiners.filter((r) => !tagsWith({ parsers: chrono.casual.parsers, refiners: [r] }, 'the end of March', 'refiner/ENEndOfPeriodRefiner'));
  return c;
})();
/** Words the "end of …" refiner looks for before a date (a superset of its own pattern). */
const END_OF = /(?:last\s+day|end)\s+of/i;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export type Precision = 'day' | 'week' | 'month' | 'year';

export interface ResolvedDate {
  /** The phrase as written. */
  phrase: string;
  /** Where the phrase starts and ends in the text. */
  index: number;
  end: number;
  /** The instant it names (the start of its day / week / month / year, UTC). */
  at: number;
  precision: Precision;
  /** The absolute date as a key: `2026-12-14`, `week of 2026-12-07`, `2026-12`, `2026`. */
  label: string;
}

/** `YYYY-MM-DD` of an epoch-ms instant (UTC). */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

function startOfWeek(ms: number): number {
  const d = startOfDay(ms);
  return d - ((new Date(d).getUTCDay() + 6) % 7) * DAY; // Monday-based weeks
}

function label(at: number, precision: Precision): string {
  if (precision === 'day') return isoDate(at);
  if (precision === 'week') return `week of ${isoDate(at)}`;
  if (precision === 'month') return isoDate(at).slice(0, 7);
  return isoDate(at).slice(0, 4);
}

/** The date as a person writes it after a preposition of their own: "2026-12-14", "December 2026", "the week of 2026-12-07". */
export function bareDate(date: Pick<ResolvedDate, 'at' | 'precision'>): string {
  const d = new Date(date.at);
  if (date.precision === 'day') return isoDate(date.at);
  if (date.precision === 'week') return `the week of ${isoDate(date.at)}`;
  if (date.precision === 'month') return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  return String(d.getUTCFullYear());
}

/** The date as a person writes it in a sentence: "on 2026-12-14", "in December 2026". */
export function spoken(date: Pick<ResolvedDate, 'at' | 'precision'>): string {
  return `${date.precision === 'day' ? 'on' : 'in'} ${bareDate(date)}`;
}

function make(text: string, index: number, phrase: string, at: number, precision: Precision): ResolvedDate | null {
  if (!Number.isFinite(at) || Math.abs(at) > 8.64e15) return null;
  return { phrase, index, end: index + phrase.length, at, precision, label: label(at, precision) };
}

/** Words before a number that make it a date ("on 5/12", "due 3/4"), where alone it is a quantity. */
const DATE_LEAD_WORDS = 'on|by|until|till|since|from|due|before|after|through|thru';
const DATE_LEAD = new RegExp(`\\b(?:${DATE_LEAD_WORDS})\\s*$`, 'i');

/**
 * Whether a text may name a date: a number shaped like one (a year, "14th", "2023-05-20",
 * "3/4/2021", "on 5/12", "5pm"), a month or weekday, or a word of relative time with what makes
 * it a time ("last week", "two months ago", "in a few days"). Any other number ("5 kilometres",
 * "1/2 cup", "24/7", "1-2 hours", "3.5") and a bare unit ("for years") or the modal "may" are no
 * reason to run the full parse ("May" capitalised inside a sentence is).
 */
const MAYBE_DATE = new RegExp(
  [
    /\bend of (?:the |this |next )?(?:week|month|year)\b/.source,
    /\b(?:1[89]|2[01])\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)/.source,
    // Numeric dates: with a year, or a day and month after a word that makes them one.
    /\b\d{4}[/.-]\d{1,2}[/.-]\d{1,2}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{4}\b|\b\d{1,2}\/\d{1,2}\/\d{2}\b/.source,
    `\\b\\d{1,2}[/.-]\\d{1,2}\\b(?<=\\b(?:${DATE_LEAD_WORDS})\\s+\\d{1,2}[/.-]\\d{1,2})`,
    /\b(?:january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tonight|tomorrow|yesterday|weekend|fortnight|christmas|easter|noon|midnight|ago|(?:this|last|tomorrow|yesterday)\s+(?:morning|afternoon|evening|night))\b/.source,
    // A unit of time with a word that places or counts it ("next month", "two weeks", "a few days
    // later"), looked behind from the unit: a word-by-word look for the lead costs more than the parse saves.
    /\b(?:days|weeks?|months?|years?)\b(?:(?<=\b(?:last|next|this|past|coming|following|previous|few|couple|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|several|\d+)\s+(?:of\s+)?\w+)|(?=\s+(?:later|earlier|before|after|from)\b))/.source,
  ].join('|'),
  'i',
);
/** A day and month in figures with no year ("5/12", "24/7", "1-2"): a date only after a word like "on". */
const BARE_NUMERIC = /^\d{1,2}[/.-]\d{1,2}$/;
/** Figures with a two-digit year and dashes or dots ("24-8-16"): a code or a ratio, not a date. */
const DASHED_SHORT_YEAR = /^\d{1,2}([.-])\d{1,2}\1\d{2}$/;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_DATE = /[今明昨前后後来去上下本]|[日月年周週]|\d/u;
/**
 * Words of a sentence about the past. "I remember going to Universal Studios in March", "back when
 * we lived in Ohio": a memory is told in the present tense, so remembering, recalling and "back
 * when" count too.
 */
const PAST = /\b(was|were|did|had|went|ago|last|yesterday|used to|been|met|saw|came|took|got|made|ran|left|bought|found|told|said|thought|felt|gave|began|wrote|flew|drove|ate|spent|lost|won|sent|kept|paid|heard|sat|caught|brought|taught|fell|knew|became|slept|swam|sang|rode|chose|broke|forgot|threw)\b|\b\w{3,}ed\b|\b(?:remember|recall)(?:ing)? (?:\w+ )?\w{2,}ing\b|\b(?:remember|recall) when\b|\bback (?:when|then)\b/i;
const WEEK = /\b(last|next|this|the following) week\b/i;
/** "下周" / "来週" (next week), "上周" / "先週" (last week), "这周" / "今週" (this week). */
const CJK_WEEK = /(下|上|这|這|本|今|来|來|先)(?:个|個)?(周|週|星期|礼拜|禮拜)(?![一二三四五六日天1-7])/gu;
const CJK_WEEK_SHIFT: Record<string, number> = { 下: 7, 来: 7, 來: 7, 上: -7, 先: -7, 这: 0, 這: 0, 本: 0, 今: 0 };
/** How many characters either side of a date phrase the checks on its context read. */
const AROUND = 40;
/** Words before a month name that make it a date ("in June", "since March", "early May"). */
const MONTH_LEAD = /\b(?:in|on|since|by|until|till|from|during|through|before|after|next|last|this|coming|early|late|mid|of|to|and|or|between)\s*$/i;
/** A length of time shorter than a day ("27 minutes", "two hours"), with no word that names a day. */
const SUB_DAY = /^(?!.*\b(?:today|tonight|tomorrow|yesterday|morning|afternoon|evening|night|day|days|week|weeks|month|months|year|years|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|august|september|october|november|december)\b).*\b(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)\b/i;
/** A unit of time with nothing that places it but a date after it ("weekend", "the last week"). */
const UNIT_ONLY = /^(?:the\s+)?(?:(?:this|last|next|first|second|third|fourth|final)\s+)?(?:weekend|week|month)$/i;
/** Days of the month listed before another ("the 3rd, 4th and ", "the 12th or the "), up to where it starts. */
const ORDINALS_BEFORE = /(?:\b(?:the )?\d{1,2}(?:st|nd|rd|th)(?:,? (?:and|or|to) (?:the )?|, (?:the )?| ?[-–&] ?(?:the )?))+$/i;
/** What follows a unit that the date after it places ("… of August 20th", "… of February"). */
const OF_DATE = /^\s+of\s+(?:the\s+)?(?:\d|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)/i;
/** A time of day alone ("midnight", "at noon"): no day is named, and "the midnight sun" is none. */
const TIME_WORD_ONLY = /^(?:at\s+)?(?:midnight|noon|midday)$/i;
const WEEKDAY_ONLY = /^(?:on )?(?:this |next |last |coming )?(mon|tues|wednes|thurs|fri|satur|sun)day$/i;

/**
 * Every date in `text`, resolved against `now` (epoch ms), in order of appearance. `tense` (true: past) says the
 * sentence speaks of the past (it decides which way a bare weekday or day of the month looks);
 * without it the tense is guessed from the words.
 */
export function findDates(text: string, now: number, tense?: boolean): ResolvedDate[] {
  // Most sentences name no date; a cheap look for a date word spares them the full parse.
  if (!MAYBE_DATE.test(text) && !/\S\s+May\b|\bMay\s+\d/.test(text) && !(CJK.test(text) && CJK_DATE.test(text))) return [];
  const past = tense ?? PAST.test(text);
  const found: ResolvedDate[] = [];
  // Which characters a date already found holds: a phrase over any of them is not read again.
  // Looked up by the phrase's own characters, not by every date found so far, which cost the
  // number of dates per date on a text of many.
  const covered = new Uint8Array(text.length);
  const taken = (start: number, end: number) => {
    for (let i = start; i < end; i++) if (covered[i]) return true;
    return false;
  };
  /** The first date of month precision found ("next month … on the 14th" reads its day in it). */
  let firstMonth: ResolvedDate | undefined;
  const add = (d: ResolvedDate | null) => {
    if (!d || taken(d.index, d.end)) return;
    found.push(d);
    covered.fill(1, d.index, d.end);
    if (d.precision === 'month') firstMonth ??= d;
  };
  const today = startOfDay(now);

  for (const m of text.matchAll(/\b(?:(?:in|since|by|from|of|during) )((?:19|20)\d{2})\b(?![-/:\d])/gi)) {
    const year = Number(m[1]);
    add(make(text, m.index + m[0].length - m[1]!.length, m[1]!, Date.UTC(year, 0, 1), 'year'));
  }
  for (const m of text.matchAll(new RegExp(WEEK.source, 'gi'))) {
    // "the last week of February" is February's; "this week's plan" is a noun's, as for chrono's phrases below.
    const next = text.slice(m.index + m[0].length, m.index + m[0].length + AROUND);
    if (OF_DATE.test(next) || /^['’]s\b/.test(next)) continue;
    const which = m[1]!.toLowerCase();
    const shift = which === 'last' ? -7 : which === 'this' ? 0 : 7;
    add(make(text, m.index, m[0], startOfWeek(now + shift * DAY), 'week'));
  }
  if (CJK.test(text)) {
    for (const m of text.matchAll(CJK_WEEK)) add(make(text, m.index, m[0], startOfWeek(now + CJK_WEEK_SHIFT[m[1]!]! * DAY), 'week'));
  }

  let results: chrono.ParsedResult[];
  try {
    const reference = { instant: new Date(now), timezone: 0 };
    results = !CJK.test(text) ? (END_OF.test(text) ? english : englishNoEndOf).parse(text, reference) : KANA.test(text) ? ja.parse(text, reference) : zh.parse(text, reference);
  } catch {
    results = []; // a phrase chrono cannot read is a phrase without a date, never a lost message
  }
  for (const r of results) {
    const start = r.start;
    // chrono keeps a comma after a weekday ("on Friday, after work"): the phrase ends before it, so
    // the checks below read the phrase itself and the label goes after the words, not the comma.
    const said = r.text.replace(/[\s,;:]+$/u, '');
    const partOfDay = /\b(?:this|last|tomorrow|yesterday) (?:morning|afternoon|evening|night)\b|\btonight\b|[今昨明]晚/i.test(said);
    if (!partOfDay && !start.isCertain('day') && !start.isCertain('month') && !start.isCertain('weekday') && !start.isCertain('year')) continue; // a time of day alone
    // The few words around the phrase, for the checks below that read them (a bounded window: a
    // long text with many dates must not be re-read from its start for each one).
    const before = text.slice(Math.max(0, r.index - AROUND), r.index);
    const after = text.slice(r.index + said.length, r.index + said.length + AROUND);
    if ((/\bfor\s*$/i.test(before) || /^for\b/i.test(said)) && !/\b(?:the|this|next|last)\b/i.test(said)) continue; // "for two weeks" is a duration
    if (/^(now|right now|today'?s?)$/i.test(said) && !/today/i.test(said)) continue;
    if (TIME_WORD_ONLY.test(said.trim())) continue;
    // "today's conflicts", "yesterday's game": a date phrase that modifies a noun stays as said.
    if (/^['’]s\b/.test(after)) continue;
    // "my weekend was quiet", "his last day is next Friday": after a possessive the phrase is a noun
    // ("her" is left out: "lunch with her last Friday" is a date).
    if (/\b(?:my|your|his|our|their|its)\s+$/i.test(before)) continue;
    // "every Sunday", "on Thursdays", "Thursday evenings" repeat; they name no one day.
    if (/\b(?:every|each)\s*$/i.test(before) || /^(?:s|\s+(?:mornings|afternoons|evenings|nights|weekends))\b/i.test(after)) continue;
    // "the Sunday mass", "the Friday meeting": a weekday after "the" names a kind of thing, not a day.
    if (WEEKDAY_ONLY.test(said) && /\bthe\s+$/i.test(before)) continue;
    // "Happy Sunday!": a greeting on the day itself, no day of an event (read as a bare weekday,
    // it was dated a week ahead).
    if (WEEKDAY_ONLY.test(said) && /\bhappy\s+$/i.test(before)) continue;
    // "a weekend in Austin", "on a Saturday": one of many, no particular day.
    if (/\b(?:a|an)\s+$/i.test(before)) continue;
    // "in 27 minutes and 42 seconds", "for two hours": a length of time under a day names no day.
    if (SUB_DAY.test(said) && !/\bago\b/i.test(said)) continue;
    // "the weekend of August 20th": the unit is placed by the date after it, which is read on its own.
    if (UNIT_ONLY.test(said) && OF_DATE.test(after)) continue;
    // "a pretty active weekend", "a long weekend": a bare "weekend" is a date only where a word places it.
    if (/^weekend$/i.test(said) && !/\b(?:the|this|on|over|at|during|for|until|till|by|since|before|after)\s+$/i.test(before)) continue;
    // Figures read as a date only where a person writes one: "on 5/12", "3/4/2021", not "1/2 cup" or "open 24/7".
    const phrase = said.trim();
    if ((BARE_NUMERIC.test(phrase) && !DATE_LEAD.test(before)) || DASHED_SHORT_YEAR.test(phrase)) continue;
    // A weekday's abbreviation in lower case is a word ("the midnight sun", "a wed"), not a day.
    if (/\b(?:sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)\b/.test(said)) continue;
    // A month named with nothing that dates it is the month in general ("June has the midnight sun").
    if (!CJK.test(text) && /^[A-Za-z]+\.?$/.test(said.trim()) && start.isCertain('month') && !start.isCertain('day') && !start.isCertain('year') && !MONTH_LEAD.test(before)) continue;
    let at = startOfDay(start.date().getTime());
    let precision: Precision = 'day';
    if (!partOfDay && !start.isCertain('day') && !start.isCertain('weekday')) precision = start.isCertain('month') ? 'month' : 'year';
    if (precision === 'month') at = Date.UTC(new Date(at).getUTCFullYear(), new Date(at).getUTCMonth(), 1);
    if (precision === 'year') at = Date.UTC(new Date(at).getUTCFullYear(), 0, 1);
    if (precision !== 'year' && start.isCertain('month') && !start.isCertain('year')) {
      // A month with no year looks ahead in a sentence about the future or present ("we move in
      // June", said in November, is next June) and back in one about the past.
      const d = new Date(at);
      const shifted = (years: number) => Date.UTC(d.getUTCFullYear() + years, d.getUTCMonth(), precision === 'month' ? 1 : d.getUTCDate());
      const thisMonth = Date.UTC(new Date(today).getUTCFullYear(), new Date(today).getUTCMonth(), 1);
      if (!past && (precision === 'month' ? at < thisMonth : at < today)) at = shifted(1);
      else if (past && at > today) at = shifted(-1);
    }
    if (WEEKDAY_ONLY.test(said.trim())) {
      const which = /\b(this|next|last|coming)\b/i.exec(said)?.[1]?.toLowerCase();
      if (!which) {
        // A bare weekday looks back in a sentence about the past and ahead otherwise.
        // Said on that very weekday, "on Monday" means a week away (today would be "today").
        if (past && at >= today) at -= 7 * DAY;
        if (!past && at <= today) at += 7 * DAY;
      } else if (which === 'next' && at - today <= DAY) {
        at += 7 * DAY; // "next Monday" said on a Sunday: people mean the Monday after tomorrow's
      }
    }
    add(make(text, r.index, said, at, precision));
  }

  // "the 3rd and 4th of May", "the 3rd, 4th and 5th of June": the days listed before a day of a
  // named month are days of that month (read alone, "the 3rd" went to this month's 3rd).
  for (const d of [...found]) {
    if (d.precision !== 'day' || !/^\d{1,2}(?:st|nd|rd|th) of\b/i.test(d.phrase)) continue;
    const list = ORDINALS_BEFORE.exec(text.slice(Math.max(0, d.index - AROUND), d.index));
    if (!list) continue;
    const from = d.index - list[0].length;
    const month = new Date(d.at);
    for (const m of list[0].matchAll(/\b(?:the )?(\d{1,2})(?:st|nd|rd|th)\b/gi)) {
      const at = Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), Number(m[1]));
      if (new Date(at).getUTCDate() === Number(m[1])) add(make(text, from + m.index, m[0], at, 'day'));
    }
  }

  // "on the 14th": the day of a month named in the sentence, else the next (or last) such day.
  for (const m of text.matchAll(/\b(?:on )?the (\d{1,2})(?:st|nd|rd|th)\b(?! of\b)/gi)) {
    const day = Number(m[1]);
    if (day < 1 || day > 31) continue;
    const base = new Date(firstMonth ? firstMonth.at : today);
    let at = Date.UTC(base.getUTCFullYear(), base.getUTCMonth(), day);
    if (!firstMonth) {
      if (!past && at < today) at = Date.UTC(base.getUTCFullYear(), base.getUTCMonth() + 1, day);
      if (past && at > today) at = Date.UTC(base.getUTCFullYear(), base.getUTCMonth() - 1, day);
    }
    if (new Date(at).getUTCDate() !== day) continue; // "the 31st" of a 30-day month
    add(make(text, m.index, m[0], at, 'day'));
  }
  return found.sort((a, b) => a.index - b.index);
}

/**
 * The text with each date phrase followed by its absolute date: "yesterday (2026-11-28)". Each
 * sentence is read for its own tense: in "You should come on Saturday. My students worked hard."
 * the Saturday is the coming one.
 */
export function annotateDates(text: string, now: number): string {
  let out = '';
  let last = 0;
  let from = 0;
  for (const gap of [...text.matchAll(/(?<=[.!?])\s+|\n+/g), null]) {
    const to = gap ? gap.index : text.length;
    for (const d of findDates(text.slice(from, to), now)) {
      if (d.label === d.phrase) continue;
      out += `${text.slice(last, from + d.end)} (${d.label})`;
      last = from + d.end;
    }
    if (gap) from = gap.index + gap[0].length;
  }
  return out + text.slice(last);
}
