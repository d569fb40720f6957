/**
 * What the conversation said beyond the owner's facts, as retrievable units of the owner's
 * episode. An episode's facts are the owner's clean claims; a question about what the other side
 * said ("what did you recommend?", "what did Mel say about the trip?"), or about something the
 * owner asked or listed, would otherwise reach only the episode's long text, which the vector leg
 * scores by its facts. Those words become short attributed passages ("Mel said: …"), verbatim, so
 * both legs see the whole conversation. A relative date in them is followed by the absolute date
 * it names, as in the episode's text ("last Saturday (2023-05-06)"): a passage is read on its own,
 * long after it was said. They are made here, after any extractor, so the rules and an LLM
 * extractor get the same coverage.
 */
import { extractText } from '../contract/requests.js';
import { provenanceId, sentBy, type BufferedMessage, type Scope } from '../records.js';
import type { ExtractedStatement } from './extraction.js';
import { annotateDates } from './dates.js';
import { singleSpaced } from './sentences.js';
import { calledNames, isSocialFormula } from './social-formula.js';

/** A passage holds whole sentences up to about this many characters. */
export const UNIT_CHARS = 300;

/** Sentences of a message, split at sentence ends and line breaks (list items stay apart). */
function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“(])/u)
    .map((s) => singleSpaced(s).trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/** Sentences packed into passages of about `UNIT_CHARS`; a longer sentence stays whole. */
export function passages(text: string, max = UNIT_CHARS): string[] {
  const out: string[] = [];
  let current = '';
  for (const s of sentences(text)) {
    if (current && current.length + 1 + s.length > max) {
      out.push(current);
      current = '';
    }
    current = current ? `${current} ${s}` : s;
  }
  if (current) out.push(current);
  return out;
}

/**
 * The attributed passages of a conversation that the owner's facts do not already hold: every
 * other speaker's words, and the owner's own sentences that no extracted fact was made from
 * (questions, lists, asides: the facts are only the clean claims). Tool results are the agent's
 * working, not words said.
 */
export function participantUnits(messages: readonly BufferedMessage[], owner: Pick<Scope, 'owner_type' | 'owner_id'>, facts: readonly Pick<ExtractedStatement, 'evidence'>[] = []): ExtractedStatement[] {
  const covered = facts.map((f) => fold(f.evidence)).filter(Boolean);
  const { names, short } = calledNames(messages.flatMap((m) => [m.sender_id, m.sender_name ?? '']));
  const out: ExtractedStatement[] = [];
  for (const m of messages) {
    if (m.role === 'tool') continue;
    const own = sentBy(m, owner);
    const name = m.sender_name?.trim() || m.sender_id;
    const verb = m.role === 'assistant' ? 'replied' : 'said';
    // A greeting or a thanks alone is not a passage (social-formula.ts); the episode's text keeps it.
    const text = sentences(extractText(m.content))
      .filter((s) => !isSocialFormula(s, names, short) && !(own && isCovered(fold(s), covered)))
      .join('\n');
    for (const passage of passages(text)) {
      out.push({ content: `${name} ${verb}: ${annotateDates(passage, m.timestamp)}`, evidence: passage, timestamp: m.timestamp, sender_ids: [m.sender_id], source_message_ids: [provenanceId(m)] });
    }
  }
  return out;
}

/** Whether a folded sentence holds, or is held by, the words of an extracted fact. */
const isCovered = (sentence: string, covered: readonly string[]) => covered.some((c) => c.includes(sentence) || sentence.includes(c));

// ASCII text (most of it) folds with a plain character class; the same result, without Unicode property lookups.
const fold = (text: string) => text.toLowerCase().replace(/^[\x00-\x7f]*$/.test(text) ? /[^a-z0-9]+/g : /[^\p{L}\p{N}]+/gu, ' ').trim();
