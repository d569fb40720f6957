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

/**
 * Links and images (`[words](target)`, `![words](target)`) reduced to their words, scanned by
 * hand: the regex `\[([^\]]*)\]\([^)]*\)` tried again from every "[" when no "](…)" follows,
 * each try reading to the end of the line, so a line of "[" took seconds. The matches are the
 * regex's own: from an opener, the first "]" after it, then "(" at once, then the first ")"
 * after that. A "]" not followed by "(" fails every opener before it the same way (each would
 * stop at that "]"), so the scan goes on after it; with no "]" or no ")" left, nothing later
 * can match either.
 */
function linkWords(line: string, opener: '[' | '!['): string {
  let out = '';
  let from = 0;
  let at = 0;
  for (;;) {
    const open = line.indexOf(opener, at);
    if (open < 0) break;
    const close = line.indexOf(']', open + opener.length);
    if (close < 0) break;
    if (line[close + 1] !== '(') {
      at = close + 1;
      continue;
    }
    const end = line.indexOf(')', close + 2);
    if (end < 0) break;
    out += line.slice(from, open) + line.slice(open + opener.length, close);
    from = at = end + 1;
  }
  return out + line.slice(from);
}

/** Markdown inline syntax reduced to its words (images first: an image inside a link keeps the link's words). */
function markdownWords(line: string): string {
  return linkWords(linkWords(line, '!['), '[')
    .replace(/`{1,3}([^`]*)`{1,3}/g, '$1')
    .replace(/(\*\*|__|\*|_|~~)(?=\S)([^*_~]+?)\1/g, '$2')
    .replace(/^\s{0,3}(?:[-*+]|\d+[.)])\s+/, '')
    .replace(/^\s{0,3}>\s?/, '');
}

/**
 * The title of an ATX heading line, or null when the line is none. This is what
 * `^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$` captures, found without it: its lazy title retried
 * `\s*#*\s*$` from every character, each try backtracking over the blanks that follow, so a
 * heading line with a long run of blanks inside took minutes (cubic). The title is the rest of
 * the line after the marks, less what that tail can take (trailing blanks, a closing run of "#",
 * the blanks before it); `.` crosses no line terminator, so a title holding one is no heading.
 */
function headingTitle(line: string): string | null {
  const marks = /^\s{0,3}#{1,6}\s+/.exec(line);
  if (!marks) return null;
  const start = marks[0].length;
  let end = line.length;
  while (end > start && /\s/.test(line[end - 1]!)) end--;
  while (end > start && line[end - 1] === '#') end--;
  while (end > start && /\s/.test(line[end - 1]!)) end--;
  const title = line.slice(start, end);
  return /[\n\r\u2028\u2029]/.test(title) ? null : title;
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
    const heading = fenced ? null : headingTitle(line);
    if (heading !== null) {
      parts.push(current);
      const title = markdownWords(heading).trim();
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

/**
 * Why the HTML is not read by regexes alone: a pattern such as `<[^>]*>` or `<!--[\s\S]*?-->`
 * is tried again from every "<" when its closing part is missing, each try reading to the end of
 * the page, so a page of "<" or "<!--" took seconds. Every match below is the regex's own, found
 * in time linear in the page: a tag pattern runs only up to the last ">", and a block's closing
 * part, once missing, is not looked for again (it is missing for every later opener too).
 */

/** `tag` (a pattern `<…[^>]*>`) replaced, run only up to the last ">": a "<" after it opens no tag. */
function replaceTags(html: string, tag: RegExp, by: string): string {
  const end = html.lastIndexOf('>') + 1;
  return html.slice(0, end).replace(tag, by) + html.slice(end);
}

/** HTML's visible text: block elements end lines, everything else is words. */
function htmlWords(html: string): string {
  const lines = replaceTags(html, /<(br|\/p|\/div|\/li|\/tr|\/h[1-6]|\/section|\/article|\/blockquote|\/pre)\b[^>]*>/gi, '\n');
  return decodeEntities(replaceTags(lines, /<[^>]*>/g, ' '))
    .split('\n')
    .map((l) => l.replace(/[ \t\f\v]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/**
 * Comments (`<!--` to the first `-->` after it) replaced by a space. An unclosed one is left as it
 * is, as before: its words stay, up to its first ">" it reads as a tag; and so is every later
 * "<!--", which has no "-->" after it either. In a page cut short its close was cut off: the rest
 * is dropped.
 */
function dropComments(html: string, truncated: boolean): string {
  let out = '';
  let from = 0;
  for (let open = html.indexOf('<!--'); open >= 0; open = html.indexOf('<!--', from)) {
    const close = html.indexOf('-->', open + 4);
    if (close < 0) return truncated ? `${out}${html.slice(from, open)} ` : out + html.slice(from);
    out += `${html.slice(from, open)} `;
    from = close + 3;
  }
  return out + html.slice(from);
}

/** Elements whose content a reader never sees, each with its closing tag (any case, as `<\/\1\s*>` under the i flag). */
const HIDDEN = /<(script|style|noscript|template|head)\b/gi;
const HIDDEN_CLOSE = new Map(['script', 'style', 'noscript', 'template', 'head'].map((name) => [name, new RegExp(`<\\/${name}\\s*>`, 'gi')]));

/**
 * Scripts, styles and the like (`<script…` to the first `</script>` after it) replaced by a space.
 * One left unclosed stays, as before: its tags are dropped as tags, its words kept. In a page cut
 * short its close was cut off: the first such opener drops the rest, code is no words.
 */
function dropHidden(html: string, truncated: boolean): string {
  const unclosed = new Set<string>();
  let out = '';
  let from = 0;
  HIDDEN.lastIndex = 0;
  for (let m = HIDDEN.exec(html); m; m = HIDDEN.exec(html)) {
    const name = m[1]!.toLowerCase();
    if (unclosed.has(name)) continue;
    const close = HIDDEN_CLOSE.get(name)!;
    close.lastIndex = HIDDEN.lastIndex;
    const c = close.exec(html);
    if (!c) {
      if (truncated) return `${out}${html.slice(from, m.index)} `;
      unclosed.add(name);
      continue;
    }
    out += `${html.slice(from, m.index)} `;
    from = HIDDEN.lastIndex = c.index + c[0].length;
  }
  return out + html.slice(from);
}

interface Heading {
  index: number;
  end: number;
  /** The markup between `<hN…>` and `</hN>`. */
  inner: string;
}

const HEADING_OPEN = /<h([1-6])\b/gi;
const HEADING_CLOSE = new Map(['1', '2', '3', '4', '5', '6'].map((n) => [n, new RegExp(`<\\/h${n}\\s*>`, 'gi')]));

/**
 * The headings of a page in order, as `<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>` finds them: the
 * opening tag ends at the first ">", the heading at the first closing tag of its level after it.
 * A level whose closing tag is missing is not looked for again; with no ">" left, no tag opens.
 */
function headings(html: string): Heading[] {
  const found: Heading[] = [];
  const unclosed = new Set<string>();
  HEADING_OPEN.lastIndex = 0;
  for (let m = HEADING_OPEN.exec(html); m; m = HEADING_OPEN.exec(html)) {
    const level = m[1]!;
    if (unclosed.has(level)) continue;
    const tagEnd = html.indexOf('>', HEADING_OPEN.lastIndex);
    if (tagEnd < 0) break;
    const close = HEADING_CLOSE.get(level)!;
    close.lastIndex = tagEnd + 1;
    const c = close.exec(html);
    if (!c) {
      unclosed.add(level);
      continue;
    }
    found.push({ index: m.index, end: c.index + c[0].length, inner: html.slice(tagEnd + 1, c.index) });
    HEADING_OPEN.lastIndex = c.index + c[0].length;
  }
  return found;
}

/**
 * HTML split at its headings (`<h1>` … `<h6>`), scripts, styles and comments removed. `truncated`
 * says the page was cut short (readDocument reads a bounded prefix): what its cut left open, a
 * comment, a script, a tag, is dropped rather than read as words.
 */
export function readHtml(source: string, { truncated = false }: { truncated?: boolean } = {}): ExtractedText {
  let body = dropHidden(dropComments(source, truncated), truncated);
  if (truncated) {
    // A tag cut open: its attributes are no words.
    const open = body.indexOf('<', body.lastIndexOf('>') + 1);
    if (open >= 0) body = body.slice(0, open);
  }
  const parts: Part[] = [];
  let at = 0;
  let section: string | undefined;
  for (const h of headings(body)) {
    parts.push({ ...(section !== undefined ? { section } : {}), text: htmlWords(body.slice(at, h.index)) });
    section = htmlWords(h.inner).replace(/\n/g, ' ');
    parts.push({ section, text: section });
    at = h.end;
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
