/**
 * The Engram demo: a memory that lives in this browser. Boots the memory worker, draws the header,
 * the navigation and the five panes, keeps the shared state, and registers the service worker that
 * makes it all work offline.
 */
import { createMemoryClient, type MemoryClient } from '../src/client.js';
import type { WebLlm } from '../src/models/webllm-llm.js';
import { MEMORY_NAME, MODEL_PATH, TEACHER_DIR, TFJS_WASM_DIR } from './config.js';
import { describeError, h, render } from './dom.js';
import { conversationPane } from './panes/conversation.js';
import { memoriesPane } from './panes/memories.js';
import { searchPane } from './panes/search.js';
import { statusPane } from './panes/status.js';
import { transferPane } from './panes/transfer.js';
import { createStore, identityProblem, initialState, persist, SCOPE_ID, type AppContext, type Identity } from './store.js';

const store = createStore(initialState());
persist(store);

const memory: Promise<MemoryClient> = createMemoryClient({
  name: MEMORY_NAME,
  modelUrl: new URL(MODEL_PATH, document.baseURI),
  // Built, the service worker's precache keeps the model: a second copy in another cache would
  // only cost 9.5 MB more. Under the dev server there is no service worker, so the client caches it.
  modelCache: __SERVICE_WORKER__ ? false : 'engram-models',
  // Agentic search reranks with the teacher, the model `npm run serve` uses. It loads while the
  // memory opens; its 28 MB model is not precached (a visitor may never search agentically) but
  // kept in the Cache API from the first visit, so later visits have it offline too.
  reranker: { provider: 'teacher', modelUrl: new URL(`${TEACHER_DIR}model.json`, document.baseURI), wasmPaths: new URL(TFJS_WASM_DIR, document.baseURI), cache: 'engram-models' },
  // The reranker loads beside the engine: its progress is its own, not the engine's.
  onProgress: (progress) => store.set((s) => (progress.phase === 'reranker' ? (progress.loaded === 1 ? { reranker: 'ready' } : {}) : { engine: { ...s.engine, progress } })),
  onNotice: (notice) => store.set((s) => ({ notices: [...s.notices, notice].slice(-20), ...(notice.code === 'reranker.unavailable' ? { reranker: 'failed' as const } : {}) })),
  onChange: () => store.set((s) => ({ revision: s.revision + 1 })),
});
memory.then(
  () => store.set((s) => ({ engine: { ...s.engine, status: 'ready', error: null } })),
  (error: unknown) => store.set((s) => ({ engine: { ...s.engine, status: 'failed', error: describeError(error) } })),
);

let llm: WebLlm | null = null;
const ctx: AppContext = {
  store,
  memory,
  llm: () => llm,
  setLlm(next) {
    llm = next;
  },
};

const PANES = [
  { id: 'conversation', label: 'Conversation', make: conversationPane },
  { id: 'search', label: 'Search', make: searchPane },
  { id: 'memories', label: 'Memories', make: memoriesPane },
  { id: 'transfer', label: 'Export / import', make: transferPane },
  { id: 'status', label: 'Status', make: statusPane },
] as const;

function identityForm(): HTMLFormElement {
  const problem = h('p', { class: 'identity-error', id: 'identity-error', role: 'alert', hidden: true });
  const input = (key: keyof Identity, label: string) => {
    const control = h('input', { type: 'text', id: `identity-${key}`, name: key, value: store.get().identity[key], autocomplete: 'off', spellcheck: 'false', size: 10, pattern: SCOPE_ID.source.slice(1, -1) });
    // Checked as the person types, kept on change: an invalid id is explained at once, and the
    // panes refuse to write or search until it is fixed (see identityProblem).
    const check = (commit: boolean) => {
      const value = control.value.trim();
      const valid = SCOPE_ID.test(value);
      control.setAttribute('aria-invalid', String(!valid));
      if (valid) control.removeAttribute('aria-describedby');
      else control.setAttribute('aria-describedby', problem.id);
      store.set((s) => {
        const { [key]: _dropped, ...rejected } = s.rejectedIdentity;
        return {
          rejectedIdentity: valid ? rejected : { ...rejected, [key]: value },
          ...(valid && commit ? { identity: { ...s.identity, [key]: value } } : {}),
        };
      });
    };
    control.addEventListener('input', () => check(false));
    control.addEventListener('change', () => check(true));
    return h('div', { class: 'identity-field' }, h('label', { for: control.id }, label), control);
  };
  const form = h('form', { class: 'identity', 'aria-label': 'Who is talking' }, input('userId', 'User id'), input('agentId', 'Agent id'), problem);
  form.addEventListener('submit', (event) => event.preventDefault());
  store.subscribe((state) => {
    const text = identityProblem(state);
    problem.hidden = !text;
    problem.textContent = text ? `${text}. Messages and searches wait until it is fixed; the panes still use “${state.identity.userId}” and “${state.identity.agentId}”.` : '';
  });
  return form;
}

function mount(): void {
  const app = document.getElementById('app')!;
  const network = h('p', { class: 'network', role: 'status' });
  const engineBadge = h('p', { class: 'engine-badge', role: 'status' });
  const tabs = PANES.map((pane) => h('a', { href: `#${pane.id}`, class: 'tab', 'data-pane': pane.id }, pane.label));
  const panes = PANES.map((pane) => pane.make(ctx));
  const sessions = h('datalist', { id: 'known-sessions' });

  render(
    app,
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'topbar' },
      h('div', { class: 'brand' }, h('img', { src: 'icons/icon.svg', alt: '', width: 32, height: 32 }), h('div', null, h('h1', null, 'Engram'), h('p', { class: 'tagline' }, 'A memory for AI agents that stays on this device'))),
      identityForm(),
      h('div', { class: 'badges' }, engineBadge, network),
    ),
    h('nav', { class: 'tabs', 'aria-label': 'Sections' }, h('ul', null, tabs.map((tab) => h('li', null, tab)))),
    h('main', { id: 'main', tabindex: -1 }, panes),
    h('footer', null, h('p', null, 'Engram runs entirely in this browser: a Web Worker holds the index, IndexedDB the data, and a service worker keeps the app — and answers the EverOS API — offline.')),
    sessions,
  );

  const show = () => {
    const wanted = location.hash.slice(1);
    const active = PANES.some((p) => p.id === wanted) ? wanted : 'conversation';
    for (const [i, pane] of PANES.entries()) {
      const on = pane.id === active;
      panes[i]!.hidden = !on;
      if (on) tabs[i]!.setAttribute('aria-current', 'page');
      else tabs[i]!.removeAttribute('aria-current');
      if (on) revealTab(tabs[i]!);
      if (on) panes[i]!.dispatchEvent(new Event('pane:show'));
    }
  };
  window.addEventListener('hashchange', show);
  show();

  const sync = () => {
    const state = store.get();
    network.textContent = state.online ? 'Online' : 'Offline';
    network.dataset['online'] = String(state.online);
    const { status, progress } = state.engine;
    engineBadge.dataset['engine'] = status;
    engineBadge.textContent = status === 'ready' ? 'Memory ready' : status === 'failed' ? 'Memory failed — see Status' : progress?.phase === 'embedder' ? 'Loading model…' : 'Opening memory…';
    document.body.dataset['engine'] = status;
    render(sessions, state.sessions.map((id) => h('option', { value: id })));
  };
  store.subscribe(sync);
  sync();
  window.addEventListener('online', () => store.set({ online: true }));
  window.addEventListener('offline', () => store.set({ online: false }));
}

/** On a narrow screen the tab strip scrolls sideways: keep the current tab in it (never scrolls the page). */
function revealTab(tab: HTMLElement): void {
  const strip = tab.closest('ul');
  if (!strip) return;
  const left = tab.offsetLeft;
  const right = left + tab.offsetWidth;
  if (left < strip.scrollLeft) strip.scrollLeft = left;
  else if (right > strip.scrollLeft + strip.clientWidth) strip.scrollLeft = right - strip.clientWidth;
}

async function registerServiceWorker(): Promise<void> {
  if (!__SERVICE_WORKER__ || !('serviceWorker' in navigator)) return;
  try {
    await navigator.serviceWorker.register('./sw.js', { scope: './' });
  } catch (error) {
    console.warn('The service worker could not be registered; the app works but not offline.', error);
  }
}

mount();
void registerServiceWorker();
