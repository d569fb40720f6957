/**
 * The asynchronous half of taking a message's content items, after the request is valid: the
 * inline bytes are hashed (SHA-256) and documents are read to text, so what a message keeps is
 * its content as sent (a document's extracted text added as its `text`) and one reference per
 * item. Runs before the write is queued, so a slow PDF never holds the writer; a PDF whose bytes
 * are no PDF is the contract's 422 for that item, and nothing is written.
 */
import { validationError, isMemoryError, type ValidationDetail } from '../errors.js';
import { base64ToBytes } from '../store/serialize.js';
import { checkContentItems, type CheckedItem, type StoredItemRef } from './content-items.js';
import { readDocument, readInlineDocument, type DocumentText, type PdfTextReader } from './documents/index.js';
import type { Llm } from '../models/ports.js';

/** What reads items: a PDF reader, and an LLM that may caption images (only one whose `vision` is true is asked). */
export interface ItemReaders {
  pdf: PdfTextReader | null;
  llm?: Llm | null;
}

const CAPTION_PROMPT = 'Describe this image in one or two plain sentences: what it shows, any readable text, and names of places or things you are sure of. No preamble.';
/** Image types vision models take. */
const CAPTIONABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface PreparedContent {
  content: string | Record<string, unknown>[];
  /** One per media item (absent when the content holds none). */
  items?: StoredItemRef[];
}

export interface ItemNotice {
  code: string;
  message: string;
  /** Where the item is in the request, as a validation `loc`. */
  loc: (string | number)[];
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-256 (hex) of some bytes. */
export async function sha256(bytes: Uint8Array): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', bytes.slice()));
}

function textSource(raw: Record<string, unknown>): StoredItemRef['text_source'] {
  for (const key of ['text', 'caption', 'alt', 'transcript'] as const) if (typeof raw[key] === 'string' && raw[key].trim()) return key;
  return 'none';
}

/** One message's content with its items hashed and read. */
async function prepareOne(content: string | Record<string, unknown>[], loc: (string | number)[], readers: ItemReaders, notices: ItemNotice[], signal?: AbortSignal): Promise<PreparedContent> {
  const { pdf, llm } = readers;
  if (typeof content === 'string') return { content };
  const checked: CheckedItem[] = checkContentItems(content, loc, []);
  if (checked.length === 0) return { content };
  const out = content.slice();
  const refs: StoredItemRef[] = [];
  for (const item of checked) {
    const raw = content[item.index]!;
    const bytes = item.base64 !== undefined ? base64ToBytes(item.base64) : null;
    const ref: StoredItemRef = {
      index: item.index, type: item.type, mime_type: item.mime_type, size: bytes ? bytes.length : item.size, sha256: bytes ? await sha256(bytes) : null,
      ...(item.uri !== undefined ? { uri: item.uri } : {}), ...(item.name !== undefined ? { name: item.name } : {}), text_source: textSource(raw),
    };
    if (item.type === 'image' && ref.text_source === 'none' && item.base64 !== undefined && llm?.vision && CAPTIONABLE.has(item.mime_type)) {
      // An image sent without words gets a caption from a model that sees images, kept apart from
      // the caller's own (`generated_caption`) and marked in every reference.
      try {
        const caption = (await llm.complete({ messages: [{ role: 'user', content: CAPTION_PROMPT, images: [{ mime_type: item.mime_type, base64: item.base64 }] }], temperature: 0, maxTokens: 160, ...(signal ? { signal } : {}) })).trim();
        if (caption) {
          out[item.index] = { ...raw, generated_caption: caption };
          ref.text_source = 'generated_caption';
        }
      } catch (error) {
        if (signal?.aborted) throw error;
        notices.push({ code: 'images.caption_failed', message: `The image could not be captioned (${isMemoryError(error) ? error.code : 'error'}); it is kept by reference and found by its conversation only.`, loc: [...loc, item.index] });
      }
    }
    if (item.type === 'doc' || item.type === 'pdf') {
      let doc: DocumentText | null = null;
      if (bytes) {
        try {
          doc = await readDocument(bytes, item.mime_type, pdf, signal);
        } catch (error) {
          if (isMemoryError(error) && error.code === 'UNSUPPORTED_CONTENT_TYPE') {
            const detail: ValidationDetail = { loc: [...loc, item.index], msg: `Value error, the ${item.type} cannot be read: ${error.message}`, type: 'value_error', ctx: { mime_type: item.mime_type } };
            throw validationError([detail]);
          }
          throw error;
        }
      } else if (typeof raw['text'] === 'string' && item.uri === undefined) {
        // A document sent as its text: read for its sections, the text kept as sent.
        ref.sections = readInlineDocument(raw['text'], item.mime_type).sections;
      } else {
        notices.push({ code: 'documents.not_fetched', message: 'A document given by URI is not fetched (the memory stays on the device); it is found by its caption, text and conversation only.', loc: [...loc, item.index] });
      }
      if (doc?.notice) {
        ref.notice = doc.notice.message;
        notices.push({ ...doc.notice, loc: [...loc, item.index] });
      }
      if (doc && doc.text) {
        const own = typeof raw['text'] === 'string' && raw['text'].trim() ? `${raw['text']}\n\n` : '';
        out[item.index] = { ...raw, text: own + doc.text };
        ref.sections = doc.sections.map((s) => ({ ...s, start: s.start + own.length, end: s.end + own.length }));
        ref.text_source = 'extracted';
      }
    }
    refs.push(ref);
  }
  return { content: out, items: refs };
}

/** Every message of an add prepared; the notices say which items' words are not searchable and why. */
export async function prepareMessages<M extends { content: string | Record<string, unknown>[] }>(
  messages: readonly M[], readers: ItemReaders, signal?: AbortSignal,
): Promise<{ messages: (M & PreparedContent)[]; notices: ItemNotice[] }> {
  const notices: ItemNotice[] = [];
  const out: (M & PreparedContent)[] = [];
  for (const [i, m] of messages.entries()) out.push({ ...m, ...(await prepareOne(m.content, ['body', 'messages', i, 'content'], readers, notices, signal)) });
  return { messages: out, notices };
}
