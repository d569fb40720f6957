/**
 * The extractor port: a closed conversation segment (a "memcell") in, memories out. The rules
 * extractor needs no model; an LLM extractor can replace it through the same interface. Ids,
 * vectors and partitions are assigned by the engine, not here.
 */
import type { ModelCallOptions } from '../models/ports.js';
import type { BufferedMessage } from '../records.js';
import type { EntityGraph } from './entity-graph.js';

export interface Segment {
  id: string;
  app_id: string;
  project_id: string;
  session_id: string;
  messages: BufferedMessage[];
}

export interface ExtractedStatement {
  /** The statement, attributed and with absolute dates ("Alice moved to Berlin on 2026-11-28"). */
  content: string;
  /** The words as spoken, which the statement was made from. */
  evidence: string;
  timestamp: number;
  sender_ids: string[];
  source_message_ids: string[];
}

export interface ExtractedForesight extends ExtractedStatement {
  due_at: number | null;
}

export interface ExtractedEpisode {
  owner_type: 'user' | 'agent';
  owner_id: string;
  subject: string;
  summary: string;
  episode: string;
  timestamp: number;
  sender_ids: string[];
  source_message_ids: string[];
  facts: ExtractedStatement[];
  foresight: ExtractedForesight[];
}

export interface ExtractedProfile {
  user_id: string;
  /** Keys to fold into the stored profile (lists are unioned, scalars replaced). */
  update: Record<string, unknown>;
  sender_ids: string[];
  source_message_ids: string[];
}

export interface ExtractedCase {
  agent_id: string;
  task_intent: string;
  approach: string;
  quality_score: number;
  key_insight: string | null;
  timestamp: number;
  sender_ids: string[];
  source_message_ids: string[];
}

export interface Extraction {
  episodes: ExtractedEpisode[];
  profiles: ExtractedProfile[];
  cases: ExtractedCase[];
  /** Who and what the segment names and how they are linked, merged into each owner's stored graph (optional for extractors written elsewhere). */
  graph?: EntityGraph;
  /** Which extractor produced it (`rules`, `llm:<model>`, or `rules-fallback` when an LLM failed). */
  extractor: string;
}

export interface Extractor {
  readonly id: string;
  extract(segment: Segment, options?: ModelCallOptions): Promise<Extraction>;
}
