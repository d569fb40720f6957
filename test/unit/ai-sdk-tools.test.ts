/**
 * The AI SDK tools driven by the AI SDK's own mock language model (`ai/test`): `generateText`
 * runs real tool calls against a real memory (bundled embedding model) and hands the results
 * back to the model. The mock only scripts what the model says; every tool call is real.
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/engine.js';
import { createMemoryTools, memoryPromptBlock } from '../../src/integrations/ai-sdk.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const toolCall = (toolCallId: string, toolName: string, input: unknown) => ({
  content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});
const say = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] });

describe('AI SDK memory tools', () => {
  let memory: Memory;
  beforeEach(async () => {
    memory = await createMemory({ embedder: await createDefaultEmbedder(), now: () => Date.UTC(2026, 10, 30, 12) });
  });

  it('stores with addMemory and finds with searchMemory in one generateText run', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCall('c1', 'addMemory', { content: 'I adopted a cat named Miso yesterday.' }),
        toolCall('c2', 'searchMemory', { query: 'what pet do I have', top_k: 3 }),
        say('Your cat is called Miso.'),
      ],
    });
    const result = await generateText({
      model,
      tools: createMemoryTools(memory, { user_id: 'alice' }, { now: () => Date.UTC(2026, 10, 30, 12) }),
      stopWhen: stepCountIs(5),
      prompt: 'Remember my cat, then tell me what pet I have.',
    });
    expect(result.text).toBe('Your cat is called Miso.');
    const results = result.steps.flatMap((s) => s.toolResults);
    expect(results.map((r) => r.toolName)).toEqual(['addMemory', 'searchMemory']);
    expect(results[0]!.output).toEqual({ stored: true });
    const found = results[1]!.output as { memories: string[]; found: number };
    expect(found.found).toBeGreaterThan(0);
    expect(found.memories.join('\n')).toMatch(/Miso/);
    // The model's third call saw the search result.
    expect(JSON.stringify(model.doGenerateCalls[2]!.prompt)).toMatch(/Miso/);
    // What the tool stored is in alice's memory, and only there.
    const direct = await memory.search({ user_id: 'alice', query: 'cat Miso', method: 'keyword' });
    expect(direct.data.episodes.length).toBeGreaterThan(0);
    expect((await memory.search({ user_id: 'bob', query: 'cat Miso', method: 'keyword' })).data.episodes).toEqual([]);
  });

  it('offers the contract’s search schema without the owner fields', async () => {
    const tools = createMemoryTools(memory, { user_id: 'alice' });
    const schema = (await (tools.searchMemory.inputSchema as { jsonSchema: any }).jsonSchema) as any;
    expect(Object.keys(schema.properties)).toEqual(['query', 'method', 'top_k', 'radius', 'min_score', 'include_profile', 'enable_llm_rerank', 'filters']);
    expect(schema.required).toEqual(['query']);
  });

  it('hands a refused call back to the model with the catalog code, and cannot reach another owner', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [toolCall('c1', 'searchMemory', { query: 'cats', top_k: 0, user_id: 'bob' }), say('Sorry.')],
    });
    const result = await generateText({ model, tools: createMemoryTools(memory, { user_id: 'alice' }), stopWhen: stepCountIs(3), prompt: 'x' });
    const output = result.steps.flatMap((s) => s.toolResults)[0]!.output as { error: { code: string; detail: { loc: unknown[] }[] } };
    expect(output.error.code).toBe('VALIDATION_FAILED');
    expect(output.error.detail.map((d) => d.loc.join('.'))).toEqual(['body.top_k']);
  });

  it('turns search results into a system-prompt block (empty when nothing was found)', async () => {
    await memory.add({ session_id: 's1', messages: [{ sender_id: 'alice', role: 'user', timestamp: Date.UTC(2026, 10, 28), content: 'I work as a nurse in Lisbon.' }] });
    await memory.flush({ session_id: 's1' });
    await memory.upsertProfile({ user_id: 'alice', profile_data: { city: 'Lisbon' } });
    const block = memoryPromptBlock(await memory.search({ user_id: 'alice', query: 'job', include_profile: true, top_k: 3 }));
    expect(block.split('\n')[0]).toMatch(/^What you remember about this user/);
    expect(block).toMatch(/- \[2026-11-28\] .*nurse/);
    expect(block).toMatch(/Profile: .*city: Lisbon/);
    expect(memoryPromptBlock(await memory.search({ user_id: 'nobody', query: 'job' }))).toBe('');
  });
});
