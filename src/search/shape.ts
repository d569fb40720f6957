/** Records → the contract's response items (seed 000). */
import type {
  SearchAgentCaseItem, SearchAgentSkillItem, SearchAtomicFactItem, SearchEpisodeItem, SearchProfileItem, UnprocessedMessageDTO,
} from '../contract/types.js';
import type { AgentCaseRecord, AgentSkillRecord, BufferedMessage, EpisodeRecord, KnowledgeRecord, MemoryRecord, ProfileRecord } from '../records.js';
import { roundScore } from './scores.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

/** An episode, or a knowledge entry in the episode shape (the contract's only narrative item). */
export function episodeItem(record: EpisodeRecord | KnowledgeRecord, score: number, facts: SearchAtomicFactItem[] = []): SearchEpisodeItem {
  const isEpisode = record.kind === 'episode';
  return {
    id: record.id,
    user_id: record.owner_type === 'user' ? record.owner_id : null,
    app_id: record.app_id,
    project_id: record.project_id,
    session_id: record.session_id,
    timestamp: iso(record.timestamp),
    sender_ids: [...record.sender_ids],
    summary: isEpisode ? record.summary : record.title,
    subject: isEpisode ? record.subject : record.title,
    episode: isEpisode ? record.episode : record.content,
    type: 'Conversation',
    score: roundScore(score),
    atomic_facts: facts,
    ...itemRefs(record),
  };
}

/** Engram extension: the images, audio and documents a memory came with, by reference (never their bytes); absent when none. */
const itemRefs = (record: MemoryRecord) => (record.items?.length ? { content_items: structuredClone(record.items) } : {});

export function factItem(record: MemoryRecord & { content: string }, score: number): SearchAtomicFactItem {
  return { id: record.id, content: record.content, score: roundScore(score), ...itemRefs(record) };
}

export function profileItem(record: ProfileRecord, score: number | null = null): SearchProfileItem {
  return {
    id: record.id,
    user_id: record.owner_type === 'user' ? record.owner_id : null,
    app_id: record.app_id,
    project_id: record.project_id,
    profile_data: structuredClone(record.profile_data),
    score: score === null ? null : roundScore(score),
  };
}

export function caseItem(record: AgentCaseRecord, score: number): SearchAgentCaseItem {
  return {
    id: record.id,
    agent_id: record.owner_id,
    app_id: record.app_id,
    project_id: record.project_id,
    session_id: record.session_id ?? '',
    task_intent: record.task_intent,
    approach: record.approach,
    quality_score: record.quality_score,
    key_insight: record.key_insight,
    timestamp: iso(record.timestamp),
    score: roundScore(score),
  };
}

export function skillItem(record: AgentSkillRecord, score: number): SearchAgentSkillItem {
  return {
    id: record.id,
    agent_id: record.owner_id,
    app_id: record.app_id,
    project_id: record.project_id,
    name: record.name,
    description: record.description,
    content: record.content,
    confidence: record.confidence,
    maturity_score: record.maturity_score,
    source_case_ids: [...record.source_case_ids],
    score: roundScore(score),
  };
}

export function unprocessedItem(message: BufferedMessage): UnprocessedMessageDTO {
  return {
    id: message.message_id ?? message.id,
    app_id: message.app_id,
    project_id: message.project_id,
    session_id: message.session_id,
    sender_id: message.sender_id,
    sender_name: message.sender_name,
    role: message.role,
    content: structuredClone(message.content),
    timestamp: iso(message.timestamp),
    tool_calls: message.tool_calls ? structuredClone(message.tool_calls) : null,
    tool_call_id: message.tool_call_id,
  };
}
