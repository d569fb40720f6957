/**
 * An `Llm` that runs on the user's GPU through WebLLM. WebGPU is checked first and WebLLM is
 * imported only after that, so hosts without a GPU (Node, workerd, old browsers) never load it.
 * Touches only `navigator.gpu` and `fetch`-based WebLLM code, so it also runs inside a Web Worker.
 */

import type { AppConfig, InitProgressReport } from '@mlc-ai/web-llm';
import { MemoryError, isMemoryError, throwIfAborted, wrapError } from '../errors.js';
import type { ChatMessage, Llm, LlmRequest } from './ports.js';

/** Progress of the model download and compilation; `loaded` runs from 0 to 1. */
export interface LlmLoadProgress {
  phase: 'llm';
  loaded: number;
  text: string;
}

/** What the browser says about the WebGPU adapter it picked. */
export interface WebGpuAdapterSummary {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** True for a software adapter (e.g. SwiftShader) where the browser reports it. */
  isFallbackAdapter?: boolean;
  features: string[];
}

/** The slice of a WebLLM engine this provider uses; `MLCEngine` and test doubles both fit. */
export interface WebLlmEngine {
  chat: { completions: { create(request: WebLlmChatRequest): Promise<WebLlmChatResponse> } };
  interruptGenerate?(): void | Promise<void>;
  unload?(): Promise<void>;
}

/** A non-streaming chat request in WebLLM's OpenAI-like dialect. */
export interface WebLlmChatRequest {
  messages: ChatMessage[];
  stream: false;
  temperature?: number;
  max_tokens?: number;
  response_format?: { type: 'json_object'; schema: string };
}

/** The part of WebLLM's chat completion answer that is read. */
export interface WebLlmChatResponse {
  choices: { message: { content: string | null }; finish_reason?: string | null }[];
}

/** Configuration handed to an engine factory. */
export interface WebLlmEngineConfig {
  appConfig?: AppConfig;
  initProgressCallback: (report: InitProgressReport) => void;
}

/** Creates and loads an engine; must stop loading when `signal` fires. */
export type WebLlmEngineFactory = (model: string, config: WebLlmEngineConfig, signal: AbortSignal) => Promise<WebLlmEngine>;

/** Options of `createWebLlm`. */
export interface WebLlmOptions {
  /** A WebLLM model id, e.g. `Qwen2.5-1.5B-Instruct-q4f16_1-MLC`; must be in `appConfig.model_list`. */
  model: string;
  onProgress?: (progress: LlmLoadProgress) => void;
  /** Model list and cache backend; defaults to WebLLM's prebuilt list. Point it at your own origin to self-host weights. */
  appConfig?: AppConfig;
  /** Replaces WebLLM's own engine creation (e.g. `CreateWebWorkerMLCEngine`, or a double in tests). */
  engineFactory?: WebLlmEngineFactory;
  /** Bound on detection, download and compilation together. Default 120 000 ms. */
  loadTimeoutMs?: number;
  /** Bound on one completion. Default 120 000 ms. */
  timeoutMs?: number;
  /** Cancels loading. */
  signal?: AbortSignal;
}

/** A WebLLM-backed `Llm` that also tells which adapter it runs on and can free the GPU. */
export interface WebLlm extends Llm {
  readonly adapter: WebGpuAdapterSummary;
  /** Unloads the model and releases GPU memory; the Llm is unusable afterwards. */
  close(): Promise<void>;
}

interface GpuAdapterLike {
  info?: Partial<Record<'vendor' | 'architecture' | 'device' | 'description', string>> & { isFallbackAdapter?: boolean };
  isFallbackAdapter?: boolean;
  features?: Iterable<string>;
}

interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<GpuAdapterLike | null>;
}

/**
 * Finds a WebGPU adapter or throws `WEBGPU_UNAVAILABLE`; works on the main thread and in workers.
 *
 * @example
 * const adapter = await detectWebGpu(); // { vendor: 'google', architecture: 'swiftshader', … }
 */
export async function detectWebGpu(): Promise<WebGpuAdapterSummary> {
  const gpu = (globalThis as { navigator?: { gpu?: GpuLike } }).navigator?.gpu;
  if (!gpu || typeof gpu.requestAdapter !== 'function') {
    throw new MemoryError('WEBGPU_UNAVAILABLE', {
      message: 'WebGPU is not available here (navigator.gpu is missing): the on-device LLM needs a browser with WebGPU enabled',
      details: { reason: 'no-navigator-gpu' },
    });
  }
  let adapter: GpuAdapterLike | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (error) {
    throw new MemoryError('WEBGPU_UNAVAILABLE', { message: 'WebGPU refused to provide an adapter', details: { reason: 'request-adapter-failed' }, cause: error });
  }
  if (!adapter) {
    throw new MemoryError('WEBGPU_UNAVAILABLE', {
      message: 'WebGPU is present but no GPU adapter is available (GPU blocked, disabled or missing)',
      details: { reason: 'no-adapter' },
    });
  }
  const info = adapter.info ?? {};
  const fallback = info.isFallbackAdapter ?? adapter.isFallbackAdapter;
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    ...(fallback === undefined ? {} : { isFallbackAdapter: fallback }),
    features: adapter.features ? [...adapter.features].sort() : [],
  };
}

/**
 * Loads a WebLLM model and returns it as an `Llm`. Fails with `WEBGPU_UNAVAILABLE` without a GPU,
 * `MODEL_UNAVAILABLE` when the model cannot be found, fetched or compiled (or loading outlasts
 * `loadTimeoutMs`), `ABORTED` when `signal` fires.
 *
 * @example
 * const llm = await createWebLlm({ model: 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC', onProgress: (p) => bar.value = p.loaded });
 */
export async function createWebLlm(options: WebLlmOptions): Promise<WebLlm> {
  const { model } = options;
  const loadTimeoutMs = options.loadTimeoutMs ?? 120_000;
  const timeoutMs = options.timeoutMs ?? 120_000;
  throwIfAborted(options.signal);

  const loading = new AbortController();
  const config: WebLlmEngineConfig = {
    ...(options.appConfig === undefined ? {} : { appConfig: options.appConfig }),
    initProgressCallback: (report) => {
      if (loading.signal.aborted) return;
      // A throwing progress handler must not break the load it reports on.
      try {
        options.onProgress?.({ phase: 'llm', loaded: report.progress, text: report.text });
      } catch {
        // Reported nowhere on purpose: progress is advisory.
      }
    },
  };

  const load = async (): Promise<{ adapter: WebGpuAdapterSummary; engine: WebLlmEngine }> => {
    const adapter = await detectWebGpu();
    const factory = options.engineFactory ?? defaultEngineFactory;
    try {
      const engine = await factory(model, config, loading.signal);
      // A factory that ignored the abort and finished late still holds GPU memory: free it.
      if (loading.signal.aborted) void Promise.resolve(engine.unload?.()).catch(() => undefined);
      return { adapter, engine };
    } catch (error) {
      throw loadError(error, model, options.appConfig);
    }
  };

  const { adapter, engine } = await withDeadline(load(), {
    ms: loadTimeoutMs,
    signal: options.signal,
    onCancel: () => loading.abort(),
    onTimeout: () =>
      new MemoryError('MODEL_UNAVAILABLE', {
        message: `Loading the model ${model} took longer than ${loadTimeoutMs} ms`,
        details: { model, reason: 'load-timeout', timeoutMs: loadTimeoutMs },
      }),
  });

  let closed = false;

  async function complete(request: LlmRequest): Promise<string> {
    if (closed) throw new MemoryError('CLOSED', { message: 'This WebLLM model has been closed', details: { model } });
    throwIfAborted(request.signal);
    const chatRequest: WebLlmChatRequest = { messages: request.messages, stream: false };
    if (request.temperature !== undefined) chatRequest.temperature = request.temperature;
    if (request.maxTokens !== undefined) chatRequest.max_tokens = request.maxTokens;
    if (request.jsonSchema !== undefined) chatRequest.response_format = { type: 'json_object', schema: JSON.stringify(request.jsonSchema) };

    const generation = engine.chat.completions.create(chatRequest).catch((error: unknown) => {
      throw isMemoryError(error) ? error : new MemoryError('MODEL_FAILED', { message: `WebLLM generation failed: ${messageOf(error)}`, details: { model, reason: nameOf(error) }, cause: error });
    });
    const response = await withDeadline(generation, {
      ms: timeoutMs,
      signal: request.signal,
      // The engine keeps generating after we stop waiting unless told to stop, holding the GPU.
      onCancel: () => void Promise.resolve(engine.interruptGenerate?.()).catch(() => undefined),
      onTimeout: () => new MemoryError('LLM_TIMEOUT', { message: `The on-device model did not answer within ${timeoutMs} ms`, details: { model, timeoutMs } }),
    });
    const content = response.choices[0]?.message.content;
    if (typeof content !== 'string') {
      throw new MemoryError('LLM_BAD_OUTPUT', { message: 'WebLLM returned no message content', details: { model, finishReason: response.choices[0]?.finish_reason ?? null } });
    }
    return content;
  }

  return {
    id: `webllm:${model}`,
    adapter,
    complete,
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await engine.unload?.();
      } catch (error) {
        throw wrapError(error, 'MODEL_FAILED', `Unloading ${model} failed`);
      }
    },
  };
}

/** WebLLM's own engine, created the way `CreateMLCEngine` does it but with a handle kept so a timed-out load can be cancelled. */
const defaultEngineFactory: WebLlmEngineFactory = async (model, config, signal) => {
  const webllm = await import('@mlc-ai/web-llm');
  const engine = new webllm.MLCEngine(config);
  // `unload()` aborts WebLLM's in-flight downloads; without it a stalled fetch would live on.
  const onAbort = (): void => void engine.unload().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await engine.reload(model);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return {
    chat: {
      completions: {
        create: async (request) => {
          const answer = await engine.chat.completions.create(request);
          return { choices: answer.choices.map((choice) => ({ message: { content: choice.message.content }, finish_reason: choice.finish_reason })) };
        },
      },
    },
    interruptGenerate: () => engine.interruptGenerate(),
    unload: () => engine.unload(),
  };
};

function loadError(error: unknown, model: string, appConfig: AppConfig | undefined): MemoryError {
  if (isMemoryError(error)) return error;
  const name = nameOf(error);
  // WebLLM's messages name the failing call, not the URL; the record's URL is what a user must check.
  const record = appConfig?.model_list.find((entry) => entry.model_id === model);
  const where = record === undefined ? {} : { modelUrl: record.model, modelLibUrl: record.model_lib };
  // WebLLM runs its own GPU probe; it can disagree with ours (e.g. the device cannot be created).
  if (name === 'WebGPUNotAvailableError') {
    return new MemoryError('WEBGPU_UNAVAILABLE', { message: messageOf(error), details: { model, reason: name }, cause: error });
  }
  return new MemoryError('MODEL_UNAVAILABLE', {
    message: `The model ${model} could not be loaded: ${messageOf(error)}`,
    details: { model, reason: name, ...where },
    cause: error,
  });
}

interface Deadline {
  ms: number;
  signal: AbortSignal | undefined;
  /** Called when the deadline passes or the caller aborts, so the work can stop. */
  onCancel: () => void;
  onTimeout: () => MemoryError;
}

/** Settles with `work`, or rejects at the deadline / on the caller's abort, whichever comes first. */
function withDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<T> {
  const { ms, signal, onCancel } = deadline;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (action: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      action();
    };
    const onAbort = (): void =>
      finish(() => {
        onCancel();
        reject(new MemoryError('ABORTED', { cause: signal?.reason }));
      });
    const timer = setTimeout(
      () =>
        finish(() => {
          onCancel();
          reject(deadline.onTimeout());
        }),
      ms,
    );
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
