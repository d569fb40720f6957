/**
 * `bench:quality --names` asks LongMemEval's questions the way conversations between people are
 * asked about: in the third person, by name. The rewrite is word-level; these pin what it must get
 * right for a search (who is meant, and the verb forms around the name) and that the stored sides
 * carry the names the questions use.
 */
import { describe, expect, it } from 'vitest';
import { fillHaystack, namedQuestion, SIDE_NAMES, type Dataset, type Question } from '../../bench/longmemeval.js';

describe('bench --names: questions in the third person', () => {
  const { user: u, assistant: a } = SIDE_NAMES;

  it('names the asker and the assistant, with the verb forms that follow a name', () => {
    expect(namedQuestion('How long did I wait for the decision on my asylum application?')).toBe(`How long did ${u} wait for the decision on ${u}'s asylum application?`);
    expect(namedQuestion('How many tops have I bought from H&M so far?')).toBe(`How many tops has ${u} bought from H&M so far?`);
    expect(namedQuestion("I'm trying to decide whether to buy a NAS device now or wait. What do you think?")).toBe(`${u} is trying to decide whether to buy a NAS device now or wait. What does ${a} think?`);
    expect(namedQuestion('Can you remind me what was the 7th job in the list you provided?')).toBe(`Can ${a} remind ${u} what was the 7th job in the list ${a} provided?`);
    expect(namedQuestion('What is the total number of online courses I\'ve completed?')).toBe(`What is the total number of online courses ${u} has completed?`);
    expect(namedQuestion('Who did I have a conversation with about destiny?')).toBe(`Who did ${u} have a conversation with about destiny?`);
  });

  it('leaves a question without a first or second person as it is', () => {
    expect(namedQuestion("What is the total cost of Lola's vet visit and flea medication?")).toBe("What is the total cost of Lola's vet visit and flea medication?");
  });

  it('does not mistake words that merely contain the pronouns', () => {
    expect(namedQuestion('Is Myrtle Beach mine or yours?')).toBe(`Is Myrtle Beach ${u}'s or ${a}'s?`);
    expect(namedQuestion('Did Imogen meet the youth team?')).toBe('Did Imogen meet the youth team?');
  });

  it('stores each side under its own name, whichever role the protocol gives it', async () => {
    const dataset: Dataset = {
      questions: [],
      sessions: { s: [{ role: 'user', content: 'I adopted a puppy.' }, { role: 'assistant', content: 'Congratulations!' }] },
    };
    const q = { question_id: 'q', haystack_session_ids: ['s'], haystack_dates: ['2023/05/20 (Sat) 02:21'] } as unknown as Question;
    for (const [protocol, userRoleName] of [['all', u], ['other', a]] as const) {
      const added: { messages: { role: string; sender_name?: string; content: string }[] }[] = [];
      const memory = { add: async (r: (typeof added)[number]) => void added.push(r), flush: async () => undefined };
      await fillHaystack(memory as never, dataset, q, protocol, 'full', true);
      const byRole = Object.fromEntries(added[0]!.messages.map((m) => [m.role, m.sender_name]));
      expect(byRole['user']).toBe(userRoleName);
      expect(added[0]!.messages.find((m) => m.content === 'I adopted a puppy.')!.sender_name).toBe(u);
    }
  });
});
