/**
 * The document readers on their own: Markdown and HTML split at headings with the words a reader
 * sees, plain text whole, the PDF fixture page by page through pdfjs-dist in Node, and bytes that
 * are no PDF refused as the caller's problem (415 inside, 422 at the item in `add`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPdfjsReader, readDocument } from '../../src/write/documents/index.js';
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
