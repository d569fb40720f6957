/**
 * Status: what the app runs on. The engine (model loading progress, who hosts it, counts), offline
 * readiness (connectivity, the service worker and its precache, the local API), WebGPU and an
 * optional on-device LLM, and the origin's storage.
 */
import type { MemoryClient } from '../../src/client.js';
import { createWebLlm, detectWebGpu } from '../../src/models/webllm-llm.js';
import { SW_STATUS_REQUEST, type ServiceWorkerStatus } from '../config.js';
import { describeError, field, formatBytes, h, render, say, statusLine, pane } from '../dom.js';
import type { AppContext, AppState } from '../store.js';

/** WebLLM's prebuilt models, smallest first (weights download from Hugging Face on first load). */
const LLM_MODELS = [
  { id: 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC', label: 'Qwen2.5 0.5B Instruct (≈ 0.9 GB GPU memory)' },
  { id: 'Llama-3.2-1B-Instruct-q4f16_1-MLC', label: 'Llama 3.2 1B Instruct (≈ 0.9 GB)' },
  { id: 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC', label: 'Qwen2.5 1.5B Instruct (≈ 1.6 GB)' },
  { id: 'gemma-2-2b-it-q4f16_1-MLC', label: 'Gemma 2 2B Instruct (≈ 1.9 GB)' },
  { id: 'Phi-3.5-mini-instruct-q4f16_1-MLC', label: 'Phi-3.5 mini Instruct (≈ 3.7 GB)' },
];

/** Asks the active service worker for its cache status; null without one. */
export async function serviceWorkerStatus(timeoutMs = 2_000): Promise<ServiceWorkerStatus | null> {
  const worker = navigator.serviceWorker?.controller ?? (await navigator.serviceWorker?.getRegistration())?.active;
  if (!worker) return null;
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs);
    port1.onmessage = (event) => {
      clearTimeout(timer);
      resolve(event.data as ServiceWorkerStatus);
    };
    worker.postMessage({ type: SW_STATUS_REQUEST }, [port2]);
  });
}

/** The Status pane. */
/**
 * The reranker row: its id and, in the tab whose worker hosts the memory (the one that loaded it),
 * whether it is ready; `data-reranker` carries that state for scripts and tests.
 */
function rerankerFact(id: string | null, state: AppState['reranker'] | null): HTMLElement {
  const said = state === 'ready' ? ' (ready)' : state === 'failed' ? ' (unavailable: agentic search keeps the hybrid order)' : state === 'loading' ? ' (loading…)' : '';
  return h('dd', state ? { 'data-reranker': state } : null, `${id ?? 'none'}${said}`);
}

export function statusPane(ctx: AppContext): HTMLElement {
  const { store } = ctx;

  // Engine
  const progress = h('progress', { max: 1, 'aria-labelledby': 'engine-progress-label' });
  const progressLabel = h('span', { id: 'engine-progress-label' });
  const engineFacts = h('dl', { class: 'pairs' });
  const refreshEngine = h('button', { type: 'button', class: 'secondary' }, 'Refresh');

  // Offline
  const connectivity = h('p', { class: 'connectivity', role: 'status' });
  const swFacts = h('dl', { class: 'pairs' });
  const checkHealth = h('button', { type: 'button', class: 'secondary' }, 'Call GET /health');
  const healthOut = h('pre', { class: 'json', hidden: true });

  // WebGPU and LLM
  const gpuLine = h('p', { role: 'status' }, 'Checking WebGPU…');
  const model = h('select', { name: 'llm-model' }, LLM_MODELS.map((m) => h('option', { value: m.id }, m.label)));
  const loadLlm = h('button', { type: 'button' }, 'Load model');
  const llmProgress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'LLM download progress' });
  const llmStatus = statusLine();

  // Storage
  const storageFacts = h('dl', { class: 'pairs' });
  const persist = h('button', { type: 'button', class: 'secondary' }, 'Request persistent storage');
  const persistStatus = statusLine();

  let client: MemoryClient | null = null;
  /** What this page's last "Call GET /health" got; the service worker forgets its own state when the browser stops it. */
  let lastHealth: { status: number; host: unknown; at: Date } | null = null;

  async function showEngine(): Promise<void> {
    const { engine } = store.get();
    if (engine.status === 'failed') {
      progress.removeAttribute('value');
      progressLabel.textContent = `Failed: ${engine.error ?? 'unknown error'}`;
    } else if (engine.status === 'starting') {
      const p = engine.progress;
      if (p && p.total) progress.value = p.loaded / p.total;
      else progress.removeAttribute('value');
      progressLabel.textContent = p ? `${p.phase === 'embedder' ? 'Loading the embedding model' : p.phase === 'open' ? 'Reading the memory' : p.phase === 'reembed' ? 'Re-embedding' : p.phase === 'reranker' ? 'Loading the reranker' : 'Loading'}${p.total ? ` ${Math.round((p.loaded / p.total) * 100)}%` : '…'}` : 'Starting…';
    } else {
      progress.value = 1;
      progressLabel.textContent = 'Ready';
    }
    if (!client) return;
    try {
      const [stats, worker] = await Promise.all([client.stats(), client.status()]);
      render(
        engineFacts,
        h('dt', null, 'Host'), h('dd', null, worker.role === 'host' ? 'this tab' : 'another tab, or the service worker'),
        h('dt', null, 'Records'), h('dd', null, String(stats.records)),
        h('dt', null, 'Owners'), h('dd', null, String(stats.partitions)),
        h('dt', null, 'Buffered messages'), h('dd', null, String(stats.buffered_messages)),
        h('dt', null, 'Embedder'), h('dd', null, `${stats.embedder.id} (${stats.embedder.dim} dimensions)`),
        h('dt', null, 'Extractor'), h('dd', null, stats.extractor),
        h('dt', null, 'Reranker'), rerankerFact(stats.reranker, worker.role === 'host' ? store.get().reranker : null),
        h('dt', null, 'Store'), h('dd', null, stats.store),
      );
    } catch (error) {
      render(engineFacts, h('dt', null, 'Error'), h('dd', null, describeError(error)));
    }
  }

  async function showOffline(): Promise<void> {
    const online = store.get().online;
    connectivity.dataset['online'] = String(online);
    connectivity.textContent = online ? 'Online' : 'Offline — everything here keeps working';
    if (!('serviceWorker' in navigator)) {
      render(swFacts, h('dt', null, 'Service worker'), h('dd', null, 'not supported in this browser'));
      return;
    }
    const sw = await serviceWorkerStatus();
    render(
      swFacts,
      h('dt', null, 'Service worker'), h('dd', null, sw ? `active (version ${sw.version})` : __SERVICE_WORKER__ ? 'installing…' : 'off under the dev server'),
      h('dt', null, 'Offline copy'), h('dd', { 'data-offline-ready': String(!!sw?.complete) }, sw ? (sw.complete ? `complete: ${sw.precached} files, the model included` : `caching ${sw.precached} files…`) : '—'),
      h('dt', null, 'Local API'), h('dd', { 'data-local-api': sw ? sw.bridge : 'none', 'data-last-health': lastHealth ? String(lastHealth.status) : null }, sw ? `POST /api/v1/memory/* and GET /health are answered on this device. ${localApiState(sw.bridge)}` : '—'),
    );
  }

  /** The bridge's state as the service worker reports it, and what this page's own call saw. */
  function localApiState(bridge: ServiceWorkerStatus['bridge']): string {
    const now =
      bridge === 'host' ? 'Right now the service worker hosts the engine (no tab has it open).'
      : bridge === 'forwarding' ? 'Right now requests are relayed to the tab that hosts the engine.'
      // The browser stops an idle service worker and starts a fresh one on the next event.
      : 'Idle: no request since the service worker last started.';
    if (!lastHealth) return now;
    const host = lastHealth.host === 'tab' ? 'a tab hosted the engine' : lastHealth.host === 'service-worker' ? 'the service worker hosted the engine' : 'no engine answered';
    return `${now} Last call from this page: GET /health → HTTP ${lastHealth.status} at ${lastHealth.at.toLocaleTimeString()} (${host}).`;
  }

  async function showStorage(): Promise<void> {
    if (!client) return;
    const estimate = await client.storageEstimate();
    const share = estimate.usage !== undefined && estimate.quota ? estimate.usage / estimate.quota : null;
    render(
      storageFacts,
      h('dt', null, 'Used'), h('dd', null, `${formatBytes(estimate.usage)}${share === null ? '' : ` (${(share * 100).toFixed(2)} % of the quota)`}`),
      h('dt', null, 'Available'), h('dd', null, estimate.quota === undefined ? 'unknown' : formatBytes(estimate.quota - (estimate.usage ?? 0))),
      h('dt', null, 'Persistent'), h('dd', null, estimate.persisted ? 'yes — the browser will not evict it' : 'no — the browser may evict it under storage pressure'),
    );
  }

  detectWebGpu().then(
    (adapter) => {
      const name = [adapter.vendor, adapter.architecture, adapter.description].filter(Boolean).join(' ') || 'an adapter';
      gpuLine.textContent = `WebGPU available: ${name}${adapter.isFallbackAdapter ? ' (software fallback — slow)' : ''}.`;
      gpuLine.dataset['webgpu'] = 'true';
    },
    (error: unknown) => {
      gpuLine.textContent = `No WebGPU — ${describeError(error)}. Search works without it; only the optional LLM needs it.`;
      gpuLine.dataset['webgpu'] = 'false';
    },
  );

  loadLlm.addEventListener('click', () => {
    void (async () => {
      loadLlm.disabled = true;
      llmProgress.hidden = false;
      llmProgress.value = 0;
      store.set({ llm: { status: 'loading', model: model.value, progress: 0, message: null } });
      say(llmStatus, `Loading ${model.value}…`);
      try {
        await ctx.llm()?.close();
        const llm = await createWebLlm({
          model: model.value,
          loadTimeoutMs: 600_000,
          onProgress: (p) => {
            llmProgress.value = p.loaded;
            say(llmStatus, p.text);
          },
        });
        ctx.setLlm(llm);
        store.set({ llm: { status: 'ready', model: model.value, progress: 1, message: null } });
        say(llmStatus, `${model.value} is ready on ${llm.adapter.description || llm.adapter.vendor || 'the GPU'}. Search results get an “Answer with the LLM” button.`, 'ok');
      } catch (error) {
        ctx.setLlm(null);
        const message = describeError(error);
        store.set({ llm: { status: 'failed', model: model.value, progress: 0, message } });
        say(llmStatus, `${message}. Engram keeps working without an LLM: extraction uses rules, and agentic search answers without the LLM's sufficiency check (and says so).`, 'error');
      } finally {
        loadLlm.disabled = false;
        llmProgress.hidden = true;
      }
    })();
  });

  persist.addEventListener('click', () => {
    void (async () => {
      if (!client) return;
      const granted = await client.requestPersistentStorage();
      say(persistStatus, granted ? 'Granted: this browser will keep the memory.' : 'Not granted (browsers grant it to installed or often-used sites; try again after installing the app).', granted ? 'ok' : 'info');
      await showStorage();
    })();
  });

  checkHealth.addEventListener('click', () => {
    void (async () => {
      healthOut.hidden = false;
      try {
        const response = await fetch(new URL('health', document.baseURI));
        const body = (await response.json()) as { host?: unknown };
        lastHealth = { status: response.status, host: body?.host, at: new Date() };
        healthOut.textContent = `HTTP ${response.status}\n${JSON.stringify(body, null, 2)}`;
      } catch (error) {
        healthOut.textContent = describeError(error);
      }
      await showOffline();
    })();
  });

  refreshEngine.addEventListener('click', () => void Promise.all([showEngine(), showOffline(), showStorage()]));

  void ctx.memory.then((memory) => {
    client = memory;
    void showEngine();
    void showStorage();
  });
  let lastEngine = store.get().engine;
  let lastReranker = store.get().reranker;
  let lastOnline = store.get().online;
  store.subscribe((state) => {
    if (state.engine !== lastEngine || state.reranker !== lastReranker) {
      lastEngine = state.engine;
      lastReranker = state.reranker;
      void showEngine();
    }
    if (state.online !== lastOnline) {
      lastOnline = state.online;
      void showOffline();
    }
  });
  void showEngine();
  void showOffline();
  navigator.serviceWorker?.addEventListener('controllerchange', () => void showOffline());

  const section = pane(
    'status',
    'Status',
    'What this app runs on. Everything below happens on this device.',
    h(
      'div',
      { class: 'grid two' },
      h('div', { class: 'card', role: 'group', 'aria-labelledby': 'engine-title' }, h('h3', { id: 'engine-title' }, 'Memory engine'), h('div', { class: 'progress' }, progress, progressLabel), engineFacts, h('div', { class: 'actions' }, refreshEngine)),
      h('div', { class: 'card', role: 'group', 'aria-labelledby': 'offline-title' }, h('h3', { id: 'offline-title' }, 'Offline'), connectivity, swFacts, h('div', { class: 'actions' }, checkHealth), healthOut),
      h(
        'div',
        { class: 'card', role: 'group', 'aria-labelledby': 'llm-title' },
        h('h3', { id: 'llm-title' }, 'WebGPU and on-device LLM'),
        gpuLine,
        field('Model', model, 'Optional. Needs WebGPU and downloads the weights once (hundreds of MB to a few GB).'),
        h('div', { class: 'actions' }, loadLlm),
        llmProgress,
        llmStatus,
      ),
      h('div', { class: 'card', role: 'group', 'aria-labelledby': 'storage-title' }, h('h3', { id: 'storage-title' }, 'Storage'), storageFacts, h('div', { class: 'actions' }, persist), persistStatus),
    ),
  );
  // The pane is refreshed each time it is shown.
  section.addEventListener('pane:show', () => void Promise.all([showEngine(), showOffline(), showStorage()]));
  return section;
}
