/**
 * The document readers on their own: Markdown and HTML split at headings with the words a reader
 * sees, plain text whole, the PDF fixture page by page through pdfjs-dist in Node, and bytes that
 * are no PDF refused as the caller's problem (415 inside, 422 at the item in `add`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPdfjsReader, MAX_EXTRACTED_CHARS, MAX_READ_CHARS, readDocument } from '../../src/write/documents/index.js';
import { readHtml, readMarkdown, readPlainText } from '../../src/write/documents/text.js';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/media/${name}`, import.meta.url)));
const sectionsOf = (r: { text: string; sections: { start: number; end: number; section?: string; page?: number }[] }) =>
  r.sections.map((s) => ({ ...(s.section !== undefined ? { section: s.section } : {}), ...(s.page !== undefined ? { page: s.page } : {}), text: r.text.slice(s.start, s.end) }));

describe('text documents', () => {
  it('Markdown: one section per heading, markup reduced to its words, code kept as written', () => {
    const md = 'Intro with a [link](https://x.test) and **bold** words.\n\n# Plan\n\n- buy `seeds`\n- water\n\n```\nconst a = [1](2);\n```\n\n## Notes ##\n> quoted _thing_\n';
    expect(sectionsOf(readMarkdown(md))).toEqual([
      { text: 'Intro with a link and bold words.' },
      { section: 'Plan', text: 'Plan\n\nbuy seeds\nwater\n\nconst a = [1](2);' },
      { section: 'Notes', text: 'Notes\nquoted thing' },
    ]);
  });

  it('HTML: one section per heading, scripts, styles and comments dropped, entities decoded', () => {
    const html = '<html><head><title>T</title><style>p{}</style></head><body><p>Lead &amp; intro</p><!-- hidden --><h2 id="a">Tide <em>tables</em></h2><p>High water at 9&#160;pm.</p><script>alert(1)</script><h2>Costs</h2><ul><li>4200 &lt; 5000</li></ul></body></html>';
    expect(sectionsOf(readHtml(html))).toEqual([
      { text: 'Lead & intro' },
      { section: 'Tide tables', text: 'Tide tables\nHigh water at 9\u00a0pm.' },
      { section: 'Costs', text: 'Costs\n4200 < 5000' },
    ]);
  });

  it('HTML: a name that is no entity stays as written, even one an object has as a property', () => {
    expect(readHtml('<p>The &constructor; field &amp; the &nosuch; one</p>').text).toBe('The &constructor; field & the &nosuch; one');
  });

  it('hostile documents read in linear time: each took 35 to 45 s before (a regex retried from every "<", "![" or blank)', () => {
    expect(readHtml('<'.repeat(200_000)).text).toBe('<'.repeat(200_000));
    expect(readMarkdown('!['.repeat(100_000)).text).toBe('!['.repeat(100_000));
    expect(sectionsOf(readMarkdown(`# a${' '.repeat(5_000)}b #`))).toEqual([{ section: `a${' '.repeat(5_000)}b`, text: `a${' '.repeat(5_000)}b` }]);
  });

  it('HTML: an unclosed comment, script or style is read as before, its tags dropped and its words kept', () => {
    expect(readHtml('<p>Lead</p><!-- note').text).toBe('Lead\n<!-- note');
    expect(readHtml('<p>Lead</p><!-- a note <b>bold</b> words').text).toBe('Lead\nbold words');
    expect(readHtml('<p>Lead</p><script>if (a < b) run();</script').text).toBe('Lead\nif (a < b) run();</script');
    expect(sectionsOf(readHtml('<h1>Title</h1><p>x</p><style>p { color: red }'))).toEqual([{ section: 'Title', text: 'Title\nx\np { color: red }' }]);
  });

  it('a document longer than is read: its first part read, what the cut left open dropped, a notice', async () => {
    const page = `<p>${'Tide tables. '.repeat(1_000)}</p><script>${'x'.repeat(MAX_READ_CHARS)}</script><p>Late words</p>`;
    const doc = await readDocument(new TextEncoder().encode(page), 'text/html', null);
    expect(doc.text).toBe('Tide tables. '.repeat(1_000).trim());
    expect(doc.notice?.code).toBe('documents.text_cut');
    const hostile = await readDocument(new Uint8Array(5 * 1024 * 1024).fill(60), 'text/html', null);
    expect(hostile.text).toBe('');
    expect(hostile.notice?.code).toBe('documents.text_cut');
    const long = await readDocument(new TextEncoder().encode('word '.repeat(MAX_READ_CHARS)), 'text/plain', null);
    expect(long.text).toBe('word '.repeat(MAX_EXTRACTED_CHARS / 5).slice(0, MAX_EXTRACTED_CHARS));
  });

  it('plain text is one section, line ends normalised', () => {
    expect(sectionsOf(readPlainText('a\r\nb\rc'))).toEqual([{ text: 'a\nb\nc' }]);
  });
});

describe('PDF through pdfjs-dist in Node', () => {
  it('reads the fixture page by page', async () => {
    const doc = await readDocument(fixture('two-pages.pdf'), 'application/pdf', createPdfjsReader());
    expect(doc.notice).toBeUndefined();
    expect(sectionsOf(doc)).toEqual([
      { page: 1, text: expect.stringMatching(/^Harbour survey, page one\.\s+The lighthouse keeper records the tide height every evening at nine\.$/) },
      { page: 2, text: expect.stringMatching(/^Budget, page two\.\s+The observatory telescope repair costs 4200 euros and is due in March\.$/) },
    ]);
  });

  it('bytes that are no PDF are the caller’s problem; no reader is a notice', async () => {
    await expect(readDocument(new TextEncoder().encode('%PDF-1.4 broken'), 'application/pdf', createPdfjsReader())).rejects.toMatchObject({ code: 'UNSUPPORTED_CONTENT_TYPE' });
    expect((await readDocument(fixture('two-pages.pdf'), 'application/pdf', null)).notice?.code).toBe('documents.pdf_unavailable');
  });
});
