/** A few helpers for building the DOM by hand, and the formatting every pane shares. */

export type Child = Node | string | number | null | undefined | false | Child[];
type Props = Record<string, unknown>;

/**
 * Creates an element. `onClick`-style props add listeners; `true` sets an empty attribute; `false`,
 * null and undefined are skipped; `value`, `checked` and `disabled` are set as properties.
 *
 * @example
 * h('button', { type: 'button', onClick: save }, 'Save')
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value as EventListener);
    else if (key === 'value' || key === 'checked' || key === 'disabled') (element as unknown as Record<string, unknown>)[key] = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function render(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let nextId = 0;
/** A page-unique id for pairing a label with its control. */
export function uid(prefix: string): string {
  return `${prefix}-${++nextId}`;
}

/** A labelled control: `<div class="field"><label for>…</label>control hint</div>`. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  control.id ||= uid('field');
  const hintId = hint ? `${control.id}-hint` : null;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
}

/** A status line that screen readers announce. */
export function statusLine(): HTMLParagraphElement {
  return h('p', { class: 'status-line', role: 'status', 'aria-live': 'polite' });
}

/** Shows `text` in a status line; `tone` colours it. */
export function say(line: HTMLElement, text: string, tone: 'info' | 'ok' | 'error' = 'info'): void {
  line.textContent = text;
  line.dataset['tone'] = tone;
}

/**
 * A caught error as one line: its catalog code first when it has one. A validation error lists its
 * problems (`body.top_k: …`) instead of its message, which only repeats the first of them.
 */
export function describeError(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; details?: unknown };
  const problems = Array.isArray(e?.details) ? (e.details as { loc?: unknown[]; msg?: string }[]).map((d) => `${(d.loc ?? []).join('.')}: ${d.msg ?? ''}`) : [];
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
  const text = problems.length ? `${problems.slice(0, 3).join('; ')}${more}` : typeof e?.message === 'string' ? e.message : String(error);
  return typeof e?.code === 'string' ? `${e.code}: ${text}` : text;
}

/** A score as the contract gives it, with 3 decimals (raw BM25 can exceed 1). */
export function formatScore(score: number | null | undefined): string {
  if (typeof score !== 'number') return '—';
  // Calibrated scores are probabilities and often tiny: "0.000" would read as "no evidence at all".
  if (score > 0 && score < 0.001) return '<0.001';
  return score.toFixed(3);
}

/** An ISO timestamp or epoch ms as a short UTC date and time. */
export function formatTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A byte count for people: `9.1 MB`. */
export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return 'unknown';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** Offers `content` as a file download. */
export function download(fileName: string, content: string, type: string): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = h('a', { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A pane: a labelled section with its heading and a one-paragraph lede, then its content. */
export function pane(id: string, title: string, lede: string, ...children: Child[]): HTMLElement {
  return h(
    'section',
    { id, class: 'pane', 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title` }, title),
    h('p', { class: 'lede' }, lede),
    ...children,
  );
}
