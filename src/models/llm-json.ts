/**
 * Structured answers from any `Llm`. Even providers with constrained decoding sometimes wrap the
 * JSON in a Markdown fence or a sentence of prose, and small local models drift from the schema;
 * `completeJson` digs the JSON out, validates it, and asks once more before giving up.
 */

import { MemoryError } from '../errors.js';
import type { ChatMessage, Llm, LlmRequest } from './ports.js';

/** Validates a parsed value: returns the typed value, or undefined when it does not fit. */
export type JsonParser<T> = (value: unknown) => T | undefined;

/**
 * Asks `llm` for a JSON answer and returns it validated by `parse`. On unusable output it retries
 * once with a corrective message, then throws `LLM_BAD_OUTPUT`. Errors of the call itself
 * (timeout, abort, provider failure) pass through untouched.
 *
 * @example
 * const verdict = await completeJson(llm, { messages, jsonSchema }, (v) =>
 *   typeof (v as { ok?: unknown })?.ok === 'boolean' ? (v as { ok: boolean }) : undefined);
 */
export async function completeJson<T>(llm: Llm, request: LlmRequest, parse: JsonParser<T>): Promise<T> {
  const first = await llm.complete(request);
  const firstResult = interpret(first, parse);
  if (firstResult.ok) return firstResult.value;

  const messages: ChatMessage[] = [
    ...request.messages,
    { role: 'assistant', content: first },
    { role: 'user', content: correction(firstResult.reason, request.jsonSchema) },
  ];
  const second = await llm.complete({ ...request, messages });
  const secondResult = interpret(second, parse);
  if (secondResult.ok) return secondResult.value;

  throw new MemoryError('LLM_BAD_OUTPUT', {
    message: `The language model gave no usable JSON after 2 attempts (${secondResult.reason})`,
    details: { llm: llm.id, attempts: 2, reason: secondResult.reason, output: second.slice(0, 500) },
  });
}

type Interpretation<T> = { ok: true; value: T } | { ok: false; reason: 'no-json' | 'invalid-shape' };

function interpret<T>(text: string, parse: JsonParser<T>): Interpretation<T> {
  const candidates = jsonCandidates(text);
  if (candidates.length === 0) return { ok: false, reason: 'no-json' };
  // A model sometimes shows an example before the real answer: accept the first candidate that fits.
  for (const candidate of candidates) {
    const value = parse(candidate);
    if (value !== undefined) return { ok: true, value };
  }
  return { ok: false, reason: 'invalid-shape' };
}

function correction(reason: 'no-json' | 'invalid-shape', schema: Record<string, unknown> | undefined): string {
  const problem = reason === 'no-json' ? 'Your previous answer did not contain valid JSON.' : 'Your previous answer was JSON but did not have the required structure.';
  const shape = schema === undefined ? '' : ` It must follow this JSON schema: ${JSON.stringify(schema)}`;
  return `${problem} Reply again with only the JSON value, no explanation and no Markdown.${shape}`;
}

/**
 * Extracts the first JSON value (object or array) from model output: the whole text, a ```json
 * fence, or a balanced `{…}` / `[…]` embedded in prose. Returns undefined when there is none.
 */
export function extractJson(text: string): unknown {
  return jsonCandidates(text)[0];
}

function jsonCandidates(text: string): unknown[] {
  const found: unknown[] = [];
  const whole = tryParse(text.trim());
  if (whole.ok && typeof whole.value === 'object' && whole.value !== null) return [whole.value];

  for (const match of text.matchAll(/```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g)) {
    const fenced = tryParse((match[1] ?? '').trim());
    if (fenced.ok && typeof fenced.value === 'object' && fenced.value !== null) found.push(fenced.value);
  }
  if (found.length > 0) return found;

  for (let start = 0; start < text.length; start++) {
    const char = text[start];
    if (char !== '{' && char !== '[') continue;
    const end = balancedEnd(text, start);
    if (end === -1) continue;
    const parsed = tryParse(text.slice(start, end + 1));
    if (parsed.ok) {
      found.push(parsed.value);
      start = end;
    }
  }
  return found;
}

/** Index of the bracket closing the one at `start`, skipping brackets inside strings; -1 if none. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') stack.push('}');
    else if (char === '[') stack.push(']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
