/**
 * Export and import: the versioned JSON bundle (lossless: importing it into an empty browser gives
 * the same search results), the Markdown a person can read (one file per owner and kind), and
 * importing a bundle by merging or replacing.
 */
import type { MarkdownFile } from '../../src/export/markdown.js';
import { describeError, download, h, render, say, statusLine, pane } from '../dom.js';
import { MEMORY_NAME } from '../config.js';
import type { AppContext } from '../store.js';

const stamp = () => new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');

/** `default/default/users/maya/episodes.md` → `default-default-users-maya-episodes.md` (a download name cannot hold folders). */
const flatName = (path: string) => path.replace(/\//g, '-');

/** The Export / import pane. */
export function transferPane(ctx: AppContext): HTMLElement {
  const exportJson = h('button', { type: 'button' }, 'Download JSON bundle');
  const exportStatus = statusLine();
  const prepareMarkdown = h('button', { type: 'button', class: 'secondary' }, 'Prepare Markdown files');
  const markdownStatus = statusLine();
  const markdownFiles = h('ul', { class: 'files', 'aria-label': 'Markdown files' });
  // The native file input stays (keyboard, drag and drop, screen readers) but out of sight: its
  // look cannot be styled and differs per browser. A label styled as a button opens it.
  const file = h('input', { type: 'file', name: 'bundle', accept: '.json,application/json', id: 'import-file', class: 'file-input', 'aria-labelledby': 'import-file-label', 'aria-describedby': 'import-file-name import-file-hint' });
  const fileName = h('span', { class: 'file-name', id: 'import-file-name' }, 'No file chosen');
  file.addEventListener('change', () => (fileName.textContent = file.files?.[0]?.name ?? 'No file chosen'));
  const merge = h('input', { type: 'radio', name: 'import-mode', value: 'merge', checked: true, id: 'import-merge' });
  const replace = h('input', { type: 'radio', name: 'import-mode', value: 'replace', id: 'import-replace' });
  const importButton = h('button', { type: 'submit' }, 'Import');
  const importStatus = statusLine();
  let blobUrls: string[] = [];

  exportJson.addEventListener('click', () => {
    void (async () => {
      exportJson.disabled = true;
      try {
        const memory = await ctx.memory;
        const bundle = await memory.export();
        const name = `${MEMORY_NAME}-${stamp()}.json`;
        download(name, JSON.stringify(bundle), 'application/json');
        say(exportStatus, `Saved ${name}: ${bundle.items.length} items, format ${bundle.format} v${bundle.version}, vectors from ${bundle.embedder.id}.`, 'ok');
      } catch (error) {
        say(exportStatus, describeError(error), 'error');
      } finally {
        exportJson.disabled = false;
      }
    })();
  });

  prepareMarkdown.addEventListener('click', () => {
    void (async () => {
      try {
        const memory = await ctx.memory;
        const files = await memory.exportMarkdown();
        for (const url of blobUrls) URL.revokeObjectURL(url);
        blobUrls = [];
        const link = (name: string, content: string, text: string) => {
          const url = URL.createObjectURL(new Blob([content], { type: 'text/markdown' }));
          blobUrls.push(url);
          return h('a', { href: url, download: name }, text);
        };
        render(
          markdownFiles,
          files.map((f: MarkdownFile) => h('li', null, link(flatName(f.path), f.content, f.path), h('span', { class: 'meta' }, ` ${f.content.length.toLocaleString()} characters`))),
          files.length ? h('li', { class: 'all' }, link(`${MEMORY_NAME}-${stamp()}.md`, concatenate(files), 'All files in one document')) : null,
        );
        say(markdownStatus, files.length ? `${files.length} files, one per owner and kind.` : 'The memory is empty.', 'ok');
      } catch (error) {
        say(markdownStatus, describeError(error), 'error');
      }
    })();
  });

  const importForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'import-title' },
    h('h3', { id: 'import-title' }, 'Import a bundle'),
    h(
      'div',
      { class: 'field' },
      h('span', { class: 'field-label', id: 'import-file-label' }, 'Bundle file'),
      h('div', { class: 'file-picker' }, file, h('label', { for: 'import-file', class: 'button secondary' }, 'Choose a file…'), fileName),
      h('p', { class: 'hint', id: 'import-file-hint' }, 'A JSON bundle downloaded from this page (or from the library’s export()).'),
    ),
    h(
      'fieldset',
      null,
      h('legend', null, 'Mode'),
      h('label', { for: 'import-merge' }, merge, ' Merge — add the bundle’s records, replacing those with the same id'),
      h('label', { for: 'import-replace' }, replace, ' Replace — the memory becomes exactly the bundle'),
    ),
    h('div', { class: 'actions' }, importButton),
    importStatus,
  );

  importForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      const chosen = file.files?.[0];
      if (!chosen) return say(importStatus, 'Choose a bundle file first.', 'error');
      importButton.disabled = true;
      try {
        let bundle: unknown;
        try {
          bundle = JSON.parse(await chosen.text()) as unknown;
        } catch {
          return say(importStatus, `${chosen.name} is not JSON.`, 'error');
        }
        const memory = await ctx.memory;
        const mode = replace.checked ? 'replace' : 'merge';
        const result = await memory.import(bundle, { mode });
        say(importStatus, `Imported ${result.imported} items from ${chosen.name} (${mode}): ${result.reembedded} re-embedded, ${result.removed} removed.`, 'ok');
      } catch (error) {
        say(importStatus, describeError(error), 'error');
      } finally {
        importButton.disabled = false;
      }
    })();
  });

  return pane(
    'transfer',
    'Export and import',
    'Your memory is yours to take: the JSON bundle holds everything (vectors included) and imports into any Engram; the Markdown is for reading.',
    h(
      'div',
      { class: 'grid two' },
      h('div', { class: 'card', role: 'group', 'aria-labelledby': 'export-title' }, h('h3', { id: 'export-title' }, 'JSON bundle'), h('p', null, 'Every record and buffered message, versioned, with vectors in base64.'), h('div', { class: 'actions' }, exportJson), exportStatus),
      h('div', { class: 'card', role: 'group', 'aria-labelledby': 'markdown-title' }, h('h3', { id: 'markdown-title' }, 'Markdown'), h('p', null, 'One file per owner and kind (episodes, profile, cases, skills, knowledge), newest first.'), h('div', { class: 'actions' }, prepareMarkdown), markdownStatus, markdownFiles),
    ),
    importForm,
  );
}

/** Every file in one document, each under a header naming its path. */
function concatenate(files: MarkdownFile[]): string {
  return files.map((f) => `<!-- file: ${f.path} -->\n# ${f.path}\n\n${f.content.trim()}\n`).join('\n---\n\n');
}
