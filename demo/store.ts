/**
 * The app's state: who is talking, where the engine stands, what is known about the device. A
 * tiny observable store; panes read it, change it with `set`, and `subscribe` to re-render.
 * The identity and the known sessions are kept in localStorage across visits.
 */
import type { MemoryClient } from '../src/client.js';
import type { Progress } from '../src/engine.js';
import type { Notice } from '../src/search/search.js';

/** Who is talking: the ids every pane uses. */
export interface Identity {
  userId: string;
  agentId: string;
  sessionId: string;
}

/** The ids the contract accepts for users, agents and sessions. */
export const SCOPE_ID = /^[A-Za-z0-9_.@+-]{1,256}$/;

/** What the header calls each id. */
const IDENTITY_LABELS: Record<keyof Identity, string> = { userId: 'user id', agentId: 'agent id', sessionId: 'session id' };

/** Everything the panes share. */
export interface AppState {
  identity: Identity;
  /** Ids typed in the header that are not valid, by field: the identity keeps its last valid value meanwhile. */
  rejectedIdentity: Partial<Record<keyof Identity, string>>;
  /** Session ids seen in this browser, newest first. */
  sessions: string[];
  engine: { status: 'starting' | 'ready' | 'failed'; progress: Progress | null; error: string | null };
  /** Bumps on every committed write, from this tab or another: panes showing data refresh. */
  revision: number;
  /** Degraded paths the engine reported (no LLM, extractor fallback…), newest last. */
  notices: Notice[];
  online: boolean;
  llm: { status: 'none' | 'loading' | 'ready' | 'failed'; model: string | null; progress: number; message: string | null };
  /** The teacher reranker agentic search uses, as this tab's memory worker reported it while hosting. */
  reranker: 'loading' | 'ready' | 'failed';
}

/** A value that can be read, changed and watched. */
export interface Store<T> {
  get(): T;
  set(patch: Partial<T> | ((state: T) => Partial<T>)): void;
  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: (state: T) => void): () => void;
}

/** Creates a store holding `initial`. */
export function createStore<T extends object>(initial: T): Store<T> {
  let state = initial;
  const listeners = new Set<(state: T) => void>();
  return {
    get: () => state,
    set(patch) {
      state = { ...state, ...(typeof patch === 'function' ? patch(state) : patch) };
      for (const listener of listeners) listener(state);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const IDENTITY_KEY = 'engram-demo:identity';
const SESSIONS_KEY = 'engram-demo:sessions';

function read<T>(key: string, fallback: T): T {
  try {
    const raw = localStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : fallback;
  } catch {
    return fallback;
  }
}

/** The state at start-up, with the identity and sessions remembered from earlier visits. */
export function initialState(): AppState {
  return {
    identity: { userId: 'maya', agentId: 'assistant', sessionId: 'chat-1', ...read<Partial<Identity>>(IDENTITY_KEY, {}) },
    sessions: read<string[]>(SESSIONS_KEY, []),
    rejectedIdentity: {},
    engine: { status: 'starting', progress: null, error: null },
    revision: 0,
    notices: [],
    online: navigator.onLine,
    llm: { status: 'none', model: null, progress: 0, message: null },
    reranker: 'loading',
  };
}

/** Keeps the identity and sessions in localStorage. */
export function persist(store: Store<AppState>): void {
  store.subscribe((state) => {
    try {
      localStorage.setItem(IDENTITY_KEY, JSON.stringify(state.identity));
      localStorage.setItem(SESSIONS_KEY, JSON.stringify(state.sessions.slice(0, 50)));
    } catch {
      // private mode or a full quota: the identity just is not remembered
    }
  });
}

/** Adds session ids to the known list (newest first, no repeats). */
export function rememberSessions(store: Store<AppState>, ...ids: string[]): void {
  store.set((state) => ({ sessions: [...new Set([...ids, ...state.sessions])] }));
}

/**
 * Why nothing may be written or searched right now: an id typed in the header is not valid, and
 * acting under the previous one would surprise the person who typed it. Null when all are valid.
 */
export function identityProblem(state: AppState): string | null {
  const rejected = Object.entries(state.rejectedIdentity) as [keyof Identity, string][];
  if (!rejected.length) return null;
  const [key, value] = rejected[0]!;
  return `The ${IDENTITY_LABELS[key]} “${value}” is not valid: use 1–256 letters, digits or _ . @ + - (no spaces)`;
}

/** What every pane gets. */
export interface AppContext {
  store: Store<AppState>;
  /** Resolves with the memory once the engine is open (in this tab or another). */
  memory: Promise<MemoryClient>;
  /** The on-device LLM, when one was loaded in the Status pane. */
  llm(): import('../src/models/webllm-llm.js').WebLlm | null;
  setLlm(llm: import('../src/models/webllm-llm.js').WebLlm | null): void;
}
