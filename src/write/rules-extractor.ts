/**
 * The rule-based extractor: turns a closed segment into an episode per user taking part, atomic
 * facts (attributed statements with absolute dates), foresight (stated plans), explicit profile
 * facts and an agent case per assistant. Deterministic and model-free, so the write path works
 * everywhere; an LLM extractor produces richer text through the same port.
 */
import { extractText } from '../contract/requests.js';
import { tokenize } from '../index/tokenizer.js';
import { provenanceId, type BufferedMessage } from '../records.js';
import { annotateDates, findRelativeDates, isoDate } from './dates.js';
import type { ExtractedCase, ExtractedEpisode, ExtractedForesight, ExtractedProfile, ExtractedStatement, Extraction, Extractor, Segment } from './extraction.js';
import { profileFacts } from './profile-rules.js';
import { clip, isFirstPerson, splitSentences, toThirdPerson } from './sentences.js';

const FUTURE = /\b(I|we)\s*(?:['’]ll|will|shall|am going to|['’]m going to|are going to|['’]re going to|plan(?:ning)? to|am planning|['’]m planning|intend to|hope to|aim to|am about to|['’]m about to|have to|need to|am scheduled|['’]m scheduled)\b|\b(?:tomorrow|next (?:week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in \d+ (?:days|weeks|months))\b/i;
const TRIVIAL = /^(hi|hello|hey|thanks|thank you|ok|okay|sure|yes|no|great|cool|bye|good (?:morning|night|evening))\b[\s!.,]*$/i;
const POSITIVE = /\b(thanks|thank you|great|perfect|that works|worked|awesome|helpful|exactly what)\b/i;
const NEGATIVE = /\b(doesn['’]t work|didn['’]t work|not what I|wrong|useless|didn['’]t help|not helpful|that['’]s incorrect)\b/i;

function speakerName(message: BufferedMessage): string {
  return message.sender_name?.trim() || message.sender_id;
}

function topTerms(texts: string[], n: number): string[] {
  const counts = new Map<string, { count: number; surface: string }>();
  for (const text of texts) {
    for (const word of text.match(/[\p{L}][\p{L}\p{N}'-]{3,}/gu) ?? []) {
      const [term] = tokenize(word);
      if (!term) continue;
      const entry = counts.get(term) ?? { count: 0, surface: word.toLowerCase() };
      entry.count++;
      counts.set(term, entry);
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.surface.localeCompare(b.surface)).slice(0, n).map((e) => e.surface);
}

function listWords(words: string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

function statementsOf(message: BufferedMessage, name: string): { facts: ExtractedStatement[]; foresight: ExtractedForesight[]; profile: Record<string, unknown> } {
  const facts: ExtractedStatement[] = [];
  const foresight: ExtractedForesight[] = [];
  const profile: Record<string, unknown> = {};
  const provenance = { timestamp: message.timestamp, sender_ids: [message.sender_id], source_message_ids: [provenanceId(message)] };
  for (const sentence of splitSentences(extractText(message.content))) {
    if (TRIVIAL.test(sentence) || sentence.split(/\s+/).length < 3 && !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(sentence)) continue;
    const dated = annotateDates(sentence, message.timestamp);
    const question = /[?？]\s*$/.test(sentence);
    const content = question ? `${name} asked: ${dated}` : isFirstPerson(sentence) ? toThirdPerson(dated, name) : `${name} said: ${dated}`;
    facts.push({ content, evidence: sentence, ...provenance });
    if (!question && FUTURE.test(sentence) && isFirstPerson(sentence)) {
      const due = findRelativeDates(sentence, message.timestamp).find((d) => d.at >= message.timestamp - 86_400_000);
      foresight.push({ content: toThirdPerson(dated, name), evidence: sentence, due_at: due ? due.at : null, ...provenance });
    }
    if (!question) {
      for (const [key, value] of Object.entries(profileFacts(sentence))) {
        profile[key] = Array.isArray(value) ? [...((profile[key] as string[] | undefined) ?? []), ...value] : value;
      }
    }
  }
  return { facts, foresight, profile };
}

function narrative(messages: BufferedMessage[]): string {
  const lines = messages.map((m) => {
    const name = speakerName(m);
    const text = annotateDates(extractText(m.content).replace(/\s+/g, ' ').trim(), m.timestamp);
    const verb = m.role === 'assistant' ? 'replied' : m.role === 'tool' ? 'returned' : 'said';
    return text ? `${name} ${verb}: ${text}` : '';
  });
  const first = messages[0]!;
  return `On ${isoDate(first.timestamp)}: ${lines.filter(Boolean).join('\n')}`;
}

type Statements = ReturnType<typeof statementsOf>;

function episodeFor(ownerType: 'user' | 'agent', ownerId: string, segment: Segment, names: Map<string, string>, statementsFor: (m: BufferedMessage) => Statements): ExtractedEpisode {
  const messages = segment.messages;
  const first = messages[0]!;
  const userMessages = messages.filter((m) => m.role === 'user');
  const ownerMessages = messages.filter((m) => m.sender_id === ownerId);
  const ownerName = names.get(ownerId) ?? ownerId;
  const others = [...names.entries()].filter(([id]) => id !== ownerId).map(([, n]) => n);
  const texts = (userMessages.length ? userMessages : messages).map((m) => extractText(m.content));
  const firstSentence = splitSentences(texts.find((t) => t.trim()) ?? '').find((s) => !TRIVIAL.test(s)) ?? texts[0] ?? '';
  const facts: ExtractedStatement[] = [];
  const foresight: ExtractedForesight[] = [];
  for (const message of ownerMessages) {
    const out = statementsFor(message);
    facts.push(...out.facts);
    foresight.push(...out.foresight);
  }
  const terms = topTerms(texts, 3);
  return {
    owner_type: ownerType,
    owner_id: ownerId,
    subject: clip(firstSentence || `Conversation on ${isoDate(first.timestamp)}`, 100),
    summary: `${ownerName}${others.length ? ` talked with ${listWords(others)}` : ' wrote'}${terms.length ? ` about ${listWords(terms)}` : ''} on ${isoDate(first.timestamp)} (${messages.length} message${messages.length === 1 ? '' : 's'}).`,
    episode: narrative(messages),
    timestamp: first.timestamp,
    sender_ids: [...names.keys()],
    source_message_ids: messages.map(provenanceId),
    facts,
    foresight,
  };
}

function caseFor(agentId: string, segment: Segment): ExtractedCase | null {
  const messages = segment.messages;
  const request = messages.find((m) => m.role === 'user' && extractText(m.content).trim());
  const replies = messages.filter((m) => m.sender_id === agentId && m.role === 'assistant');
  if (!request || replies.length === 0) return null;
  const approach = replies.map((m) => splitSentences(extractText(m.content)).slice(0, 2).join(' ')).filter(Boolean).join(' Then: ');
  const lastUser = [...messages].reverse().find((m) => m.role === 'user' && m !== request);
  const feedback = lastUser ? extractText(lastUser.content) : '';
  // Without a model the rules cannot judge quality; explicit user feedback moves it off the middle.
  const quality = NEGATIVE.test(feedback) ? 0.3 : POSITIVE.test(feedback) ? 0.8 : 0.5;
  return {
    agent_id: agentId,
    task_intent: clip(extractText(request.content), 300),
    approach: clip(approach, 1000),
    quality_score: quality,
    key_insight: null,
    timestamp: request.timestamp,
    sender_ids: [...new Set(messages.map((m) => m.sender_id))],
    source_message_ids: messages.map(provenanceId),
  };
}

/** Creates the model-free extractor. */
export function createRulesExtractor(): Extractor {
  return {
    id: 'rules',
    async extract(segment: Segment): Promise<Extraction> {
      const messages = segment.messages;
      const names = new Map<string, string>();
      for (const m of messages) if (!names.has(m.sender_id)) names.set(m.sender_id, speakerName(m));
      const users = [...new Set(messages.filter((m) => m.role === 'user').map((m) => m.sender_id))];
      const agents = [...new Set(messages.filter((m) => m.role === 'assistant').map((m) => m.sender_id))];
      // Each message is read once; its episode and its owner's profile both use the result.
      const read = new Map<BufferedMessage, Statements>();
      const statementsFor = (m: BufferedMessage): Statements => {
        let out = read.get(m);
        if (!out) read.set(m, (out = statementsOf(m, names.get(m.sender_id) ?? m.sender_id)));
        return out;
      };
      const episodes: ExtractedEpisode[] = users.map((u) => episodeFor('user', u, segment, names, statementsFor));
      // A segment with no user in it still becomes memory: the agent's own episode.
      if (users.length === 0) for (const a of agents) episodes.push(episodeFor('agent', a, segment, names, statementsFor));
      const profiles: ExtractedProfile[] = [];
      for (const u of users) {
        const update: Record<string, unknown> = {};
        const own = messages.filter((m) => m.sender_id === u);
        for (const m of own) {
          for (const [key, value] of Object.entries(statementsFor(m).profile)) {
            update[key] = Array.isArray(value) ? [...((update[key] as string[] | undefined) ?? []), ...value] : value;
          }
        }
        if (!('name' in update) && own[0]?.sender_name) update['name'] = own[0].sender_name;
        if (Object.keys(update).length) profiles.push({ user_id: u, update, sender_ids: [u], source_message_ids: own.map(provenanceId) });
      }
      const cases = users.length ? agents.map((a) => caseFor(a, segment)).filter((c): c is ExtractedCase => c !== null) : [];
      return { episodes, profiles, cases, extractor: 'rules' };
    },
  };
}
