/**
 * What records derived from a segment keep of its messages' items and write-time metadata. The
 * episode holds the inline bytes once (`media`, by SHA-256) with a reference per item; every
 * fact and plan holds references only: to the item its words were read from, with the page or
 * section, or else to the items of the message it came from.
 */
import { storedMetadata, type Metadata } from '../contract/metadata.js';
import { provenanceId, type BufferedMessage } from '../records.js';
import type { ItemRef, StoredItemRef } from './content-items.js';
import { readInlineDocument } from './documents/index.js';

const DATA_URI = /^data:[^,]*;base64,/i;

/** The reference a record carries: no index into a message, no sections, no notice. */
function refOf(stored: StoredItemRef): ItemRef {
  const { index: _i, sections: _s, notice: _n, ...ref } = stored;
  return ref;
}

/** The inline base64 of a content item, however it was sent. */
function inlineBase64(item: Record<string, unknown> | undefined): string | undefined {
  if (!item) return undefined;
  for (const value of [item['base64'], item['data'], item['uri'], item['url'], item['image_url'], (item['image_url'] as { url?: unknown } | undefined)?.url]) {
    if (typeof value !== 'string') continue;
    const prefix = DATA_URI.exec(value);
    if (prefix) return value.slice(prefix[0].length).replace(/\s+/g, '');
    if (value === item['base64'] || value === item['data']) return value.replace(/\s+/g, '');
  }
  return undefined;
}

function sourcesOf(messages: readonly BufferedMessage[], ids: readonly string[]): BufferedMessage[] {
  const wanted = new Set(ids);
  return messages.filter((m) => wanted.has(provenanceId(m)));
}

/** The metadata the records of a segment keep: a segment never mixes writes of different metadata (see boundary.ts). */
export function segmentMetadata(messages: readonly BufferedMessage[]): { metadata?: Metadata } {
  const metadata = storedMetadata(messages[0]?.metadata);
  return metadata ? { metadata } : {};
}

/** An episode's references and the inline bytes of its source messages' items, each kept once. */
export function episodeItems(messages: readonly BufferedMessage[], sourceIds: readonly string[]): { items?: ItemRef[]; media?: Record<string, string> } {
  const items: ItemRef[] = [];
  const media: Record<string, string> = {};
  const seen = new Set<string>();
  for (const m of sourcesOf(messages, sourceIds)) {
    for (const stored of m.items ?? []) {
      const key = stored.sha256 ?? `${stored.type}\u0000${stored.uri ?? ''}\u0000${stored.name ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(refOf(stored));
      const b64 = stored.sha256 && typeof m.content !== 'string' ? inlineBase64(m.content[stored.index]) : undefined;
      if (b64 && stored.sha256) media[stored.sha256] = b64;
    }
  }
  return { ...(items.length ? { items } : {}), ...(Object.keys(media).length ? { media } : {}) };
}

const fold = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

type Section = NonNullable<StoredItemRef['sections']>[number];

/**
 * Each section of a document item with its text folded, read once per item: a document's facts
 * each look for their section, and reading and folding the whole document again for each one took
 * time quadratic in its length (seconds for one document at the contract's bound).
 */
const foldedSections = new WeakMap<StoredItemRef, { s: Section; folded: string }[]>();

function sectionsOf(stored: StoredItemRef, text: string): { s: Section; folded: string }[] {
  let spans = foldedSections.get(stored);
  if (!spans) {
    const read = stored.text_source === 'extracted' ? text : readInlineDocument(text, stored.mime_type).text;
    spans = (stored.sections ?? []).map((s) => ({ s, folded: fold(read.slice(s.start, s.end)) }));
    foldedSections.set(stored, spans);
  }
  return spans;
}

/** The page or section of a document item that holds the words, if one does. */
function placeOf(stored: StoredItemRef, item: Record<string, unknown>, words: string): Pick<ItemRef, 'page' | 'section'> | undefined {
  if (!stored.sections?.length || typeof item['text'] !== 'string') return undefined;
  const spans = sectionsOf(stored, item['text']);
  // The words whole, else sentence by sentence: a passage can begin with the message's own words.
  let section: (typeof stored.sections)[number] | undefined;
  for (const part of [words, ...words.split(/(?<=[.!?])\s+/)]) {
    const head = fold(part).slice(0, 80);
    section = head ? spans.find((x) => x.folded.includes(head))?.s : undefined;
    if (section) break;
  }
  if (!section) return undefined;
  return { ...(section.page !== undefined ? { page: section.page } : {}), ...(section.section !== undefined ? { section: section.section } : {}) };
}

/**
 * A fact's or plan's references: the item whose text holds its words (with the page or section),
 * or, when its words are the message's own, every item the message came with.
 */
export function statementItems(messages: readonly BufferedMessage[], sourceIds: readonly string[], words: string): { items?: ItemRef[] } {
  const own: ItemRef[] = [];
  const all: ItemRef[] = [];
  const head = fold(words).slice(0, 80);
  for (const m of sourcesOf(messages, sourceIds)) {
    if (typeof m.content === 'string') continue;
    for (const stored of m.items ?? []) {
      const item = m.content[stored.index] ?? {};
      all.push(refOf(stored));
      const place = placeOf(stored, item, words);
      if (place) own.push({ ...refOf(stored), ...place });
      else if (head && ['text', 'caption', 'alt', 'transcript', 'generated_caption'].some((k) => typeof item[k] === 'string' && fold(item[k] as string).includes(head))) own.push(refOf(stored));
    }
  }
  const items = own.length ? own : all;
  return items.length ? { items } : {};
}
