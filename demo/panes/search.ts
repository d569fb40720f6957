/**
 * Search: the EverOS search request as a form (method, top_k, radius, min_score, include_profile
 * and a filter builder), and the answer as a person reads it: episodes with their facts, the
 * profile, agent cases and skills, messages still in the buffer, each with its score and the
 * recall legs that found it, plus every notice of a degraded path.
 */
import type { FilterNode, SearchMethod, SearchResponse } from '../../src/contract/types.js';
import type { SearchTrace } from '../../src/search/search.js';
import { describeError, field, formatScore, h, render, say, statusLine, type Child, pane } from '../dom.js';
import { caseView, episodeView, messageView, profileView, skillView, type ItemViewOptions } from '../memory-views.js';
import { identityProblem, type AppContext } from '../store.js';

interface Answer {
  response: SearchResponse;
  /** Only when the engine answered directly; the HTTP route carries notice codes in a header. */
  trace: SearchTrace | null;
  notices: { code: string; message: string }[];
  via: 'engine' | 'http';
  tookMs: number;
  /** The method that was asked for (the HTTP route does not echo it). */
  method: string;
}

/** Calibrated scores at or above this are worth reading first: about a 1 % chance of holding the answer. */
const CALIBRATED_FLOOR = 0.01;

/**
 * What a method's score means, in one line, and the floor below which episodes are folded. The
 * contract's answer is kept whole; folding only spares a reader the long tail a top_k brings.
 * Calibrated scores have a meaning of their own; raw BM25 and cosine do not, so for them the
 * floor is relative: a tenth of the best episode's score.
 */
function scoreScale(method: string, best: number): { meaning: string; floor: number } {
  if (method === 'keyword') {
    const floor = best / 10;
    return { floor, meaning: `Score: raw BM25 — how well the words match, with no fixed scale; episodes under a tenth of the best (${formatScore(floor)}) are folded.` };
  }
  if (method === 'vector') {
    const floor = best / 10;
    return { floor, meaning: `Score: raw cosine similarity of meaning (up to 1); episodes under a tenth of the best (${formatScore(floor)}) are folded.` };
  }
  return { floor: CALIBRATED_FLOOR, meaning: `Score: the estimated chance (0–1) that the item holds the answer; episodes under ${formatScore(CALIBRATED_FLOOR)} are folded.` };
}

const METHODS: { value: SearchMethod; label: string }[] = [
  { value: 'hybrid', label: 'Hybrid — keyword + vector, fused' },
  { value: 'keyword', label: 'Keyword — BM25' },
  { value: 'vector', label: 'Vector — embeddings' },
  { value: 'agentic', label: 'Agentic — multi-round (no sufficiency check without an LLM)' },
];

/** The Search pane. */
export function searchPane(ctx: AppContext): HTMLElement {
  const { store } = ctx;
  const query = h('input', { type: 'search', name: 'query', required: true, autocomplete: 'off', placeholder: 'e.g. where is Maya travelling in May?' });
  const method = h('select', { name: 'method' }, METHODS.map((m) => h('option', { value: m.value }, m.label)));
  const topK = h('input', { type: 'number', name: 'top_k', min: -1, max: 100, step: 1, value: '10' });
  const radius = h('input', { type: 'number', name: 'radius', min: 0, max: 1, step: 0.05, placeholder: 'none' });
  const minScore = h('input', { type: 'number', name: 'min_score', min: 0, max: 1, step: 0.05, placeholder: 'none' });
  const includeProfile = h('input', { type: 'checkbox', name: 'include_profile', checked: true, id: 'search-include-profile' });
  const ownerUser = h('input', { type: 'radio', name: 'search-owner', value: 'user', checked: true, id: 'search-owner-user' });
  const ownerAgent = h('input', { type: 'radio', name: 'search-owner', value: 'agent', id: 'search-owner-agent' });
  const ownerUserName = h('span');
  const ownerAgentName = h('span');
  const session = h('input', { type: 'text', name: 'filter-session', list: 'known-sessions', autocomplete: 'off', spellcheck: 'false', placeholder: 'any' });
  const from = h('input', { type: 'date', name: 'filter-from' });
  const to = h('input', { type: 'date', name: 'filter-to' });
  const sender = h('input', { type: 'text', name: 'filter-sender', autocomplete: 'off', spellcheck: 'false', placeholder: 'any' });
  const overHttp = h('input', { type: 'checkbox', name: 'over-http', id: 'search-over-http' });
  const submit = h('button', { type: 'submit' }, 'Search');
  const requestPreview = h('pre', { class: 'json' });
  const status = statusLine();
  const results = h('div', { class: 'results', 'aria-live': 'polite', 'aria-busy': 'false' });

  const form = h(
    'form',
    { class: 'card search-form', role: 'search', 'aria-label': 'Search memories' },
    h('div', { class: 'row' }, h('div', { class: 'grow' }, field('Query', query)), h('div', { class: 'field align-end' }, submit)),
    h(
      'div',
      { class: 'row wrap' },
      field('Method', method),
      field('top_k', topK, '−1 = everything relevant; 1–100'),
      field('radius', radius, 'cosine floor 0–1'),
      field('min_score', minScore, 'relevance floor 0–1'),
    ),
    h(
      'div',
      { class: 'row wrap' },
      h(
        'fieldset',
        { class: 'inline' },
        h('legend', null, 'Memories of'),
        h('label', { for: 'search-owner-user' }, ownerUser, ' User ', ownerUserName),
        h('label', { for: 'search-owner-agent' }, ownerAgent, ' Agent ', ownerAgentName),
      ),
      h('div', { class: 'check' }, includeProfile, h('label', { for: 'search-include-profile' }, 'include_profile')),
    ),
    h(
      'fieldset',
      { class: 'filters' },
      h('legend', null, 'Filters'),
      h(
        'div',
        { class: 'row wrap' },
        field('Session', session, 'also shows its unprocessed messages'),
        field('From (UTC day)', from),
        field('To (UTC day)', to),
        field('Sender', sender, 'a sender id'),
      ),
    ),
    h('div', { class: 'check' }, overHttp, h('label', { for: 'search-over-http' }, 'Send as HTTP: ', h('code', null, 'POST /api/v1/memory/search'), ', answered by the service worker')),
    h('details', null, h('summary', null, 'Request body'), requestPreview),
    status,
  );

  function filters(): FilterNode | null {
    const node: FilterNode = {};
    if (session.value.trim()) node['session_id'] = session.value.trim();
    const range: Record<string, string> = {};
    if (from.value) range['gte'] = `${from.value}T00:00:00Z`;
    if (to.value) range['lte'] = `${to.value}T23:59:59.999Z`;
    if (Object.keys(range).length) node['timestamp'] = range;
    if (sender.value.trim()) node['sender_id'] = sender.value.trim();
    return Object.keys(node).length ? node : null;
  }

  function request(): Record<string, unknown> {
    const { userId, agentId } = store.get().identity;
    const asAgent = ownerAgent.checked;
    const body: Record<string, unknown> = asAgent ? { agent_id: agentId } : { user_id: userId };
    body['query'] = query.value;
    body['method'] = method.value;
    body['top_k'] = topK.value === '' ? -1 : Number(topK.value);
    if (radius.value !== '') body['radius'] = Number(radius.value);
    if (minScore.value !== '') body['min_score'] = Number(minScore.value);
    if (!asAgent) body['include_profile'] = includeProfile.checked;
    const f = filters();
    if (f) body['filters'] = f;
    return body;
  }

  const showRequest = () => {
    requestPreview.textContent = JSON.stringify(request(), null, 2);
    includeProfile.disabled = ownerAgent.checked;
  };
  // An error describes the request that was sent: once the form changes, it no longer applies.
  const edited = () => {
    showRequest();
    if (status.dataset['tone'] === 'error') say(status, '');
  };
  form.addEventListener('input', edited);
  form.addEventListener('change', edited);
  // The browser refuses to send a form with an out-of-range field; say which one, in the status
  // line (its own bubble is easy to miss, and gone after a moment). `invalid` does not bubble.
  form.addEventListener(
    'invalid',
    () => {
      const bad = [...form.elements].filter((el): el is HTMLInputElement => el instanceof HTMLInputElement && !el.validity.valid);
      say(status, `Not sent: ${bad.map((el) => `${el.name} — ${el.validationMessage}`).join('; ')}`, 'error');
    },
    true,
  );

  async function run(body: Record<string, unknown>): Promise<Answer> {
    const started = performance.now();
    if (overHttp.checked) {
      const response = await fetch(new URL('api/v1/memory/search', document.baseURI), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await response.json()) as unknown;
      if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { code: `HTTP_${response.status}`, details: (json as { detail?: unknown }).detail });
      const codes = response.headers.get('x-engram-notices');
      const notices = codes ? codes.split(', ').map((code) => ({ code, message: 'reported in the x-engram-notices header' })) : [];
      return { response: json as SearchResponse, trace: null, notices, via: 'http', tookMs: performance.now() - started, method: String(body['method']) };
    }
    const memory = await ctx.memory;
    const { response, trace } = await memory.searchWithTrace(body);
    return { response, trace, notices: trace.notices, via: 'engine', tookMs: performance.now() - started, method: trace.method };
  }

  let answered = 0;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const problem = identityProblem(store.get());
    if (problem) return say(status, `${problem}. Not searched: fix it at the top first.`, 'error');
    const body = request();
    showRequest();
    submit.disabled = true;
    results.setAttribute('aria-busy', 'true');
    say(status, 'Searching…');
    void run(body)
      .then((answer) => {
        renderAnswer(answer);
        results.dataset['answered'] = String(++answered);
        const { data } = answer.response;
        const found = data.episodes.length + data.agent_cases.length + data.agent_skills.length;
        say(status, `${found} result${found === 1 ? '' : 's'} in ${answer.tookMs.toFixed(0)} ms (${answer.via === 'http' ? 'over HTTP' : 'from the engine'}).`, 'ok');
      })
      .catch((error: unknown) => {
        render(results);
        say(status, describeError(error), 'error');
      })
      .finally(() => {
        submit.disabled = false;
        results.setAttribute('aria-busy', 'false');
      });
  });

  function group(title: string, items: Child[], empty?: string, count = items.length): Child {
    if (!items.length && !empty) return null;
    return h('section', { class: 'group', 'aria-label': title }, h('h3', null, `${title} (${count})`), items.length ? items : h('p', { class: 'meta' }, empty ?? ''));
  }

  /** The episodes, those under the floor folded behind a count that opens them. */
  function episodes(answer: Answer, options: ItemViewOptions): { list: Child; meaning: string | null } {
    const all = answer.response.data.episodes;
    if (!all.length) return { list: group('Episodes', [], 'No episode matched.'), meaning: null };
    const { floor, meaning } = scoreScale(answer.method, Math.max(...all.map((e) => e.score)));
    const above = all.filter((e) => e.score >= floor);
    const below = all.filter((e) => e.score < floor);
    // Nothing above the floor: folding everything would hide the whole answer.
    if (!above.length || !below.length) return { list: group('Episodes', all.map((e) => episodeView(e, options))), meaning };
    const folded = h(
      'details',
      { class: 'folded' },
      h('summary', null, `${below.length} more episode${below.length === 1 ? '' : 's'} scoring under ${formatScore(floor)}`),
      below.map((e) => episodeView(e, options)),
    );
    return { list: group('Episodes', [...above.map((e) => episodeView(e, options)), folded], undefined, all.length), meaning };
  }

  function renderAnswer(answer: Answer): void {
    const { data } = answer.response;
    const options: ItemViewOptions = { scores: true, ...(answer.trace ? { legs: answer.trace.legs } : {}) };
    const trace = answer.trace;
    const found = episodes(answer, options);
    render(
      results,
      h(
        'div',
        { class: 'summary' },
        h('p', null, [
          `${data.episodes.length} episodes · ${data.profiles.length} profile · ${data.agent_cases.length} cases · ${data.agent_skills.length} skills · ${data.unprocessed_messages.length} unprocessed`,
          trace ? ` · method ${trace.method}, ${trace.rounds} round${trace.rounds === 1 ? '' : 's'}, ${trace.took_ms.toFixed(1)} ms in the engine` : ' · recall legs are shown for engine searches only',
        ]),
        trace?.supplementary_queries.length ? h('p', { class: 'meta' }, `Supplementary queries: ${trace.supplementary_queries.join(' | ')}`) : null,
        found.meaning ? h('p', { class: 'meta score-meaning' }, found.meaning) : null,
      ),
      answer.notices.length
        ? h('ul', { class: 'notices', 'aria-label': 'Notices' }, answer.notices.map((n) => h('li', null, h('code', null, n.code), ' ', n.message)))
        : null,
      llmAnswer(answer),
      found.list,
      group('Profile', data.profiles.map((p) => profileView(p))),
      group('Agent cases', data.agent_cases.map((c) => caseView(c, options))),
      group('Agent skills', data.agent_skills.map((s) => skillView(s, options))),
      data.unprocessed_messages.length ? h('section', { class: 'group', 'aria-label': 'Unprocessed messages' }, h('h3', null, `Unprocessed messages (${data.unprocessed_messages.length})`), h('ol', { class: 'messages' }, data.unprocessed_messages.map(messageView))) : null,
      h('details', null, h('summary', null, 'Response JSON'), h('pre', { class: 'json' }, JSON.stringify(answer.response, null, 2))),
    );
  }

  /** With an on-device LLM loaded, it can answer the question from what was found. */
  function llmAnswer(answer: Answer): Child {
    const llm = ctx.llm();
    if (!llm) return null;
    const out = h('p', { class: 'llm-answer', 'aria-live': 'polite' });
    const button = h('button', { type: 'button', class: 'secondary' }, 'Answer with the LLM');
    button.addEventListener('click', () => {
      button.disabled = true;
      out.textContent = 'Thinking…';
      const { data } = answer.response;
      const context = [
        ...data.episodes.map((e) => `- ${e.summary} ${e.atomic_facts.map((f) => f.content).join(' ')}`),
        ...data.profiles.map((p) => `- Profile: ${JSON.stringify(p.profile_data)}`),
      ].join('\n');
      llm
        .complete({
          messages: [
            { role: 'system', content: 'Answer in one or two sentences using only the memories given. Say so when they do not contain the answer.' },
            { role: 'user', content: `Memories:\n${context}\n\nQuestion: ${query.value}` },
          ],
          maxTokens: 200,
        })
        .then((text) => (out.textContent = text), (error: unknown) => (out.textContent = describeError(error)))
        .finally(() => (button.disabled = false));
    });
    return h('div', { class: 'card llm' }, h('h3', null, `Answer (${llm.id})`), button, out);
  }

  const showOwners = () => {
    ownerUserName.textContent = `(${store.get().identity.userId})`;
    ownerAgentName.textContent = `(${store.get().identity.agentId})`;
    showRequest();
  };
  store.subscribe(showOwners);
  showOwners();

  return pane(
    'search',
    'Search',
    'The EverOS search request, as a form. Results show each item’s score and which recall legs (keyword, vector) found it.',
    form,
    results,
  );
}
