import { describe, expect, it } from 'vitest';
import { MemoryError, isMemoryError } from '../../src/errors.js';
import { completeJson, extractJson } from '../../src/models/llm-json.js';
import type { LlmRequest } from '../../src/models/ports.js';
import { scriptedLlmDouble } from '../support/scripted-llm.js';

interface Verdict {
  is_sufficient: boolean;
  missing: string[];
}

function parseVerdict(value: unknown): Verdict | undefined {
  const v = value as Partial<Verdict> | null;
  if (typeof v?.is_sufficient !== 'boolean' || !Array.isArray(v.missing)) return undefined;
  return { is_sufficient: v.is_sufficient, missing: v.missing.filter((m): m is string => typeof m === 'string') };
}

const schema = { type: 'object', properties: { is_sufficient: { type: 'boolean' }, missing: { type: 'array', items: { type: 'string' } } } };
const request: LlmRequest = { messages: [{ role: 'user', content: 'Is this enough?' }], jsonSchema: schema, temperature: 0 };

describe('completeJson', () => {
  it('reads a bare JSON answer in one call', async () => {
    const llm = scriptedLlmDouble(['{"is_sufficient": true, "missing": []}']);

    expect(await completeJson(llm, request, parseVerdict)).toEqual({ is_sufficient: true, missing: [] });
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]).toEqual(request);
  });

  it('reads JSON inside a ```json fence', async () => {
    const llm = scriptedLlmDouble(['```json\n{"is_sufficient": false, "missing": ["the date"]}\n```']);

    expect(await completeJson(llm, request, parseVerdict)).toEqual({ is_sufficient: false, missing: ['the date'] });
    expect(llm.requests).toHaveLength(1);
  });

  it('reads JSON wrapped in prose, braces inside strings included', async () => {
    const llm = scriptedLlmDouble(['Sure! Here is my verdict: {"is_sufficient": false, "missing": ["a } brace", "a \\"quote\\""]} Hope that helps.']);

    expect(await completeJson(llm, request, parseVerdict)).toEqual({ is_sufficient: false, missing: ['a } brace', 'a "quote"'] });
    expect(llm.requests).toHaveLength(1);
  });

  it('skips an example object that does not validate and takes the real answer', async () => {
    const llm = scriptedLlmDouble(['The format is {"example": 1}. Answer: {"is_sufficient": true, "missing": []}']);

    expect(await completeJson(llm, request, parseVerdict)).toEqual({ is_sufficient: true, missing: [] });
    expect(llm.requests).toHaveLength(1);
  });

  it('retries once with a corrective message after invalid output', async () => {
    const llm = scriptedLlmDouble(['I think it is sufficient.', '{"is_sufficient": true, "missing": []}']);

    expect(await completeJson(llm, request, parseVerdict)).toEqual({ is_sufficient: true, missing: [] });
    expect(llm.requests).toHaveLength(2);
    const retry = llm.requests[1];
    // The retry shows the model its own bad answer, then asks again; the rest of the request is kept.
    expect(retry?.messages.slice(0, 2)).toEqual([request.messages[0], { role: 'assistant', content: 'I think it is sufficient.' }]);
    expect(retry?.messages[2]?.role).toBe('user');
    expect(retry?.messages[2]?.content).toContain('"is_sufficient"');
    expect(retry?.jsonSchema).toBe(schema);
    expect(retry?.temperature).toBe(0);
  });

  it('retries when the JSON parses but has the wrong shape', async () => {
    const llm = scriptedLlmDouble(['{"sufficient": "yes"}', '{"is_sufficient": false, "missing": ["x"]}']);

    expect(await completeJson(llm, request, parseVerdict)).toEqual({ is_sufficient: false, missing: ['x'] });
    expect(llm.requests).toHaveLength(2);
  });

  it('throws LLM_BAD_OUTPUT after two invalid answers, and asks no third time', async () => {
    const llm = scriptedLlmDouble(['not json', '{"still": "wrong"}', '{"is_sufficient": true, "missing": []}']);
    const error: unknown = await completeJson(llm, request, parseVerdict).catch((e: unknown) => e);

    expect(isMemoryError(error) && error.code).toBe('LLM_BAD_OUTPUT');
    expect((error as MemoryError).details).toMatchObject({ attempts: 2, reason: 'invalid-shape' });
    expect(llm.requests).toHaveLength(2);
  });

  it('lets errors of the call itself through without retrying', async () => {
    const llm = scriptedLlmDouble([new MemoryError('LLM_TIMEOUT'), '{"is_sufficient": true, "missing": []}']);
    const error: unknown = await completeJson(llm, request, parseVerdict).catch((e: unknown) => e);

    expect(isMemoryError(error) && error.code).toBe('LLM_TIMEOUT');
    expect(llm.requests).toHaveLength(1);
  });
});

describe('extractJson', () => {
  it('finds objects and arrays, and nothing where there is none', () => {
    expect(extractJson('  {"a": [1, 2]}  ')).toEqual({ a: [1, 2] });
    expect(extractJson('```\n[{"id": "p1"}]\n```')).toEqual([{ id: 'p1' }]);
    expect(extractJson('scores: [0.5, 1] done')).toEqual([0.5, 1]);
    expect(extractJson('{unbalanced: true')).toBeUndefined();
    expect(extractJson('just words')).toBeUndefined();
    expect(extractJson('42')).toBeUndefined();
  });
});
