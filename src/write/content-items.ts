/**
 * Content items of `add` messages: what a message may carry besides its text, checked before
 * anything is written and turned into what the memory keeps.
 *
 * A message's `content` is a string or a list of items. Each item has a `type`:
 * - `text`: `{type: 'text', text}`.
 * - `image`, `audio`, `doc`, `pdf`: the bytes by `uri` (any reference the app can resolve again)
 *   or inline as `base64` with a `mime_type` (a `data:` URI counts as inline), plus optional `name`,
 *   and the words that make it findable: `caption` / `alt` for an image, `transcript` for audio,
 *   `text` for any of them. A `doc` (plain text, Markdown, HTML) or `pdf` sent inline has its text
 *   extracted on the device (see `documents/`), page or section by page or section.
 * - `image_url` (the OpenAI chat shape, `{type: 'image_url', image_url: {url} | url}`) is an image by URI.
 *
 * Malformed items are the contract's 422 (`detail[]`, with the item's `loc`); a type or MIME type
 * Engram cannot keep is 415 `UNSUPPORTED_CONTENT_TYPE`. Inline bytes are bounded per item and per
 * request (after base64 decoding). The bytes are kept once: in the buffered message until its
 * segment is extracted, then on the owner's episode (`media`), while every derived record carries
 * only a reference (`ItemRef`: type, MIME type, size, SHA-256, URI, name, page or section).
 */
import { createError, type ValidationDetail } from '../errors.js';
import { INVALID, issue, isFull, withSchema, type Check, type Loc } from '../contract/schema.js';
import { MAX_JSON_DEPTH, measureJson } from '../contract/json-bounds.js';

export const MEDIA_TYPES = ['image', 'audio', 'doc', 'pdf'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
/** Decoded bytes one inline item may hold. */
export const MAX_ITEM_BYTES = 5 * 1024 * 1024;
/** Decoded bytes of all inline items of one `add` (the HTTP body limit is 10 MB of base64). */
export const MAX_REQUEST_ITEM_BYTES = 7 * 1024 * 1024;
/** Characters of a caption, alt text, transcript or an item's own text. */
export const MAX_ITEM_TEXT = 100_000;
export const MAX_URI_LENGTH = 4096;
/** Items of one message. */
export const MAX_ITEMS_PER_MESSAGE = 100;
/** Bytes of JSON a message's item list may hold besides its inline payloads. */
export const MAX_ITEMS_JSON_BYTES = 262_144;

const DOC_MIME = ['text/plain', 'text/markdown', 'text/x-markdown', 'text/html', 'application/xhtml+xml'];
const PDF_MIME = 'application/pdf';

/** The reference every record derived from an item carries: enough for an app to show or fetch it, never its bytes. */
export interface ItemRef {
  type: MediaType;
  /** The MIME type; `image/*`, `audio/*` or `text/*` for an item known by URI alone whose subtype was not given. */
  mime_type: string;
  /** Bytes, when known: inline bytes are counted, a URI's are the caller's `size` or unknown. */
  size: number | null;
  /** SHA-256 (hex) of the inline bytes; null for an item known only by its URI. */
  sha256: string | null;
  uri?: string;
  name?: string;
  /** Where the words that made it findable came from. */
  text_source: 'caption' | 'alt' | 'transcript' | 'text' | 'extracted' | 'generated_caption' | 'none';
  /** The 1-based page (PDF) or the heading (Markdown, HTML) a fact's words come from; only on facts. */
  page?: number;
  section?: string;
}

/** What a buffered message keeps per non-text item: the reference, and where its extracted text lies. */
export interface StoredItemRef extends ItemRef {
  /** Position of the item in the message's content list. */
  index: number;
  /** Spans of the item's text per page or section (offsets into the item's `text`). */
  sections?: TextSection[];
  /** Why an item's text could not be extracted (the item is kept; the message is not refused). */
  notice?: string;
}

export interface TextSection {
  page?: number;
  section?: string;
  start: number;
  end: number;
}

/** A media item after the synchronous checks: what `prepare` needs to hash, extract and keep it. */
export interface CheckedItem {
  index: number;
  type: MediaType;
  mime_type: string;
  uri?: string;
  /** The inline payload (base64, without a data-URI prefix). */
  base64?: string;
  size: number | null;
  name?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DATA_URI = /^data:([^;,]*)(?:;[^,]*)?;base64,/i;
const MIME = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** Bytes a base64 string decodes to (the string has been checked against the alphabet). */
const decodedSize = (b64: string) => Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);

/** The text of one item that search sees: its own text, then its caption, alt text or transcript. */
export function itemText(item: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of ['text', 'content', 'caption', 'alt', 'transcript', 'generated_caption']) {
    const value = item[key];
    if (typeof value === 'string' && value.trim()) parts.push(value);
    if (key === 'content' && parts.length) break; // a text item's `content` is its text, not more of it
  }
  return parts.join('\n');
}

/** The type an item is kept as; undefined for a text item. Throws 415 for a type Engram cannot keep. */
function mediaTypeOf(raw: Record<string, unknown>, loc: Loc): MediaType | 'text' | undefined {
  const type = raw['type'];
  if (type === undefined) return typeof raw['text'] === 'string' || typeof raw['content'] === 'string' ? 'text' : undefined;
  if (typeof type !== 'string') return undefined;
  if (type === 'text') return 'text';
  if (type === 'image_url') return 'image';
  if ((MEDIA_TYPES as readonly string[]).includes(type)) return type as MediaType;
  throw unsupported(loc, `content items of type '${type}' are not supported; use text, image, audio, doc or pdf`, { type });
}

function unsupported(loc: Loc, message: string, details: Record<string, unknown>) {
  return createError('UNSUPPORTED_CONTENT_TYPE', { message, details: { loc, ...details } });
}

/** Whether a MIME type is one Engram keeps for the item type; `doc` may also name a PDF. */
function mimeFits(type: MediaType, mime: string): boolean {
  if (mime === 'text/*') return type === 'doc';
  if (type === 'image') return mime.startsWith('image/');
  if (type === 'audio') return mime.startsWith('audio/');
  if (type === 'pdf') return mime === PDF_MIME;
  return DOC_MIME.includes(mime) || mime === PDF_MIME;
}

/** The MIME type implied when none is given: a PDF is a PDF; a doc by name or inline text is guessed from its extension. */
function impliedMime(type: MediaType, name: string | undefined, uri: string | undefined): string | undefined {
  if (type === 'pdf') return PDF_MIME;
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(name ?? uri ?? '')?.[1]?.toLowerCase();
  const byExt: Record<string, string> = {
    md: 'text/markdown', markdown: 'text/markdown', txt: 'text/plain', html: 'text/html', htm: 'text/html', pdf: PDF_MIME,
    png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', svg: 'image/svg+xml',
    wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg', m4a: 'audio/mp4', webm: 'audio/webm', flac: 'audio/flac',
  };
  // Own keys only: a name ending ".constructor" has no type (an object's inherited properties are no extensions).
  return ext && Object.hasOwn(byExt, ext) ? byExt[ext] : undefined;
}

function optionalText(raw: Record<string, unknown>, key: string, loc: Loc, issues: ValidationDetail[], max = MAX_ITEM_TEXT): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return void issue(issues, [...loc, key], 'string_type', 'Input should be a valid string', value);
  if (value.length > max) return void issue(issues, [...loc, key], 'string_too_long', `String should have at most ${max} characters`, undefined, { max_length: max });
  return value;
}

/**
 * One media item's synchronous checks: a reference or inline bytes, a MIME type that fits its
 * type, sizes within bounds. Pushes 422 issues; throws 415 for what cannot be kept.
 */
function checkMedia(raw: Record<string, unknown>, type: MediaType, index: number, loc: Loc, issues: ValidationDetail[]): CheckedItem | undefined {
  const before = issues.length;
  const name = optionalText(raw, 'name', loc, issues, 256);
  for (const key of ['caption', 'alt', 'transcript', 'text']) optionalText(raw, key, loc, issues);
  let uri: string | undefined;
  let base64: string | undefined;
  let mime = optionalText(raw, 'mime_type', loc, issues, 255)?.toLowerCase();
  const imageUrl = raw['image_url'];
  const rawUri = raw['uri'] ?? raw['url'] ?? (isObject(imageUrl) ? imageUrl['url'] : imageUrl);
  const uriKey = raw['uri'] !== undefined ? 'uri' : raw['url'] !== undefined ? 'url' : 'image_url';
  if (rawUri !== undefined && rawUri !== null) {
    if (typeof rawUri !== 'string' || rawUri.length === 0) issue(issues, [...loc, uriKey], 'string_type', 'Input should be a non-empty string', rawUri);
    else {
      const data = DATA_URI.exec(rawUri);
      if (data) {
        base64 = rawUri.slice(data[0].length);
        mime ??= data[1]?.toLowerCase() || undefined;
      } else if (rawUri.length > MAX_URI_LENGTH) issue(issues, [...loc, uriKey], 'string_too_long', `String should have at most ${MAX_URI_LENGTH} characters`, undefined, { max_length: MAX_URI_LENGTH });
      else if (/\s/.test(rawUri)) issue(issues, [...loc, uriKey], 'value_error', 'Value error, a URI holds no whitespace', rawUri);
      else uri = rawUri;
    }
  }
  const rawB64 = raw['base64'] ?? raw['data'];
  const b64Key = raw['base64'] !== undefined ? 'base64' : 'data';
  if (rawB64 !== undefined && rawB64 !== null) {
    if (typeof rawB64 !== 'string') issue(issues, [...loc, b64Key], 'string_type', 'Input should be a valid base64 string', undefined);
    else if (base64 !== undefined) issue(issues, [...loc, b64Key], 'value_error', 'Value error, give the bytes once: base64 or a data: URI, not both', undefined);
    else base64 = rawB64;
  }
  if (base64 !== undefined) {
    base64 = base64.replace(/\s+/g, '');
    if (base64.length === 0 || base64.length % 4 === 1 || !BASE64.test(base64)) issue(issues, [...loc, b64Key], 'value_error', 'Value error, inline bytes must be valid base64', undefined);
  }
  const inlineText = typeof raw['text'] === 'string' && (type === 'doc' || type === 'pdf') && base64 === undefined && uri === undefined;
  if (uri === undefined && base64 === undefined && !inlineText && issues.length === before) {
    issue(issues, loc, 'value_error', `Value error, ${type === 'image' || type === 'audio' ? 'an' : 'a'} ${type} item needs a uri or inline base64 bytes`, undefined);
  }
  // An item known only by its URI may leave its subtype unknown: its bytes are never read here.
  mime ??= impliedMime(type, name, uri) ?? (inlineText ? 'text/plain' : base64 === undefined && uri !== undefined ? (type === 'doc' ? 'text/*' : `${type}/*`) : undefined);
  if (mime === undefined) {
    if (issues.length === before) issue(issues, [...loc, 'mime_type'], 'missing', `Field required: the MIME type of inline ${type} bytes`, undefined);
  } else if (!MIME.test(mime) && !(base64 === undefined && mime === `${type === 'doc' ? 'text' : type}/*`)) issue(issues, [...loc, 'mime_type'], 'value_error', 'Value error, not a MIME type (type/subtype)', mime);
  if (issues.length > before || mime === undefined) return undefined;
  if (!mimeFits(type, mime)) throw unsupported([...loc, 'mime_type'], `a ${type} item of MIME type ${mime} is not supported`, { type, mime_type: mime });
  if (inlineText && (mime === PDF_MIME)) return void issue(issues, [...loc, 'text'], 'value_error', 'Value error, a PDF is sent as bytes (base64 or uri), not as text', undefined);

  let size: number | null = null;
  const declared = raw['size'];
  if (declared !== undefined && declared !== null && (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 0)) {
    return void issue(issues, [...loc, 'size'], 'int_type', 'Input should be a non-negative integer (bytes)', declared);
  }
  if (base64 !== undefined) {
    size = decodedSize(base64);
    if (size > MAX_ITEM_BYTES) {
      return void issue(issues, [...loc, b64Key], 'too_large', `Value error, an inline item may hold at most ${MAX_ITEM_BYTES} bytes, not ${size}`, undefined, { max_bytes: MAX_ITEM_BYTES, bytes: size });
    }
  } else if (typeof declared === 'number') size = declared;
  return { index, type: (type === 'doc' && mime === PDF_MIME ? 'pdf' : type), mime_type: mime, size, ...(uri !== undefined ? { uri } : {}), ...(base64 !== undefined ? { base64 } : {}), ...(name !== undefined ? { name } : {}) };
}

/** The checks of one message's content items; the media ones are returned for `prepare`. */
export function checkContentItems(items: unknown[], loc: Loc, issues: ValidationDetail[]): CheckedItem[] {
  const out: CheckedItem[] = [];
  for (let i = 0; i < items.length && !isFull(issues); i++) {
    const raw = items[i];
    const itemLoc = [...loc, i];
    if (!isObject(raw)) {
      issue(issues, itemLoc, 'dict_type', 'Input should be a valid dictionary', raw);
      continue;
    }
    const type = mediaTypeOf(raw, itemLoc);
    if (type === undefined) {
      issue(issues, [...itemLoc, 'type'], raw['type'] === undefined ? 'missing' : 'string_type', 'Field required: the item type (text, image, audio, doc or pdf)', raw['type']);
      continue;
    }
    if (type === 'text') {
      const value = raw['text'] ?? raw['content'];
      if (typeof value !== 'string') issue(issues, [...itemLoc, 'text'], 'string_type', 'Input should be a valid string', value);
      else if (value.length > MAX_ITEM_TEXT) issue(issues, [...itemLoc, 'text'], 'string_too_long', `String should have at most ${MAX_ITEM_TEXT} characters`, undefined, { max_length: MAX_ITEM_TEXT });
      continue;
    }
    const checked = checkMedia(raw, type, i, itemLoc, issues);
    if (checked) out.push(checked);
  }
  return out;
}

/** The content item list minus inline payloads, for the JSON bound (payloads have their own). */
function withoutPayloads(items: unknown[]): unknown[] {
  return items.map((raw) => {
    if (!isObject(raw)) return raw;
    const rest = { ...raw };
    // Only payload strings are left out: anything else under these keys is measured like any JSON.
    for (const key of ['base64', 'data'] as const) if (typeof rest[key] === 'string') delete rest[key];
    for (const key of ['uri', 'url'] as const) if (typeof rest[key] === 'string' && DATA_URI.test(rest[key])) delete rest[key];
    const image = rest['image_url'];
    if (typeof image === 'string' && DATA_URI.test(image)) delete rest['image_url'];
    else if (isObject(image) && typeof image['url'] === 'string' && DATA_URI.test(image['url'])) rest['image_url'] = { ...image, url: '' };
    return rest;
  });
}

/**
 * The `content` field of a message: a non-empty string, or 1 to 100 content items whose JSON
 * (inline payloads aside) is bounded in depth and size like any free-form JSON.
 */
export function contentCheck(maxTextLength: number): Check<string | Record<string, unknown>[]> {
  return withSchema<Check<string | Record<string, unknown>[]>>((value, loc, issues) => {
    if (typeof value === 'string') {
      if (value.length >= 1 && value.length <= maxTextLength) return value;
      return issue(issues, loc, 'content_type', 'Input should be a non-empty string or a list of content items', value.length > 200 ? undefined : value);
    }
    if (!Array.isArray(value) || value.length < 1 || value.length > MAX_ITEMS_PER_MESSAGE) {
      return issue(issues, loc, 'content_type', 'Input should be a non-empty string or a list of content items', Array.isArray(value) ? undefined : value);
    }
    // The same bounds and answers as any free-form JSON field (schema.ts `boundedJson`).
    const measured = measureJson(withoutPayloads(value), { maxBytes: MAX_ITEMS_JSON_BYTES });
    if (!('bytes' in measured)) {
      if (measured.kind === 'depth') return issue(issues, loc, 'json_too_deep', `JSON nesting should be at most ${MAX_JSON_DEPTH} levels deep`, value, { max_depth: MAX_JSON_DEPTH });
      if (measured.kind === 'bytes') return issue(issues, loc, 'json_too_large', `JSON value should be at most ${MAX_ITEMS_JSON_BYTES} bytes`, value, { max_bytes: MAX_ITEMS_JSON_BYTES });
      return issue(issues, loc, 'json_type', 'Input should hold only JSON values (strings, finite numbers, booleans, null, lists, objects)', value);
    }
    const before = issues.length;
    checkContentItems(value, loc, issues);
    return issues.length > before ? INVALID : (value as Record<string, unknown>[]);
  }, {
    anyOf: [
      { type: 'string', minLength: 1, maxLength: maxTextLength },
      {
        type: 'array', minItems: 1, maxItems: MAX_ITEMS_PER_MESSAGE,
        items: {
          type: 'object',
          properties: {
            type: { enum: ['text', ...MEDIA_TYPES, 'image_url'] }, text: { type: 'string' }, uri: { type: 'string' }, base64: { type: 'string' },
            mime_type: { type: 'string' }, name: { type: 'string' }, caption: { type: 'string' }, alt: { type: 'string' }, transcript: { type: 'string' }, size: { type: 'integer', minimum: 0 },
          },
        },
      },
    ],
  });
}

/** Whether a content list holds a media item (which makes a message worth keeping without text). */
export function hasMedia(content: string | Record<string, unknown>[]): boolean {
  return typeof content !== 'string' && content.some((item) => isObject(item) && item['type'] !== undefined && item['type'] !== 'text');
}

/** The inline bytes of all messages of one add, bounded together (each item is bounded alone by the checks). */
export function checkRequestBytes(messages: readonly { content: string | Record<string, unknown>[] }[], issues: ValidationDetail[]): void {
  let total = 0;
  messages.forEach((m, i) => {
    if (typeof m.content === 'string') return;
    for (const item of checkContentItems(m.content, ['body', 'messages', i, 'content'], [])) total += item.base64 !== undefined ? item.size ?? 0 : 0;
  });
  if (total > MAX_REQUEST_ITEM_BYTES) {
    issue(issues, ['body', 'messages'], 'too_large', `Value error, the inline items of one request may hold at most ${MAX_REQUEST_ITEM_BYTES} bytes, not ${total}`, undefined, { max_bytes: MAX_REQUEST_ITEM_BYTES, bytes: total });
  }
}
