/**
 * What the other participants said, as retrievable units of the owner's episode. An episode's
 * facts are the owner's own claims; a question about what the other side said ("what did you
 * recommend?", "what did Mel say about the trip?") would otherwise reach only the episode's long
 * text, which the vector leg scores by its facts. Every other speaker's words become short
 * attributed passages ("Mel said: …"), verbatim, so both legs see the whole conversation. They
 * are made here, after any extractor, so the rules and an LLM extractor get the same coverage.
 */
import { extractText } from '../contract/requests.js';
import { provenanceId, sentBy, type BufferedMessage, type Scope } from '../records.js';
import type { ExtractedStatement } from './extraction.js';

/** A passage holds whole sentences up to about this many characters. */
export const UNIT_CHARS = 300;

/** Sentences of a message, split at sentence ends and line breaks (list items stay apart). */
function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“(])/u)
    .map((s) => s.replace(/\s+/g, ' ').trim())
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

/** The attributed passages of every message in `messages` not sent by `owner` (tool results are the agent's working, not words said). */
export function participantUnits(messages: readonly BufferedMessage[], owner: Pick<Scope, 'owner_type' | 'owner_id'>): ExtractedStatement[] {
  const out: ExtractedStatement[] = [];
  for (const m of messages) {
    if (sentBy(m, owner) || m.role === 'tool') continue;
    const name = m.sender_name?.trim() || m.sender_id;
    const verb = m.role === 'assistant' ? 'replied' : 'said';
    for (const passage of passages(extractText(m.content))) {
      out.push({ content: `${name} ${verb}: ${passage}`, evidence: passage, timestamp: m.timestamp, sender_ids: [m.sender_id], source_message_ids: [provenanceId(m)] });
    }
  }
  return out;
}
