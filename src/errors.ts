/**
 * One catalog of error codes with their HTTP status. Every error the engine raises is a
 * `MemoryError` carrying one of these codes; foreign errors (DOMException, onnxruntime, WebLLM,
 * fetch) are wrapped with a code here and never leak raw. Tests assert codes, not messages.
 */
import { boundedDetails, type ValidationDetail } from './contract/echo.js';

export const ERROR_CATALOG = {
  VALIDATION_FAILED: { status: 422, message: 'The request does not follow the contract.' },
  UNAUTHENTICATED: { status: 401, message: 'Missing or invalid credentials.' },
  FORBIDDEN: { status: 403, message: 'These credentials cannot reach that memory.' },
  ORIGIN_FORBIDDEN: { status: 403, message: 'Requests from this origin are not allowed.' },
  MISDIRECTED_REQUEST: { status: 421, message: 'This server does not answer for that host name.' },
  NOT_FOUND: { status: 404, message: 'No such memory record.' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No such route.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed on this route.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be JSON.' },
  UNSUPPORTED_CONTENT_TYPE: { status: 415, message: 'A content item is of a type or MIME type that cannot be kept.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests.' },
  QUOTA_EXCEEDED: { status: 507, message: 'The storage quota is exhausted; nothing was written.' },
  STORAGE_FAILED: { status: 503, message: 'The storage backend failed; nothing was written.' },
  STORAGE_CORRUPT: { status: 503, message: 'The stored data is damaged; it was not opened, so nothing was lost or overwritten.' },
  ENCRYPTION_KEY_INVALID: { status: 403, message: 'The encryption key does not open this memory.' },
  MODEL_UNAVAILABLE: { status: 503, message: 'A model needed for this request is not available.' },
  MODEL_FAILED: { status: 502, message: 'A model call failed.' },
  LLM_TIMEOUT: { status: 504, message: 'The language model did not answer in time.' },
  LLM_BAD_OUTPUT: { status: 502, message: 'The language model answered with unusable output.' },
  WEBGPU_UNAVAILABLE: { status: 503, message: 'WebGPU is not available in this environment.' },
  EMBEDDER_MISMATCH: { status: 409, message: 'The stored vectors were made by a different embedding model.' },
  ABORTED: { status: 499, message: 'The operation was aborted.' },
  CLOSED: { status: 503, message: 'The memory has been closed.' },
  INTERNAL: { status: 500, message: 'Internal error.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** A FastAPI-style validation detail: where the problem is, what it is, and a machine type. */
export type { ValidationDetail } from './contract/echo.js';

export interface MemoryErrorOptions {
  message?: string;
  details?: ValidationDetail[] | Record<string, unknown> | undefined;
  cause?: unknown;
}

/** The one error class of the engine. `name` is fixed so type guards work across realms and comlink. */
export class MemoryError extends Error {
  override readonly name = 'MemoryError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ValidationDetail[] | Record<string, unknown> | undefined;

  constructor(code: ErrorCode, options: MemoryErrorOptions = {}) {
    super(options.message ?? ERROR_CATALOG[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.details = options.details;
  }

  toJSON(): { name: string; code: ErrorCode; status: number; message: string; details?: unknown } {
    return { name: this.name, code: this.code, status: this.status, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) };
  }
}

/** Builds a catalog error. */
export function createError(code: ErrorCode, options?: MemoryErrorOptions): MemoryError {
  return new MemoryError(code, options);
}

/** True for a MemoryError from any realm (checks the name as well as the prototype). */
export function isMemoryError(value: unknown): value is MemoryError {
  return value instanceof MemoryError || (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'MemoryError' && typeof (value as { code?: unknown }).code === 'string');
}

/**
 * A 422 carrying FastAPI-style details, bounded once, here (`boundedDetails`): at most 50 issues,
 * each echoed input cut short, so every host and dialect can render and transfer it safely.
 */
export function validationError(details: ValidationDetail[], message?: string): MemoryError {
  const bounded = boundedDetails(details);
  const first = bounded[0];
  const where = first ? `${first.loc.join('.')}: ${first.msg}` : 'invalid request';
  return new MemoryError('VALIDATION_FAILED', { message: message ?? `Invalid request (${where})`, details: bounded });
}

/** Wraps anything thrown by foreign code with a catalog code; MemoryErrors pass through unchanged. */
export function wrapError(error: unknown, code: ErrorCode, message?: string): MemoryError {
  if (isMemoryError(error)) return error;
  if (isAbortError(error)) return new MemoryError('ABORTED', { cause: error });
  const text = error instanceof Error ? error.message : String(error);
  return new MemoryError(code, { message: message ? `${message}: ${text}` : text, cause: error });
}

/** True for the DOMException (or look-alike) an aborted signal produces. */
export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** Throws ABORTED when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new MemoryError('ABORTED', { cause: signal.reason });
}
