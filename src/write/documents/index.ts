/**
 * Documents to searchable text: a PDF page by page, Markdown and HTML section by section, plain
 * text as it is. What cannot be read here (a PDF where pdfjs cannot run) is reported, not thrown:
 * the item is kept by reference and the caller learns why its words are not searchable.
 */
import { isMemoryError } from '../../errors.js';
import { joinParts, readHtml, readMarkdown, readPlainText, type ExtractedText } from './text.js';
import type { PdfTextReader } from './pdf.js';

export type { ExtractedText } from './text.js';
export { createPdfjsReader, type PdfTextReader } from './pdf.js';

/** Characters of extracted text kept searchable per item; the bytes are always kept whole. */
export const MAX_EXTRACTED_CHARS = 200_000;

export interface DocumentText extends ExtractedText {
  /** Set when the text could not be extracted or was cut: said in the add response, never silently. */
  notice?: { code: string; message: string };
}

/**
 * Characters of a text document's source read: ten times the text kept. The readers are linear,
 * but a 5 MiB item is still 25 times the text it may keep, and reading a bounded prefix bounds the
 * work whatever the item limit. No reader makes more text than it reads (tags, marks and link
 * targets are dropped, an entity is longer than its character) and what it keeps comes in source
 * order, so the first MAX_EXTRACTED_CHARS of text lie in this prefix unless over nine tenths of it
 * is dropped. Plain text therefore loses nothing (its text is its source, a "\r\n" at most
 * halving it, unless it opens with over 1.6 million blanks), nor does Markdown short of nine
 * tenths link targets and marks. HTML loses the words after the first two million characters of a
 * page that is over nine tenths markup there (inline images, styles, scripts); what the cut leaves
 * open is dropped (see readHtml). A cut source always carries the notice.
 */
export const MAX_READ_CHARS = 10 * MAX_EXTRACTED_CHARS;

const decoder = new TextDecoder('utf-8');

/** The first MAX_READ_CHARS characters of a source, a surrogate pair never split. */
function readPrefix(source: string): string {
  const end = MAX_READ_CHARS - (/[\ud800-\udbff]/.test(source[MAX_READ_CHARS - 1] ?? '') ? 1 : 0);
  return source.slice(0, end);
}

/** The text of a document's bytes, by MIME type. Throws only for bytes that are not the document they claim to be. */
export async function readDocument(bytes: Uint8Array, mime: string, pdf: PdfTextReader | null, signal?: AbortSignal): Promise<DocumentText> {
  let out: ExtractedText;
  if (mime === 'application/pdf') {
    if (!pdf) return { text: '', sections: [], notice: { code: 'documents.pdf_unavailable', message: 'PDF text extraction is not available on this host; the PDF is kept by reference and found by its caption and conversation only.' } };
    try {
      out = joinParts((await pdf.pages(bytes, signal)).map((text, i) => ({ page: i + 1, text })));
    } catch (error) {
      if (isMemoryError(error) && error.code === 'MODEL_UNAVAILABLE') {
        return { text: '', sections: [], notice: { code: 'documents.pdf_unavailable', message: `PDF text extraction is not available in this runtime (${error.message}); the PDF is kept by reference and found by its caption and conversation only.` } };
      }
      throw error;
    }
    if (!out.text) return { ...out, notice: { code: 'documents.pdf_no_text', message: 'The PDF holds no text layer (a scan?); it is kept by reference and found by its caption and conversation only.' } };
  } else {
    const whole = decoder.decode(bytes);
    const truncated = whole.length > MAX_READ_CHARS;
    const source = truncated ? readPrefix(whole) : whole;
    out = mime === 'text/markdown' || mime === 'text/x-markdown' ? readMarkdown(source) : mime === 'text/html' || mime === 'application/xhtml+xml' ? readHtml(source, { truncated }) : readPlainText(source);
    if (truncated) return cut(out, `Only the document's first ${MAX_READ_CHARS} characters are read for text, and at most the first ${MAX_EXTRACTED_CHARS} characters of that text are searchable; the document itself is kept whole.`);
  }
  return out.text.length <= MAX_EXTRACTED_CHARS ? out : cut(out, `Only the first ${MAX_EXTRACTED_CHARS} characters of the document's text are searchable; the document itself is kept whole.`);
}

/** Text cut to MAX_EXTRACTED_CHARS (sections too), with the notice saying so. */
function cut(out: ExtractedText, message: string): DocumentText {
  const sections = out.sections.filter((s) => s.start < MAX_EXTRACTED_CHARS).map((s) => ({ ...s, end: Math.min(s.end, MAX_EXTRACTED_CHARS) }));
  return {
    text: out.text.slice(0, MAX_EXTRACTED_CHARS),
    sections,
    notice: { code: 'documents.text_cut', message },
  };
}

/** Inline document text (a `doc` item sent as `text`) read by its MIME type. */
export function readInlineDocument(text: string, mime: string): ExtractedText {
  return mime === 'text/markdown' || mime === 'text/x-markdown' ? readMarkdown(text) : mime === 'text/html' || mime === 'application/xhtml+xml' ? readHtml(text) : readPlainText(text);
}
