/**
 * What a 422 may say back. FastAPI echoes each offending `input` in full; a request can make
 * that echo huge (a 16 kB query, a 6 MB filter list that yields millions of issues) or
 * impossible to serialise (10,000 nested arrays, a cycle or a BigInt handed in through the
 * in-process API). Every validation detail passes through here, once, when its error is built:
 * the echo keeps the shape of what was sent (short strings whole, the first entries of lists and
 * objects, a few levels deep) and marks every cut, so the answer stays small and rendering it
 * can never throw. Everything here is iterative or depth-bounded and reads no more of a value
 * than it echoes.
 */
import { setOwn } from '../own-keys.js';

/** One issue of a 422, FastAPI's shape: where (`loc`), what (`msg`, `type`), the input echoed, and its bounds (`ctx`). */
export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** Characters of an echoed string kept before the cut marker. */
export const ECHO_STRING_CHARS = 200;
/** Entries of an echoed list or object kept before the cut marker. */
export const ECHO_ENTRIES = 8;
/** Levels of nesting echoed; deeper containers become a one-line description. */
export const ECHO_DEPTH = 3;
/** Validation details listed in one 422; the rest are summed up in one `too_many_errors` entry. */
export const MAX_REPORTED_ISSUES = 50;
/** Characters of a key (in `loc` or an echoed object) kept: field names are short, a client's keys need not be. */
const KEY_CHARS = 64;
/** Characters of a `msg` kept (messages quote field and operator names the client chose). */
const MSG_CHARS = 300;
// Characters an echo may spend on strings and keys in all, so that one detail stays well under a kilobyte.
const ECHO_CHARS = 500;

/**
 * A string cut to `keep` characters (never inside a surrogate pair) with a marker saying how much
 * was left out. A string up to 40 characters over is kept whole, so clipping a clip changes nothing.
 */
export function clipText(text: string, keep = ECHO_STRING_CHARS): string {
  if (text.length <= keep + 40) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(keep - 1)) ? keep - 1 : keep;
  return `${text.slice(0, end)}…(+${text.length - end} chars)`;
}

const describe = (value: object): string => {
  try {
    if (Array.isArray(value)) return `[list of ${value.length} items]`;
    return `{object with ${Object.keys(value).length} keys}`;
  } catch {
    return '[unreadable value]';
  }
};

/** A JSON-safe, bounded copy of any value, for a 422's `input` or `ctx`. Never throws. */
export function echoInput(value: unknown): unknown {
  let left = ECHO_CHARS;
  const spend = (text: string, keep = ECHO_STRING_CHARS): string => {
    const out = clipText(text, Math.max(16, Math.min(keep, left)));
    left -= out.length;
    return out;
  };
  const echo = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case 'string':
        return spend(v);
      case 'number':
        left -= 8;
        // JSON has no NaN or Infinity: say what it was rather than let it turn into null.
        return Number.isFinite(v) ? v : String(v);
      case 'boolean':
        left -= 5;
        return v;
      case 'bigint':
        return spend(`${v}n`);
      case 'undefined':
        return null;
      case 'symbol':
      case 'function':
        left -= 10;
        return `[${typeof v}]`;
    }
    if (v === null) return null;
    const container = v as object;
    if (depth >= ECHO_DEPTH || left <= 0) return describe(container);
    try {
      if (Array.isArray(container)) {
        const keep = Math.min(container.length, ECHO_ENTRIES);
        const out: unknown[] = [];
        for (let i = 0; i < keep && left > 0; i++) out.push(echo(container[i], depth + 1));
        if (out.length < container.length) out.push(`…(+${container.length - out.length} items)`);
        return out;
      }
      const out: Record<string, unknown> = {};
      let seen = 0;
      let total = 0;
      // for…in stops early without listing every key of a huge object.
      for (const key in container) {
        if (!Object.prototype.hasOwnProperty.call(container, key)) continue;
        total += 1;
        if (seen < ECHO_ENTRIES && left > 0) {
          seen += 1;
          setOwn(out, spend(key, KEY_CHARS), echo((container as Record<string, unknown>)[key], depth + 1));
        } else if (total > ECHO_ENTRIES + 1) break;
      }
      if (total > seen) out['…'] = total > ECHO_ENTRIES + 1 ? 'more keys' : `+${total - seen} keys`;
      return out;
    } catch {
      return '[unreadable value]';
    }
  };
  try {
    return echo(value, 0);
  } catch {
    return '[unreadable value]';
  }
}

/** One detail made safe to render: loc segments and msg clipped, input and ctx echoed. */
function boundedDetail(detail: ValidationDetail): ValidationDetail {
  const loc = Array.isArray(detail.loc)
    ? detail.loc.slice(0, 40).map((part) => (typeof part === 'number' ? part : clipText(String(part), KEY_CHARS)))
    : ['body'];
  const out: ValidationDetail = { loc, msg: clipText(String(detail.msg), MSG_CHARS), type: clipText(String(detail.type), KEY_CHARS) };
  if ('input' in detail && detail.input !== undefined) out.input = echoInput(detail.input);
  if (detail.ctx !== undefined) out.ctx = echoInput(detail.ctx) as Record<string, unknown>;
  return out;
}

// What stands for a detail that cannot be read.
const UNREADABLE: ValidationDetail = { loc: ['body'], msg: 'Invalid request', type: 'value_error' };

// Lists this module built: bounding one again returns it as it is.
const bounded = new WeakSet<readonly ValidationDetail[]>();

/**
 * The details of a 422 as they may be rendered: at most `MAX_REPORTED_ISSUES`, each bounded,
 * then one `too_many_errors` entry when there were more. A list it built comes back unchanged,
 * so a host may bound whatever it renders; it never throws.
 */
export function boundedDetails(details: readonly ValidationDetail[]): ValidationDetail[] {
  if (bounded.has(details)) return details as ValidationDetail[];
  const out: ValidationDetail[] = [];
  let length = 0;
  try {
    length = details.length;
  } catch {
    // Not a list that can be read (a hostile proxy): say no more than that the request is invalid.
  }
  const count = Math.min(length, MAX_REPORTED_ISSUES);
  for (let i = 0; i < count; i++) {
    try {
      out.push(boundedDetail(details[i]!));
    } catch {
      out.push(UNREADABLE);
    }
  }
  if (out.length === 0) out.push(UNREADABLE);
  if (length > MAX_REPORTED_ISSUES) {
    out.push({
      loc: ['body'],
      msg: `Too many errors: only the first ${MAX_REPORTED_ISSUES} are listed`,
      type: 'too_many_errors',
      ctx: { limit: MAX_REPORTED_ISSUES },
    });
  }
  bounded.add(out);
  return out;
}
