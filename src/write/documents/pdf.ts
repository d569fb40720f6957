/**
 * PDF text, page by page, through pdfjs-dist (Mozilla's PDF.js): on the device, in Node and in
 * a browser worker. pdfjs is large (about 1.4 MB minified with its parser), so it is never part
 * of the engine's own import graph: it is loaded the first time a PDF arrives, by the loader a
 * host chooses.
 * - `createPdfjsReader()` (the default) imports the legacy build by a specifier bundlers leave
 *   alone, so it works wherever `pdfjs-dist` resolves at run time (Node) and adds nothing to a
 *   bundle; where it does not resolve or cannot run (workerd has no DOMMatrix), the reader
 *   reports the PDF as unreadable here, and `add` keeps the item with a notice.
 * - A bundled host passes a loader with literal imports (see `pdfjs-browser.ts`), which its
 *   bundler splits into a chunk fetched only when a PDF comes.
 */
import { createError, isMemoryError, wrapError } from '../../errors.js';

/** The slice of the pdfjs API this reader uses. */
export interface PdfjsApi {
  getDocument(params: Record<string, unknown>): { promise: Promise<PdfjsDocument>; destroy(): Promise<void> };
}
interface PdfjsDocument {
  numPages: number;
  getPage(n: number): Promise<{ getTextContent(): Promise<{ items: { str?: string; hasEOL?: boolean }[] }>; cleanup(): void }>;
  destroy(): Promise<void>;
}

/** Reads the text of a PDF, one string per page. */
export interface PdfTextReader {
  readonly id: string;
  /** The text of each page; rejects with `UNSUPPORTED_CONTENT_TYPE` for bytes that are no readable PDF, `MODEL_UNAVAILABLE` where PDFs cannot be read. */
  pages(bytes: Uint8Array, signal?: AbortSignal): Promise<string[]>;
}

/** Pages read from one PDF at most: a longer one keeps its first pages searchable, with a notice. */
export const MAX_PDF_PAGES = 500;

// A specifier in a variable: bundlers (esbuild in wrangler, Vite) leave the import to run time.
const LEGACY_BUILD = 'pdfjs-dist/legacy/build/pdf.mjs';
const importAtRunTime = (specifier: string): Promise<PdfjsApi> => import(/* @vite-ignore */ specifier) as Promise<PdfjsApi>;

/** A PDF reader over pdfjs; `load` returns the pdfjs module (default: the legacy build, resolved at run time). */
export function createPdfjsReader(load: () => Promise<PdfjsApi> = () => importAtRunTime(LEGACY_BUILD)): PdfTextReader {
  let api: Promise<PdfjsApi> | null = null;
  return {
    id: 'pdfjs',
    async pages(bytes, signal) {
      api ??= load().catch((error: unknown) => {
        api = null;
        throw wrapError(error, 'MODEL_UNAVAILABLE', 'PDF text extraction is not available in this runtime (pdfjs-dist could not be loaded)');
      });
      const pdfjs = await api;
      // pdfjs takes ownership of (detaches) the buffer it is given: hand it a copy.
      const task = pdfjs.getDocument({ data: bytes.slice(), isEvalSupported: false, disableFontFace: true, useWorkerFetch: false, useSystemFonts: false, stopAtErrors: false, verbosity: 0 });
      const abort = () => void task.destroy();
      signal?.addEventListener('abort', abort, { once: true });
      let doc: PdfjsDocument;
      try {
        doc = await task.promise;
      } catch (error) {
        signal?.removeEventListener('abort', abort);
        if (signal?.aborted) throw createError('ABORTED');
        const name = (error as { name?: unknown })?.name;
        // Bytes pdfjs cannot parse are the caller's problem; anything else (DOMMatrix missing…) is the runtime's.
        if (name === 'InvalidPDFException' || name === 'FormatError' || name === 'PasswordException' || name === 'MissingPDFException') {
          throw createError('UNSUPPORTED_CONTENT_TYPE', { message: `The PDF cannot be read (${String(name)})`, details: { reason: String(name) } });
        }
        throw isMemoryError(error) ? error : wrapError(error, 'MODEL_UNAVAILABLE', 'PDF text extraction failed in this runtime');
      }
      try {
        const out: string[] = [];
        for (let n = 1; n <= Math.min(doc.numPages, MAX_PDF_PAGES); n++) {
          if (signal?.aborted) throw createError('ABORTED');
          const page = await doc.getPage(n);
          const content = await page.getTextContent();
          out.push(content.items.map((i) => (i.str ?? '') + (i.hasEOL ? '\n' : ' ')).join('').replace(/[ \t]+\n/g, '\n').trim());
          page.cleanup();
        }
        return out;
      } finally {
        signal?.removeEventListener('abort', abort);
        await doc.destroy();
      }
    },
  };
}
