/**
 * An `Llm` that speaks the OpenAI `/chat/completions` protocol, which Ollama, llama.cpp's server,
 * vLLM, LM Studio, OpenRouter and OpenAI itself all serve. It uses only `fetch`, `AbortController`
 * and timers, so the same code runs in Node, browsers and Cloudflare Workers.
 */

import { MemoryError, isAbortError, throwIfAborted } from '../errors.js';
import type { Llm, LlmRequest } from './ports.js';

type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options of `createOpenAiCompatibleLlm`; only `baseUrl` and `model` are required. */
export interface OpenAiCompatibleLlmOptions {
  /** The API root that `/chat/completions` hangs off, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** The provider's model name, e.g. `qwen2.5:3b`. */
  model: string;
  /** Limit for one attempt, from sending the request to reading the whole body. Default 30 000 ms. */
  timeoutMs?: number;
  /** Extra attempts after a 429, a 5xx or a network failure. Default 2. */
  maxRetries?: number;
  /** First backoff delay; doubles each retry, with jitter. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Ceiling for any single wait between attempts, `Retry-After` included. Default 10 000 ms. */
  retryMaxDelayMs?: number;
  /** The fetch to use; defaults to the global one. */
  fetch?: FetchLike;
  /** Extra headers sent with every request (e.g. `HTTP-Referer` for OpenRouter). */
  headers?: Record<string, string>;
  /** The model accepts images (`image_url` content parts): images sent without a caption get one. Default false. */
  vision?: boolean;
}

/** Builds an `Llm` backed by an OpenAI-compatible chat-completions endpoint. */
export function createOpenAiCompatibleLlm(options: OpenAiCompatibleLlmOptions): Llm {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRetries = Math.max(0, options.maxRetries ?? 2);
  const baseDelay = options.retryBaseDelayMs ?? 500;
  const maxDelay = options.retryMaxDelayMs ?? 10_000;
  // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a
  // method of some other object, which `options.fetch(...)` would do.
  const doFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const model = options.model;

  async function complete(request: LlmRequest): Promise<string> {
    throwIfAborted(request.signal);
    const body = JSON.stringify(buildBody(model, request));
    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(doFetch, url, { method: 'POST', headers, body }, timeoutMs, request.signal);
      if (outcome.kind === 'ok') return readContent(outcome.text, model);
      const retriesLeft = attempt < maxRetries;
      if (!outcome.retryable || !retriesLeft) throw outcome.error(attempt + 1);
      const backoff = Math.min(maxDelay, baseDelay * 2 ** attempt);
      // Equal jitter: keeps at least half the backoff so clients that failed together spread out
      // without any of them hammering the server immediately.
      const jittered = backoff / 2 + Math.random() * (backoff / 2);
      const wait = outcome.retryAfterMs === undefined ? jittered : Math.min(maxDelay, outcome.retryAfterMs);
      await sleep(wait, request.signal);
    }
  }

  return { id: `openai-compatible:${model}`, complete, ...(options.vision ? { vision: true } : {}) };
}

type Attempt =
  | { kind: 'ok'; text: string }
  | { kind: 'failed'; retryable: boolean; retryAfterMs?: number | undefined; error: (attempts: number) => MemoryError };

function buildBody(model: string, request: LlmRequest): Record<string, unknown> {
  // A message with images becomes the protocol's list of content parts: its text, then each image as a data URL.
  const messages = request.messages.map(({ images, ...m }) => (images?.length
    ? { ...m, content: [{ type: 'text', text: m.content }, ...images.map((i) => ({ type: 'image_url', image_url: { url: `data:${i.mime_type};base64,${i.base64}` } }))] }
    : m));
  const body: Record<string, unknown> = { model, messages, stream: false };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.jsonSchema !== undefined) {
    const title = request.jsonSchema.title;
    // The protocol wants a name of [A-Za-z0-9_-]{1,64}; a schema title is the natural source.
    const name = typeof title === 'string' && title.length > 0 ? title.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) : 'response';
    body.response_format = { type: 'json_schema', json_schema: { name, schema: request.jsonSchema, strict: true } };
  }
  return body;
}

/** One HTTP round trip under its own timeout, classified into success or a typed failure. */
async function attemptOnce(doFetch: FetchLike, url: string, init: RequestInit, timeoutMs: number, signal: AbortSignal | undefined): Promise<Attempt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = (): void => controller.abort();
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const response = await doFetch(url, { ...init, signal: controller.signal });
    // The body is read under the same timer: a server that sends headers and then stalls must
    // not hang the caller either.
    const text = await response.text();
    if (response.ok) return { kind: 'ok', text };
    const status = response.status;
    const retryable = status === 429 || status >= 500;
    const providerMessage = errorMessageOf(text);
    return {
      kind: 'failed',
      retryable,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
      error: (attempts) =>
        new MemoryError('MODEL_FAILED', {
          message: `The model server answered HTTP ${status}${providerMessage ? `: ${providerMessage}` : ''}`,
          details: { status, attempts, ...(providerMessage ? { providerMessage } : {}) },
        }),
    };
  } catch (error) {
    if (signal?.aborted) throw new MemoryError('ABORTED', { cause: signal.reason });
    if (timedOut) throw new MemoryError('LLM_TIMEOUT', { message: `The model server did not answer within ${timeoutMs} ms`, details: { timeoutMs }, cause: error });
    if (isAbortError(error)) throw new MemoryError('ABORTED', { cause: error });
    // fetch rejects (a TypeError in every runtime) when the server cannot be reached at all.
    const reason = error instanceof Error ? error.message : String(error);
    return {
      kind: 'failed',
      retryable: true,
      error: (attempts) =>
        new MemoryError('MODEL_UNAVAILABLE', { message: `The model server could not be reached: ${reason}`, details: { url, attempts, reason }, cause: error }),
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCallerAbort);
  }
}

function readContent(text: string, model: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new MemoryError('LLM_BAD_OUTPUT', { message: 'The model server answered with a body that is not JSON', details: { model, body: text.slice(0, 500) }, cause: error });
  }
  const choices = (parsed as { choices?: unknown } | null)?.choices;
  const first = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown }; finish_reason?: unknown } | undefined) : undefined;
  const content = first?.message?.content;
  if (typeof content !== 'string') {
    throw new MemoryError('LLM_BAD_OUTPUT', {
      message: 'The model server answer has no choices[0].message.content',
      details: { model, body: text.slice(0, 500), ...(first?.finish_reason === undefined ? {} : { finishReason: first.finish_reason }) },
    });
  }
  return content;
}

/** Pulls the provider's own explanation out of an error body (`{error: {message}}` or `{error: "…"}`). */
function errorMessageOf(text: string): string | undefined {
  try {
    const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
    if (typeof error === 'string') return error.slice(0, 500);
    const message = (error as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string') return message.slice(0, 500);
  } catch {
    // Not JSON: fall through to the raw text, which proxies often send as plain text or HTML.
  }
  const trimmed = text.trim();
  return trimmed ? trimmed.slice(0, 500) : undefined;
}

/** `Retry-After` as delay-seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new MemoryError('ABORTED', { cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new MemoryError('ABORTED', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
