/**
 * Tagged sentences as one string, for handing a message's analysis from the thread that tagged it
 * to the one that reads it. Structured clone of the token objects costs the reader about as much
 * as tagging them; one string crosses for the price of a copy and is split back into the same
 * tokens. Every field is text from the message (or a tag or lemma made from it), so a message
 * that holds the separator itself is not packed: its sentences cross as objects.
 */
import type { Sentence, Token } from './sentences.js';

const SEP = '\u0000';

/** The sentences as one string, or null when the text they come from holds the separator. */
export function packSentences(text: string, sentences: readonly Sentence[]): string | null {
  if (text.includes(SEP)) return null;
  const parts: string[] = [];
  for (const s of sentences) {
    parts.push(s.cjk ? 'c' : 'e', s.text, String(s.tokens.length));
    for (const t of s.tokens) parts.push(t.text, t.pos, t.lemma, t.space);
  }
  return parts.join(SEP);
}

/** The sentences a packed string holds (token for token what was packed; `lower` is the text's lower case, as tagging makes it). */
export function unpackSentences(packed: string): Sentence[] {
  const out: Sentence[] = [];
  if (packed === '') return out;
  const parts = packed.split(SEP);
  let k = 0;
  while (k < parts.length) {
    const cjk = parts[k++] === 'c';
    const text = parts[k++]!;
    const n = Number(parts[k++]);
    const tokens: Token[] = new Array<Token>(n);
    for (let j = 0; j < n; j++) {
      const word = parts[k++]!;
      tokens[j] = { text: word, lower: word.toLowerCase(), pos: parts[k++]!, lemma: parts[k++]!, space: parts[k++]! };
    }
    out.push({ text, tokens, cjk });
  }
  return out;
}
