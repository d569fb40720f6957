/**
 * Errors across the worker boundary. Comlink's built-in "throw" handler keeps only an error's
 * message, name and stack; this one keeps `code`, `status` and `details` too and rebuilds a
 * MemoryError on the other side. Both sides must register it (comlink's handlers are per realm),
 * so the client and the worker both call `registerErrorTransfer()`.
 */
import { transferHandlers, type TransferHandler } from 'comlink';
import { ERROR_CATALOG, isMemoryError, MemoryError, type ErrorCode } from '../errors.js';

/** An error as plain, structured-clone-safe data. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  status?: number;
  details?: unknown;
}

type Thrown = { value: unknown };
type Wire = { isError: true; value: SerializedError } | { isError: false; value: unknown };

/** Plain data for any thrown value that is an Error or looks like one (a MemoryError from another realm). */
export function serializeError(error: unknown): SerializedError | null {
  if (!(error instanceof Error) && !isMemoryError(error)) return null;
  const e = error as Error & { code?: unknown; status?: unknown; details?: unknown };
  const out: SerializedError = { name: String(e.name), message: String(e.message) };
  if (typeof e.stack === 'string') out.stack = e.stack;
  if (typeof e.code === 'string') out.code = e.code;
  if (typeof e.status === 'number') out.status = e.status;
  if (e.details !== undefined) out.details = cloneable(e.details);
  return out;
}

/** The error a SerializedError stands for: a MemoryError when it carries a catalog code, else a plain Error. */
export function deserializeError(data: SerializedError): Error {
  let error: Error;
  if (data.name === 'MemoryError' && data.code !== undefined && data.code in ERROR_CATALOG) {
    error = new MemoryError(data.code as ErrorCode, { message: data.message, details: data.details as MemoryError['details'] });
  } else {
    error = Object.assign(new Error(data.message), data.code === undefined ? {} : { code: data.code }, data.status === undefined ? {} : { status: data.status }, data.details === undefined ? {} : { details: data.details });
    Object.defineProperty(error, 'name', { value: data.name, configurable: true, writable: true });
  }
  // The stack of where it was thrown (in the worker) says more than where it was rebuilt.
  if (data.stack !== undefined) Object.defineProperty(error, 'stack', { value: data.stack, configurable: true, writable: true });
  return error;
}

/** Details are request data, so they normally clone; anything that does not is reduced to JSON or dropped. */
function cloneable(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    try {
      return JSON.parse(JSON.stringify(value)) as unknown;
    } catch {
      return undefined;
    }
  }
}

let registered = false;

/** Replaces comlink's "throw" handler in this realm (idempotent). */
export function registerErrorTransfer(): void {
  if (registered) return;
  const builtin = transferHandlers.get('throw');
  if (!builtin) throw new Error('comlink has no built-in "throw" transfer handler to replace');
  const handler: TransferHandler<Thrown, Wire> = {
    // The built-in test recognises comlink's private marker for thrown values.
    canHandle: (value): value is Thrown => builtin.canHandle(value),
    serialize({ value }) {
      const error = serializeError(value);
      return [error ? { isError: true, value: error } : { isError: false, value }, []];
    },
    deserialize(wire) {
      throw wire.isError ? deserializeError(wire.value) : wire.value;
    },
  };
  transferHandlers.set('throw', handler as TransferHandler<unknown, unknown>);
  registered = true;
}
