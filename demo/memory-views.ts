/**
 * How memory items look, wherever they appear: episodes with their facts, profiles, agent cases
 * and skills, and messages still waiting in a buffer. Scores and recall legs are shown when given.
 */
import type {
  ItemRef, SearchAgentCaseItem, SearchAgentSkillItem, SearchAtomicFactItem, SearchEpisodeItem, SearchProfileItem, UnprocessedMessageDTO,
} from '../src/contract/types.js';
import { h, formatScore, formatTime, type Child } from './dom.js';

/** Which recall legs found each item, by id (from the search trace). */
export type LegMap = Record<string, readonly string[]>;

/** What an item view shows besides the item. */
export interface ItemViewOptions {
  /** Show the score badge (search results; listings have no ranking). */
  scores?: boolean;
  legs?: LegMap;
  /** Buttons or links added to the item's header. */
  actions?: Child;
}

function badges(id: string, score: number | null | undefined, options: ItemViewOptions): Child {
  const legs = options.legs?.[id] ?? [];
  return [
    options.scores ? h('span', { class: 'badge score', title: 'score' }, `score ${formatScore(score)}`) : null,
    legs.map((leg) => h('span', { class: `badge leg leg-${leg}`, title: `found by the ${leg} leg` }, leg)),
  ];
}

function meta(...parts: (string | null | undefined | false)[]): HTMLParagraphElement {
  return h('p', { class: 'meta' }, parts.filter(Boolean).join(' · '));
}

/** An attachment a memory came with (image, audio, document, PDF), by name and where its words are. */
function attachment(ref: ItemRef): HTMLElement {
  const where = ref.page !== undefined ? `page ${ref.page}` : ref.section ? `“${ref.section}”` : null;
  const label = [ref.name ?? ref.uri ?? ref.type, where].filter(Boolean).join(' · ');
  return h('span', { class: 'badge attachment', title: `${ref.type}, ${ref.mime_type}${ref.size !== null ? `, ${ref.size} bytes` : ''}` }, `📎 ${label}`);
}

const attachments = (refs: ItemRef[] | undefined): Child => (refs?.length ? refs.map(attachment) : null);

function facts(list: SearchAtomicFactItem[], options: ItemViewOptions): Child {
  if (!list.length) return null;
  return h('ul', { class: 'facts', 'aria-label': 'Atomic facts' }, list.map((f) => h('li', null, h('span', null, f.content), ' ', badges(f.id, f.score, options), attachments(f.content_items))));
}

/** An episode (or a knowledge entry, which comes in the episode's shape) with its facts. */
export function episodeView(e: SearchEpisodeItem, options: ItemViewOptions = {}): HTMLElement {
  const isKnowledge = e.session_id === null && e.subject === e.summary;
  return h(
    'article',
    { class: 'item episode', 'data-id': e.id, 'data-score': options.scores ? String(e.score) : null },
    h('header', null, h('h4', null, e.subject), badges(e.id, e.score, options), options.actions ?? null),
    meta(formatTime(e.timestamp), isKnowledge ? 'knowledge' : e.session_id ? `session ${e.session_id}` : null, e.sender_ids.length ? `with ${e.sender_ids.join(', ')}` : null),
    isKnowledge ? h('p', null, e.episode) : h('p', null, e.summary),
    e.content_items?.length ? h('p', { class: 'attachments' }, attachments(e.content_items)) : null,
    facts(e.atomic_facts, options),
    isKnowledge ? null : h('details', null, h('summary', null, 'Full episode'), h('p', { class: 'narrative' }, e.episode)),
  );
}

/** A profile as a list of its fields. */
export function profileView(p: SearchProfileItem, options: ItemViewOptions = {}): HTMLElement {
  const rows = Object.entries(p.profile_data).filter(([, v]) => v !== null && v !== '' && !(Array.isArray(v) && v.length === 0));
  return h(
    'article',
    { class: 'item profile', 'data-id': p.id },
    h('header', null, h('h4', null, `Profile of ${p.user_id ?? 'this owner'}`), options.actions ?? null),
    rows.length
      ? h('dl', { class: 'pairs' }, rows.map(([k, v]) => [h('dt', null, k.replace(/_/g, ' ')), h('dd', null, Array.isArray(v) ? v.map(String).join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v))]))
      : h('p', { class: 'meta' }, 'Nothing known yet.'),
  );
}

/** An agent case: the task, what the agent did, how well it went. */
export function caseView(c: SearchAgentCaseItem, options: ItemViewOptions = {}): HTMLElement {
  return h(
    'article',
    { class: 'item case', 'data-id': c.id },
    h('header', null, h('h4', null, c.task_intent), badges(c.id, c.score, options), options.actions ?? null),
    meta(formatTime(c.timestamp), `session ${c.session_id}`, `agent ${c.agent_id}`, `quality ${c.quality_score.toFixed(2)}`),
    h('p', null, c.approach),
    c.key_insight ? h('p', { class: 'insight' }, c.key_insight) : null,
  );
}

/** An agent skill, learned from cases or written directly. */
export function skillView(s: SearchAgentSkillItem, options: ItemViewOptions = {}): HTMLElement {
  return h(
    'article',
    { class: 'item skill', 'data-id': s.id },
    h('header', null, h('h4', null, s.name), badges(s.id, s.score, options), options.actions ?? null),
    meta(`agent ${s.agent_id}`, `confidence ${s.confidence.toFixed(2)}`, `maturity ${s.maturity_score.toFixed(2)}`, `from ${s.source_case_ids.length} case${s.source_case_ids.length === 1 ? '' : 's'}`),
    h('p', null, s.description),
    h('details', null, h('summary', null, 'How'), h('p', { class: 'narrative' }, s.content)),
  );
}

/** A message still waiting in a session's buffer. */
export function messageView(m: UnprocessedMessageDTO): HTMLElement {
  // Items show as their words and a name: never their inline bytes.
  const text = typeof m.content === 'string'
    ? m.content
    : m.content.map((i) => (i['type'] === 'text' || i['type'] === undefined ? String(i['text'] ?? i['content'] ?? '') : `📎 ${String(i['name'] ?? i['type'])}${typeof i['caption'] === 'string' ? ` (${i['caption']})` : ''}`)).join(' ');
  return h(
    'li',
    { class: `message role-${m.role}` },
    h('p', { class: 'meta' }, h('span', { class: `badge role` }, m.role), ` ${m.sender_name ?? m.sender_id} · ${formatTime(m.timestamp)}`),
    h('p', null, text),
  );
}
