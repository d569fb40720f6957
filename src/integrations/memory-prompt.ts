/**
 * Search results as text a language model reads: a block for the system prompt, one line per
 * memory with its date, the facts under their episode, the profile and the agent's cases and
 * skills. Plain text with no framework types, shared by the AI SDK and LangChain.js adapters.
 */
import type { SearchData, SearchResponse } from '../contract/types.js';

export interface MemoryPromptOptions {
  /** The block's heading (default: `What you remember about this user`). */
  heading?: string;
  /** Lines at most (default 40); the rest are left out, best-scored first kept. */
  maxLines?: number;
}

const day = (iso: string) => iso.slice(0, 10);
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The lines of a search answer, in the order the engine ranked them. */
export function memoryLines(data: SearchData): string[] {
  const lines: string[] = [];
  for (const profile of data.profiles) {
    const entries = Object.entries(profile.profile_data).map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    if (entries.length) lines.push(`- Profile: ${oneLine(entries.join('; '))}`);
  }
  for (const episode of data.episodes) {
    lines.push(`- [${day(episode.timestamp)}] ${oneLine(episode.summary || episode.episode)}`);
    for (const fact of episode.atomic_facts) lines.push(`  - ${oneLine(fact.content)}`);
  }
  for (const c of data.agent_cases) lines.push(`- Case [${day(c.timestamp)}]: ${oneLine(c.task_intent)} → ${oneLine(c.approach)}${c.key_insight ? ` (insight: ${oneLine(c.key_insight)})` : ''}`);
  for (const s of data.agent_skills) lines.push(`- Skill ${oneLine(s.name)}: ${oneLine(s.description)}`);
  return lines;
}

/**
 * A system-prompt block of what a search found; the empty string when it found nothing, so the
 * prompt carries no empty heading.
 *
 * @example
 * const found = await memory.search({ user_id: 'alice', query: userMessage, top_k: 5 });
 * const system = `You are a helpful assistant.\n\n${memoryPromptBlock(found)}`;
 */
export function memoryPromptBlock(response: SearchResponse | SearchData, options: MemoryPromptOptions = {}): string {
  const data = 'data' in response ? response.data : response;
  const lines = memoryLines(data).slice(0, options.maxLines ?? 40);
  if (!lines.length) return '';
  return `${options.heading ?? 'What you remember about this user'} (from earlier conversations; may be out of date):\n${lines.join('\n')}`;
}
