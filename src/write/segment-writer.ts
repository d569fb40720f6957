/**
 * Closed segments → the records to commit: extraction (falling back to the rules, with a notice,
 * when another extractor fails), ids, vectors, profile updates chained across the segments of one
 * write, and the skills the new agent cases teach. Nothing here writes: the engine commits the
 * result in one batch.
 */
import { isMemoryError, wrapError } from '../errors.js';
import { profileId, type MemoryState } from '../memory-state.js';
import type { Embedder } from '../models/ports.js';
import { partitionKey, provenanceId, type AgentCaseRecord, type AgentSkillRecord, type BufferedMessage, type GraphItem, type MemoryRecord, type ProfileRecord } from '../records.js';
import { mergeSegmentGraph } from './graph-merge.js';
import type { Notice } from '../search/search.js';
import type { Extraction, Extractor, Segment } from './extraction.js';
import { embedRecords, recordsFromExtraction } from './ingest.js';
import { createRulesExtractor } from './rules-extractor.js';
import { learnSkills } from './skills.js';
import { clip } from './sentences.js';
import { extractText } from '../contract/requests.js';

const INTENT_CACHE = 20_000;

export interface SegmentWriterDeps {
  state: MemoryState;
  embedder: Embedder;
  extractor: Extractor;
  notify: (notice: Notice) => void;
  newId: (prefix: string) => string;
  now: () => number;
}

/** Returns the function that turns closed segments into records. */
export function createSegmentWriter(deps: SegmentWriterDeps): (segments: BufferedMessage[][], signal?: AbortSignal) => Promise<(MemoryRecord | GraphItem)[]> {
  const { state, embedder, extractor, notify, newId, now } = deps;
  const rules = extractor.id === 'rules' ? extractor : createRulesExtractor();

  /**
   * The rules are the last line: should they ever fail on a text, the segment is still kept, as a
   * plain episode of its transcript, and a notice says so; a message is never lost to a bug.
   */
  async function extractByRules(segment: Segment): Promise<Extraction> {
    try {
      return await rules.extract(segment);
    } catch (error) {
      notify({ code: 'extract.rules_failed', message: `The rules extractor failed on a segment (${error instanceof Error ? error.message : String(error)}); it was kept as a plain episode.` });
      return transcriptOnly(segment);
    }
  }

  async function extract(segment: Segment, signal?: AbortSignal): Promise<Extraction> {
    if (extractor === rules) return extractByRules(segment);
    try {
      return await extractor.extract(segment, signal ? { signal } : {});
    } catch (error) {
      if (signal?.aborted) throw wrapError(error, 'ABORTED');
      const code = isMemoryError(error) ? error.code : 'MODEL_FAILED';
      notify({ code: 'extract.fallback', message: `The ${extractor.id} extractor failed (${code}); the rules extractor was used for this segment.` });
      const fallback = await extractByRules(segment);
      return { ...fallback, extractor: 'rules-fallback' };
    }
  }

  /** Records for closed segments; profile updates and entity graphs chain so two segments of one add both count. */
  async function recordsForSegments(segments: BufferedMessage[][], signal?: AbortSignal): Promise<(MemoryRecord | GraphItem)[]> {
    const out: MemoryRecord[] = [];
    const pendingProfiles = new Map<string, ProfileRecord>();
    const pendingGraph = new Map<string, GraphItem>();
    for (const messages of segments) {
      const first = messages[0]!;
      const segment: Segment = { id: newId('mc'), app_id: first.app_id, project_id: first.project_id, session_id: first.session_id, messages };
      const extraction = await extract(segment, signal);
      const records = await recordsFromExtraction(segment, extraction, {
        embedder,
        now: now(),
        newId,
        profileId,
        profileOf: (scope) => pendingProfiles.get(profileId(scope)) ?? state.profile(scope),
        ...(signal ? { signal } : {}),
      });
      mergeSegmentGraph(segment, extraction, records, { now: now(), newId, graphOf: (scope) => state.graph(scope), pending: pendingGraph });
      for (const r of records) {
        if (r.kind === 'profile') pendingProfiles.set(r.id, r);
        else out.push(r);
      }
    }
    return [...out, ...pendingProfiles.values(), ...(await learnedSkills(out, signal)), ...pendingGraph.values()];
  }

  /**
   * Task intents embedded once: skills are re-learned from all of an agent's cases after every
   * write, and embedding them all again each time would grow with the agent's history. Keyed by
   * the text alone: this writer's embedder never changes, and a key built per intent per write
   * would copy every intent of the agent each time.
   */
  const intentVectors = new Map<string, Float32Array>();
  async function embedIntents(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: (Float32Array | undefined)[] = texts.map((t) => intentVectors.get(t));
    const missing = [...new Set(texts.filter((_, i) => out[i] === undefined))];
    if (missing.length) {
      const vectors = await embedder.embed(missing, signal ? { signal } : {});
      const fresh = new Map(missing.map((t, i) => [t, vectors[i]!]));
      texts.forEach((t, i) => (out[i] ??= fresh.get(t)));
      for (const [t, v] of fresh) intentVectors.set(t, v);
    }
    // Bounded: the oldest intents are embedded again if they are ever needed after this.
    for (const k of intentVectors.keys()) {
      if (intentVectors.size <= INTENT_CACHE) break;
      intentVectors.delete(k);
    }
    return out as Float32Array[];
  }

  /** The same vectors by case record, so a write looks up none of an agent's earlier intents by text. */
  const intentsByCase = new WeakMap<AgentCaseRecord, Float32Array>();

  /** Skills learned from the new cases together with each agent's earlier ones. */
  async function learnedSkills(records: MemoryRecord[], signal?: AbortSignal): Promise<AgentSkillRecord[]> {
    const fresh = records.filter((r): r is AgentCaseRecord => r.kind === 'agent_case');
    const byAgent = new Map<string, AgentCaseRecord[]>();
    for (const c of fresh) byAgent.set(partitionKey(c), [...(byAgent.get(partitionKey(c)) ?? []), c]);
    const skills: AgentSkillRecord[] = [];
    for (const cases of byAgent.values()) {
      const existingCases: AgentCaseRecord[] = [];
      const existingSkills: AgentSkillRecord[] = [];
      for (const r of state.partition(cases[0]!)?.records.values() ?? []) {
        if (r.kind === 'agent_case') existingCases.push(r);
        else if (r.kind === 'agent_skill') existingSkills.push(r);
      }
      skills.push(...(await learnSkills(
        cases,
        existingCases,
        existingSkills,
        now(),
        (texts) => embedIntents(texts, signal),
        intentsByCase,
      )));
    }
    await embedRecords(skills, { embedder, ...(signal ? { signal } : {}) });
    return skills;
  }

  return recordsForSegments;
}

/** A segment as one plain episode per participant who is a user (else per assistant), no facts. */
function transcriptOnly(segment: Segment): Extraction {
  const messages = segment.messages;
  const text = messages.map((m) => `${m.sender_name || m.sender_id}: ${extractText(m.content)}`).join('\n');
  const users = [...new Set(messages.filter((m) => m.role === 'user').map((m) => m.sender_id))];
  const owners = users.length ? users.map((id) => ['user', id] as const) : [...new Set(messages.map((m) => m.sender_id))].map((id) => ['agent', id] as const);
  return {
    episodes: owners.map(([owner_type, owner_id]) => ({
      owner_type,
      owner_id,
      subject: clip(text, 100),
      summary: `Conversation of ${messages.length} message${messages.length === 1 ? '' : 's'}.`,
      episode: text,
      timestamp: messages[0]!.timestamp,
      sender_ids: [...new Set(messages.map((m) => m.sender_id))],
      source_message_ids: messages.map(provenanceId),
      facts: [],
      foresight: [],
    })),
    profiles: [],
    cases: [],
    graph: { entities: [], relations: [] },
    extractor: 'transcript',
  };
}
