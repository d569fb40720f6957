/**
 * Who said what, as the rules extractor writes it: a speaker known only by an id keeps that id as
 * written and is not declined ("before their drink"), and an owner is (type, id): a user and an
 * agent with the same id never get each other's words as facts or profile.
 */
import { describe, expect, it } from 'vitest';
import type { BufferedMessage } from '../../src/records.js';
import type { Segment } from '../../src/write/extraction.js';
import { createRulesExtractor } from '../../src/write/rules-extractor.js';

const MONDAY = Date.UTC(2026, 10, 30, 10);

function segment(messages: { sender_id: string; role: 'user' | 'assistant'; text: string; sender_name?: string }[]): Segment {
  return {
    id: 'mc', app_id: 'default', project_id: 'default', session_id: 's',
    messages: messages.map((m, i) => ({
      kind: 'message', id: `m${i + 1}`, app_id: 'default', project_id: 'default', session_id: 's', seq: i, role: m.role, content: m.text,
      timestamp: MONDAY + i * 60_000, sender_id: m.sender_id, sender_name: m.sender_name ?? null, tool_calls: null, tool_call_id: null, message_id: null,
    }) as BufferedMessage),
  };
}

describe('speakers in facts', () => {
  it('keeps an id as written and says "their" after it, where a name is declined', async () => {
    const rules = createRulesExtractor();
    const byId = await rules.extract(segment([{ sender_id: 'user-001', role: 'user', text: 'I run five kilometres every morning before my drink.' }]));
    expect(byId.episodes[0]!.facts.map((f) => f.content)).toEqual(['user-001 runs five kilometres every morning before their drink.']);
    const named = await rules.extract(segment([{ sender_id: 'user-001', sender_name: 'Maya', role: 'user', text: 'I run five kilometres every morning before my drink.' }]));
    expect(named.episodes[0]!.facts.map((f) => f.content)).toEqual(["Maya runs five kilometres every morning before Maya's drink."]);
  });

  it('never gives a user the words of an agent with the same id', async () => {
    const extraction = await createRulesExtractor().extract(segment([
      { sender_id: 'x', role: 'user', text: 'I live in Lisbon and I work as a nurse.' },
      { sender_id: 'x', role: 'assistant', text: 'I live in the cloud and I work as a helper.' },
    ]));
    const user = extraction.episodes.find((e) => e.owner_type === 'user')!;
    expect(user.facts.map((f) => f.source_message_ids)).toEqual(user.facts.map(() => ['m1']));
    expect(user.facts.map((f) => f.content).join(' ')).not.toContain('cloud');
    expect(extraction.profiles).toHaveLength(1);
    expect(extraction.profiles[0]!.source_message_ids).toEqual(['m1']);
    expect(extraction.profiles[0]!.update).toMatchObject({ location: 'Lisbon', occupation: 'nurse' });
  });
});
