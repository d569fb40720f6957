/**
 * A test double for the `Llm` port that answers from a script, one step per call, and records
 * every request it received so tests can assert what was asked.
 */

import type { Llm, LlmRequest } from '../../src/models/ports.js';

/** One scripted answer: a text, an error to throw, or a function of the request. */
export type ScriptStep = string | Error | ((request: LlmRequest) => string | Promise<string>);

/** The double: an `Llm` plus the requests it has seen. */
export interface ScriptedLlmDouble extends Llm {
  readonly requests: LlmRequest[];
}

/** Builds an `Llm` double that plays `script` in order and fails loudly when it runs out. */
export function scriptedLlmDouble(script: readonly ScriptStep[], id = 'scripted-llm-double'): ScriptedLlmDouble {
  const requests: LlmRequest[] = [];
  return {
    id,
    requests,
    async complete(request) {
      // Copy the messages: callers may push onto the same array for a follow-up call.
      requests.push({ ...request, messages: [...request.messages] });
      const step = script[requests.length - 1];
      if (step === undefined) throw new Error(`scriptedLlmDouble: no step ${requests.length} in a script of ${script.length}`);
      if (step instanceof Error) throw step;
      return typeof step === 'function' ? step(request) : step;
    },
  };
}
