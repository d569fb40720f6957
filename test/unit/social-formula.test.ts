/**
 * A sentence that only greets, thanks or bids goodbye to a participant by name is not a passage
 * (social-formula.ts): these pin what counts as one and what does not.
 */
import { describe, expect, it } from 'vitest';
import { isSocialFormula, participantNames } from '../../src/write/social-formula.js';

describe('social formula', () => {
  const names = participantNames(['Caroline', 'melanie', 'Mary Ann', 'user', 'u_123']);

  it('reads the words of senders\' names and ids, role words and digits left out', () => {
    expect([...names].sort()).toEqual(['ann', 'caroline', 'mary', 'melanie']);
  });

  it('is a greeting, a farewell or a thanks addressed to a participant, by name or a short form of it', () => {
    for (const s of ['Hey Caroline!', 'Hi Mel!', 'Caroline!!', 'Take care, Melanie!', 'Thanks so much, Mary Ann!', 'Talk soon Caro', "Melanie! It's been so long, how are you?", 'Haha yes, Mel'])
      expect(isSocialFormula(s, names), s).toBe(true);
  });

  it('keeps a sentence with one word of content, one that names no participant, and a lower-case short form', () => {
    for (const s of ['Hey Caroline, I painted a sunrise!', 'Good luck with the move, Mel!', 'Hi!', 'Thanks so much!', 'Hey Frank!', 'Hi mel', 'Dear [Client],', '**Morning Routine:**', 'Use it for:'])
      expect(isSocialFormula(s, names), s).toBe(false);
  });
});
