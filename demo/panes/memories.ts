/**
 * Memories: everything an owner has, one kind at a time, page by page (the `get` route). A record
 * opens in a dialog, where it can be deleted; "forget" deletes everything about the owner.
 */
import type { GetResponse, MemoryType, SearchAtomicFactItem, SearchEpisodeItem } from '../../src/contract/types.js';
import { describeError, field, formatTime, h, render, say, statusLine, pane } from '../dom.js';
import { caseView, episodeView, profileView, skillView } from '../memory-views.js';
import type { AppContext } from '../store.js';

const KINDS: { value: MemoryType; label: string }[] = [
  { value: 'episode', label: 'Episodes' },
  { value: 'atomic_fact', label: 'Atomic facts' },
  { value: 'foresight', label: 'Foresight (plans)' },
  { value: 'profile', label: 'Profile' },
  { value: 'agent_case', label: 'Agent cases' },
  { value: 'agent_skill', label: 'Agent skills' },
  { value: 'knowledge', label: 'Knowledge' },
];

/** One row of the list, whatever its kind. */
interface Row {
  id: string;
  /** What it is, e.g. `Episode`. */
  kind: string;
  title: string;
  meta: string;
  /** The record as the `get` route returned it, for the detail view. */
  record: unknown;
  view: () => HTMLElement;
}

/** The Memories pane. */
export function memoriesPane(ctx: AppContext): HTMLElement {
  const { store } = ctx;
  const ownerUser = h('input', { type: 'radio', name: 'browse-owner', value: 'user', checked: true, id: 'browse-owner-user' });
  const ownerAgent = h('input', { type: 'radio', name: 'browse-owner', value: 'agent', id: 'browse-owner-agent' });
  const ownerUserName = h('span');
  const ownerAgentName = h('span');
  const kind = h('select', { name: 'memory_type' }, KINDS.map((k) => h('option', { value: k.value }, k.label)));
  const session = h('input', { type: 'text', name: 'browse-session', list: 'known-sessions', autocomplete: 'off', spellcheck: 'false', placeholder: 'any' });
  const pageSize = h('select', { name: 'page_size' }, [10, 20, 50].map((n) => h('option', { value: String(n) }, String(n))));
  const order = h('select', { name: 'sort_order' }, h('option', { value: 'desc' }, 'Newest first'), h('option', { value: 'asc' }, 'Oldest first'));
  const show = h('button', { type: 'submit' }, 'Show');
  const status = statusLine();
  const list = h('ol', { class: 'records', 'aria-label': 'Records' });
  const previous = h('button', { type: 'button', class: 'secondary' }, 'Previous page');
  const next = h('button', { type: 'button', class: 'secondary' }, 'Next page');
  const pageInfo = h('span', { class: 'page-info', 'aria-live': 'polite' });
  const forget = h('button', { type: 'button', class: 'danger' });
  const forgetStatus = statusLine();
  let page = 1;

  const form = h(
    'form',
    { class: 'card', 'aria-label': 'Which memories' },
    h(
      'fieldset',
      { class: 'inline' },
      h('legend', null, 'Owner'),
      h('label', { for: 'browse-owner-user' }, ownerUser, ' User ', ownerUserName),
      h('label', { for: 'browse-owner-agent' }, ownerAgent, ' Agent ', ownerAgentName),
    ),
    h(
      'div',
      { class: 'row wrap' },
      field('Kind', kind),
      field('Session', session),
      field('Page size', pageSize),
      field('Order', order),
      h('div', { class: 'field align-end' }, show),
    ),
    status,
  );

  // The record dialog and the "forget" confirmation: native <dialog>, so focus and Escape work.
  const detailTitle = h('h3', { id: 'record-title' });
  const detailBody = h('div', { class: 'detail' });
  const detailDelete = h('button', { type: 'button', class: 'danger' }, 'Delete this record');
  const detailClose = h('button', { type: 'button', class: 'secondary' }, 'Close');
  const detailStatus = statusLine();
  const detail = h('dialog', { class: 'record-dialog', 'aria-labelledby': 'record-title' }, detailTitle, detailBody, detailStatus, h('div', { class: 'actions' }, detailDelete, detailClose));
  detailClose.addEventListener('click', () => detail.close());

  const confirmText = h('p');
  const confirmYes = h('button', { type: 'button', class: 'danger' }, 'Forget');
  const confirmNo = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const confirm = h('dialog', { class: 'confirm-dialog', 'aria-labelledby': 'confirm-title', role: 'alertdialog' }, h('h3', { id: 'confirm-title' }, 'Forget everything?'), confirmText, h('div', { class: 'actions' }, confirmNo, confirmYes));
  confirmNo.addEventListener('click', () => confirm.close());

  const owner = (): Record<string, string> => (ownerAgent.checked ? { agent_id: store.get().identity.agentId } : { user_id: store.get().identity.userId });
  const ownerText = () => (ownerAgent.checked ? `agent ${store.get().identity.agentId}` : `user ${store.get().identity.userId}`);

  function rowsOf(data: GetResponse['data'], type: MemoryType): Row[] {
    const episodes = (e: SearchEpisodeItem): Row => ({ id: e.id, kind: type === 'knowledge' ? 'Knowledge' : 'Episode', title: e.subject, meta: `${formatTime(e.timestamp)}${e.session_id ? ` · session ${e.session_id}` : ''}${e.atomic_facts.length ? ` · ${e.atomic_facts.length} fact${e.atomic_facts.length === 1 ? '' : 's'}` : ''}`, record: e, view: () => episodeView(e) });
    switch (type) {
      case 'episode':
      case 'knowledge':
        return data.episodes.map(episodes);
      case 'atomic_fact':
      case 'foresight':
        return data.episodes.flatMap((e) =>
          e.atomic_facts.map((f: SearchAtomicFactItem): Row => ({
            id: f.id,
            kind: type === 'foresight' ? 'Foresight' : 'Atomic fact',
            title: f.content,
            meta: `from “${e.subject}” · ${formatTime(e.timestamp)}${e.session_id ? ` · session ${e.session_id}` : ''}`,
            record: { ...f, episode_id: e.id, episode_subject: e.subject, session_id: e.session_id },
            view: () => h('article', { class: 'item' }, h('p', null, f.content), h('p', { class: 'meta' }, `Part of the episode “${e.subject}” (${formatTime(e.timestamp)})`)),
          })),
        );
      case 'profile':
        return data.profiles.map((p) => ({ id: p.id, kind: 'Profile', title: `Profile of ${p.user_id}`, meta: `${Object.keys(p.profile_data).length} fields`, record: p, view: () => profileView(p) }));
      case 'agent_case':
        return data.agent_cases.map((c) => ({ id: c.id, kind: 'Agent case', title: c.task_intent, meta: `${formatTime(c.timestamp)} · session ${c.session_id} · quality ${c.quality_score.toFixed(2)}`, record: c, view: () => caseView(c) }));
      case 'agent_skill':
        return data.agent_skills.map((s) => ({ id: s.id, kind: 'Agent skill', title: s.name, meta: `confidence ${s.confidence.toFixed(2)} · ${s.source_case_ids.length} cases`, record: s, view: () => skillView(s) }));
    }
  }

  async function load(): Promise<void> {
    const type = kind.value as MemoryType;
    const size = Number(pageSize.value);
    const body: Record<string, unknown> = { ...owner(), memory_type: type, page, page_size: size, sort_order: order.value };
    if (session.value.trim()) body['filters'] = { session_id: session.value.trim() };
    try {
      const memory = await ctx.memory;
      const { data } = (await memory.get(body)) as GetResponse;
      const pages = Math.max(1, Math.ceil(data.total_count / size));
      if (page > pages) {
        page = pages;
        return load();
      }
      const rows = rowsOf(data, type);
      render(
        list,
        rows.length
          ? rows.map((row) =>
              h(
                'li',
                { class: 'record' },
                h('div', { class: 'record-text' }, h('p', { class: 'record-title' }, row.title), h('p', { class: 'meta' }, row.meta)),
                h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', 'aria-label': `Open: ${row.title}`, onClick: () => openRecord(row) }, 'Open'), h('button', { type: 'button', class: 'secondary danger-text', 'aria-label': `Delete: ${row.title}`, onClick: () => void remove(row) }, 'Delete')),
              ),
            )
          : h('li', { class: 'empty' }, `No ${KINDS.find((k) => k.value === type)?.label.toLowerCase()} for ${ownerText()}${session.value.trim() ? ` in session ${session.value.trim()}` : ''}.`),
      );
      pageInfo.textContent = `Page ${page} of ${pages} · ${data.total_count} record${data.total_count === 1 ? '' : 's'}`;
      previous.disabled = page <= 1;
      next.disabled = page >= pages;
      say(status, '');
    } catch (error) {
      render(list);
      say(status, describeError(error), 'error');
    }
  }

  function openRecord(row: Row): void {
    detailTitle.textContent = row.kind;
    render(detailBody, h('p', { class: 'meta' }, `id ${row.id}`), row.view(), h('details', null, h('summary', null, 'Record JSON'), h('pre', { class: 'json' }, JSON.stringify(row.record, null, 2))));
    say(detailStatus, '');
    detailDelete.onclick = () => void remove(row, detailStatus).then((ok) => ok && detail.close());
    detail.showModal();
  }

  async function remove(row: Row, line = status): Promise<boolean> {
    try {
      const memory = await ctx.memory;
      const { data } = await memory.delete({ ...owner(), memory_id: row.id });
      say(status, `Deleted “${row.title}” (${data.deleted_count} record${data.deleted_count === 1 ? '' : 's'} with its facts).`, 'ok');
      return true;
    } catch (error) {
      say(line, describeError(error), 'error');
      return false;
    }
  }

  forget.addEventListener('click', () => {
    confirmText.textContent = `This deletes every memory of ${ownerText()}: episodes, facts, plans, profile, cases and skills, the messages of theirs still waiting in buffers, and other owners’ records that quote them. It cannot be undone.`;
    confirmYes.textContent = `Forget ${ownerText()}`;
    confirm.showModal();
    confirmNo.focus();
  });
  confirmYes.addEventListener('click', () => {
    confirm.close();
    void (async () => {
      try {
        const memory = await ctx.memory;
        const { data } = await memory.delete(owner());
        say(forgetStatus, `Forgot ${ownerText()}: ${data.deleted_count} records deleted.`, 'ok');
      } catch (error) {
        say(forgetStatus, describeError(error), 'error');
      }
    })();
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    page = 1;
    void load();
  });
  form.addEventListener('change', () => {
    page = 1;
    void load();
  });
  previous.addEventListener('click', () => {
    page = Math.max(1, page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    page++;
    void load();
  });

  let shown = '';
  const sync = () => {
    const state = store.get();
    ownerUserName.textContent = `(${state.identity.userId})`;
    ownerAgentName.textContent = `(${state.identity.agentId})`;
    forget.textContent = `Forget everything about ${ownerText()}`;
    const key = `${state.revision}|${state.identity.userId}|${state.identity.agentId}|${state.engine.status}`;
    if (key !== shown && state.engine.status === 'ready') {
      shown = key;
      void load();
    }
  };
  store.subscribe(sync);
  ownerUser.addEventListener('change', sync);
  ownerAgent.addEventListener('change', sync);
  sync();

  return pane(
    'memories',
    'Memories',
    'Everything stored for an owner, one kind at a time. Open a record to see it whole, or delete it with its facts.',
    form,
    h('div', { class: 'card' }, list, h('nav', { class: 'pager', 'aria-label': 'Pages' }, previous, pageInfo, next)),
    h('div', { class: 'card danger-zone', role: 'group', 'aria-labelledby': 'forget-title' }, h('h3', { id: 'forget-title' }, 'Forget'), h('p', null, 'Deletes everything stored about the owner selected above, physically: nothing of it stays on this device.'), forget, forgetStatus),
    detail,
    confirm,
  );
}
