/**
 * Sample data: seven dated conversations between a user and an assistant, so search has something
 * real to find: a trip being planned, a dog, work, food preferences, and two note-summarising
 * tasks (similar enough that the assistant learns a skill from them). The last one is left in the
 * buffer, unflushed, to show `unprocessed_messages`.
 */
import type { MemoryClient } from '../src/client.js';
import type { AddMessage } from '../src/contract/types.js';

interface Turn {
  /** `u` the user, `a` the assistant. */
  who: 'u' | 'a';
  text: string;
}

interface SampleConversation {
  session_id: string;
  /** When the conversation started (UTC); turns follow a few minutes apart. */
  start: string;
  turns: Turn[];
  /** False leaves the conversation in the buffer, as if it were still going on. */
  flush: boolean;
}

/** The sample conversations, oldest first. */
export const SAMPLE_CONVERSATIONS: readonly SampleConversation[] = [
  {
    session_id: 'trip-lisbon',
    start: '2026-03-03T18:10:00Z',
    flush: true,
    turns: [
      { who: 'u', text: "I'm planning a trip to Lisbon with my sister Ana in May." },
      { who: 'a', text: 'Lovely! Do you have dates yet, and what kind of place would you like to stay in?' },
      { who: 'u', text: "We land on May 14 and stay five nights. I'd like a small hotel in Alfama, close to the tram 28 line." },
      { who: 'a', text: 'Alfama suits that well: Memmo Alfama and Santiago de Alfama are both near tram 28. Book early for mid-May.' },
      { who: 'u', text: "I'm vegetarian, so I also need good vegetarian restaurants near there." },
      { who: 'a', text: 'Try Ao 26 Vegan Food Project and Jardim das Cerejas; both are a short walk from Alfama.' },
      { who: 'u', text: 'Perfect, thanks!' },
    ],
  },
  {
    session_id: 'dog-biscuit',
    start: '2026-03-18T08:30:00Z',
    flush: true,
    turns: [
      { who: 'u', text: 'My dog Biscuit is a two-year-old beagle and he has so much energy.' },
      { who: 'a', text: 'Beagles love long sniffy walks. How much exercise does he get?' },
      { who: 'u', text: 'About an hour a day. I need to take him to the vet next Tuesday for his vaccines.' },
      { who: 'a', text: 'Noted. Would you like a reminder the day before?' },
      { who: 'u', text: 'Yes please. He hates the rain and refuses to walk when it pours.' },
      { who: 'a', text: 'Then a snuffle mat or a puzzle feeder can burn his energy indoors on rainy days.' },
    ],
  },
  {
    session_id: 'work-checkout',
    start: '2026-04-02T09:15:00Z',
    flush: true,
    turns: [
      { who: 'u', text: 'I work as a product designer at Northwind Studio.' },
      { who: 'a', text: 'Nice. What are you working on this week?' },
      { who: 'u', text: 'I have to present the redesign of the checkout flow next Thursday. My manager Priya wants the prototype by Friday.' },
      { who: 'a', text: "Let's plan it: finish the prototype on Wednesday, rehearse Thursday morning, and keep the demo to ten minutes." },
      { who: 'u', text: 'That works, thank you.' },
    ],
  },
  {
    session_id: 'dinner-ideas',
    start: '2026-04-20T17:45:00Z',
    flush: true,
    turns: [
      { who: 'u', text: "Can you suggest a dinner for tonight? I'm allergic to peanuts and I don't like cilantro." },
      { who: 'a', text: 'How about a creamy mushroom risotto, or a spicy tofu stir-fry made without peanuts or cilantro?' },
      { who: 'u', text: 'I love spicy Thai food, so the stir-fry sounds great.' },
      { who: 'a', text: 'Then use Thai basil, chili and lime; toasted sesame gives it crunch.' },
      { who: 'u', text: 'Perfect, thanks!' },
    ],
  },
  {
    session_id: 'standup-notes',
    start: '2026-05-04T10:05:00Z',
    flush: true,
    turns: [
      { who: 'u', text: 'Can you summarize the notes from my Monday standup? Ravi finished the payment API, Lena is blocked on the design tokens, and we ship the beta on May 20.' },
      { who: 'a', text: 'Summary: the payment API is done (Ravi); the design tokens are blocked (Lena) and need an owner; the beta ships on May 20.' },
      { who: 'u', text: "Great, that's exactly what I needed." },
    ],
  },
  {
    session_id: 'review-notes',
    start: '2026-05-08T16:20:00Z',
    flush: true,
    turns: [
      { who: 'u', text: "Can you summarize the notes from Thursday's design review? We approved the new checkout layout, the icons need another pass, and Priya wants usability tests next week." },
      { who: 'a', text: 'Summary: the checkout layout is approved; the icons need another pass; usability tests are planned for next week (Priya).' },
      { who: 'u', text: 'Thanks, perfect.' },
    ],
  },
  {
    session_id: 'weekend-sintra',
    start: '2026-05-22T19:00:00Z',
    flush: false,
    turns: [
      { who: 'u', text: 'Remind me to book the train to Sintra for Saturday morning.' },
      { who: 'a', text: "I'll remind you tomorrow at nine. Trains leave Rossio station every twenty minutes." },
    ],
  },
];

/** A display name for an id: `maya` → `Maya`. */
export function displayName(id: string): string {
  return id.charAt(0).toUpperCase() + id.slice(1);
}

/** The `add` body of one sample conversation, spoken by `userId` and `agentId`. */
export function sampleMessages(conversation: SampleConversation, userId: string, agentId: string): AddMessage[] {
  const start = Date.parse(conversation.start);
  return conversation.turns.map((turn, i) => ({
    id: `${conversation.session_id}-${i + 1}`,
    sender_id: turn.who === 'u' ? userId : agentId,
    sender_name: displayName(turn.who === 'u' ? userId : agentId),
    role: turn.who === 'u' ? 'user' : 'assistant',
    timestamp: start + i * 3 * 60_000,
    content: turn.text,
  }));
}

/**
 * Loads every sample conversation. Sessions loaded before are deleted first, so seeding twice
 * leaves one copy. Reports each step to `onStep`; resolves with the number of messages added.
 */
export async function seedSamples(memory: MemoryClient, userId: string, agentId: string, onStep: (done: number, total: number) => void): Promise<number> {
  let messages = 0;
  for (const [i, conversation] of SAMPLE_CONVERSATIONS.entries()) {
    await memory.delete({ user_id: userId, session_id: conversation.session_id });
    await memory.delete({ agent_id: agentId, session_id: conversation.session_id });
    const body = sampleMessages(conversation, userId, agentId);
    await memory.add({ session_id: conversation.session_id, messages: body });
    if (conversation.flush) await memory.flush({ session_id: conversation.session_id });
    messages += body.length;
    onStep(i + 1, SAMPLE_CONVERSATIONS.length);
  }
  return messages;
}
