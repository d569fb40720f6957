/** Skills learned from similar agent cases: gathered, grown, and kept apart from unrelated ones. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from '../../src/index.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { Embedder } from '../../src/models/ports.js';
import { learnSkills } from '../../src/write/skills.js';
import type { AgentCaseRecord } from '../../src/records.js';

const T0 = Date.UTC(2026, 5, 1, 8);
let embedder: Embedder;
beforeAll(async () => {
  embedder = await createDefaultEmbedder();
});

async function task(memory: Memory, session: string, ask: string, answer: string, feedback: string, day: number) {
  const at = T0 + day * 86_400_000;
  await memory.add({
    session_id: session,
    messages: [
      { sender_id: 'u1', role: 'user', timestamp: at, content: ask },
      { sender_id: 'agent', role: 'assistant', timestamp: at + 1000, content: answer },
      { sender_id: 'u1', role: 'user', timestamp: at + 2000, content: feedback },
    ],
  });
  await memory.flush({ session_id: session });
}

describe('learned skills', () => {
  it('gathers similar cases into one skill and grows it, leaving unrelated tasks alone', async () => {
    const memory = await createMemory({ embedder });
    await task(memory, 'a', 'Please convert this CSV file to JSON format.', 'I parsed the CSV header and mapped each row to a JSON object.', 'Perfect, thanks!', 0);
    expect((await memory.get({ agent_id: 'agent', memory_type: 'agent_skill' })).data.total_count).toBe(0);
    await task(memory, 'b', 'Please convert this CSV file into JSON.', 'I read the CSV rows and wrote them out as JSON objects.', 'Great, that works.', 1);
    let skills = (await memory.get({ agent_id: 'agent', memory_type: 'agent_skill' })).data.agent_skills;
    expect(skills).toHaveLength(1);
    expect(skills[0]!.source_case_ids).toHaveLength(2);
    expect(skills[0]!.confidence).toBeCloseTo(0.8, 5);
    expect(skills[0]!.maturity_score).toBeCloseTo(0.4, 5);
    await task(memory, 'c', 'Can you convert a CSV file to JSON for me?', 'I converted each CSV line into a JSON record.', 'Thanks, perfect.', 2);
    await task(memory, 'd', 'Write a haiku about autumn leaves.', 'Red leaves drift slowly, the wind hums a quiet tune.', 'Lovely, thanks!', 3);
    skills = (await memory.get({ agent_id: 'agent', memory_type: 'agent_skill' })).data.agent_skills;
    expect(skills).toHaveLength(1);
    expect(skills[0]!.source_case_ids).toHaveLength(3);
    const found = await memory.search({ agent_id: 'agent', query: 'turn CSV data into JSON', method: 'hybrid', top_k: 3 });
    expect(found.data.agent_skills[0]!.id).toBe(skills[0]!.id);
  });

  it('ignores cases below the quality floor', async () => {
    const v = new Float32Array([1, 0]);
    const c = (id: string, quality: number) => ({ id, kind: 'agent_case', quality_score: quality, vector: v, app_id: 'a', project_id: 'p', owner_type: 'agent', owner_id: 'x', timestamp: 0, sender_ids: [], task_intent: 't', approach: 'a', key_insight: null }) as unknown as AgentCaseRecord;
    const same = async (texts: string[]) => texts.map(() => v);
    expect(await learnSkills([c('1', 0.1)], [c('2', 0.1)], [], 0, same)).toEqual([]);
    expect(await learnSkills([c('1', 0.5)], [c('2', 0.5)], [], 0, same)).toHaveLength(1);
  });
});
