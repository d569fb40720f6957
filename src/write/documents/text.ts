/**
 * Text documents read directly, no library: plain text as one section, Markdown and HTML split
 * at their headings so every fact drawn from them can say which section it came from. Only what
 * a reader sees is kept: Markdown's link targets and emphasis marks, HTML's tags, scripts and
 * styles are dropped; the words stay as written.
 */
import type { TextSection } from '../content-items.js';

export interface ExtractedText {
  text: string;
  sections: TextSection[];
}

interface Part {
  section?: string;
  text: string;
}

/** Parts joined into one text with the span of each (empty parts dropped). */
export function joinParts(parts: readonly (Part & { page?: number })[]): ExtractedText {
  let text = '';
  const sections: TextSection[] = [];
  for (const part of parts) {
    const body = part.text.trim();
    if (!body) continue;
    if (text) text += '\n\n';
    const start = text.length;
    text += body;
    sections.push({ ...(part.page !== undefined ? { page: part.page } : {}), ...(part.section ? { section: part.section } : {}), start, end: text.length });
  }
  return { text, sections };
}

/** Markdown inline syntax reduced to its words. */
function markdownWords(line: string): string {
  return line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`{1,3}([^`]*)`{1,3}/g, '$1')
    .replace(/(\*\*|__|\*|_|~~)(?=\S)([^*_~]+?)\1/g, '$2')
    .replace(/^\s{0,3}(?:[-*+]|\d+[.)])\s+/, '')
    .replace(/^\s{0,3}>\s?/, '');
}

/** Markdown split at ATX headings (`#` … `######`); text before the first heading has no section. */
export function readMarkdown(source: string): ExtractedText {
  const parts: Part[] = [];
  let current: Part = { text: '' };
  let fenced = false;
  for (const line of source.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    const heading = fenced ? null : /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      parts.push(current);
      const title = markdownWords(heading[1] ?? '').trim();
      // The heading's words belong to its section's text too: "Watering" is searchable.
      current = { section: title, text: `${title}\n` };
      continue;
    }
    current.text += `${fenced ? line : markdownWords(line)}\n`;
  }
  parts.push(current);
  return joinParts(parts);
}

/** A Map, not an object: "&constructor;" in a page names no entity (an object would answer with its own properties). */
const ENTITIES = new Map([['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '"'], ['apos', "'"], ['nbsp', ' ']]);

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === '#') {
      const n = code[1] === 'x' || code[1] === 'X' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
    }
    return ENTITIES.get(code.toLowerCase()) ?? whole;
  });
}

/** HTML's visible text: block elements end lines, everything else is words. */
function htmlWords(html: string): string {
  return decodeEntities(
    html
      .replace(/<(br|\/p|\/div|\/li|\/tr|\/h[1-6]|\/section|\/article|\/blockquote|\/pre)\b[^>]*>/gi, '\n')
      .replace(/<[^>]*>/g, ' '),
  )
    .split('\n')
    .map((l) => l.replace(/[ \t\f\v]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** HTML split at its headings (`<h1>` … `<h6>`), scripts, styles and comments removed. */
export function readHtml(source: string): ExtractedText {
  const body = source
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template|head)\b[\s\S]*?<\/\1\s*>/gi, ' ');
  const parts: Part[] = [];
  const heading = /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi;
  let at = 0;
  let section: string | undefined;
  for (let m = heading.exec(body); m; m = heading.exec(body)) {
    parts.push({ ...(section !== undefined ? { section } : {}), text: htmlWords(body.slice(at, m.index)) });
    section = htmlWords(m[2] ?? '').replace(/\n/g, ' ');
    parts.push({ section, text: section });
    at = m.index + m[0].length;
  }
  parts.push({ ...(section !== undefined ? { section } : {}), text: htmlWords(body.slice(at)) });
  // A heading and the text under it are one section.
  const merged: Part[] = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if (last && p.section !== undefined && last.section === p.section) last.text += `\n${p.text}`;
    else merged.push({ ...p });
  }
  return joinParts(merged);
}

/** Plain text: one section without a label. */
export function readPlainText(source: string): ExtractedText {
  return joinParts([{ text: source.replace(/\r\n?/g, '\n') }]);
}
