/**
 * The LLM extractor: one constrained-JSON call per segment writes the episode narrative, atomic
 * facts with resolved dates, foresight, profile facts and agent cases. Whatever the model leaves
 * out or gets wrong in shape is taken from the rules (the engine falls back to the rules entirely,
 * with a notice, when the call fails).
 */
import { extractText } from '../contract/requests.js';
import { completeJson } from '../models/llm-json.js';
import type { Llm, ModelCallOptions } from '../models/ports.js';
import { isoDate } from './dates.js';
import type { ExtractedEpisode, Extraction, Extractor, Segment } from './extraction.js';
import { provenanceId } from '../records.js';
import { withoutFactRefs } from './entity-graph.js';
import { createRulesExtractor } from './rules-extractor.js';

const str = { type: 'string' } as const;
const strList = { type: 'array', items: str } as const;

const SCHEMA = {
  type: 'object',
  properties: {
    subject: str,
    summary: str,
    narrative: str,
    facts: { type: 'array', items: { type: 'object', properties: { speaker: str, content: str, evidence: str }, required: ['speaker', 'content', 'evidence'] } },
    foresight: { type: 'array', items: { type: 'object', properties: { speaker: str, content: str, evidence: str, due_date: str }, required: ['speaker', 'content', 'evidence'] } },
    profiles: { type: 'array', items: { type: 'object', properties: { speaker: str, explicit_facts: strList, implicit_traits: strList }, required: ['speaker', 'explicit_facts', 'implicit_traits'] } },
    cases: { type: 'array', items: { type: 'object', properties: { task_intent: str, approach: str, quality_score: { type: 'number' }, key_insight: str }, required: ['task_intent', 'approach', 'quality_score'] } },
  },
  required: ['subject', 'summary', 'narrative', 'facts', 'foresight', 'profiles', 'cases'],
} as const;

interface LlmFact {
  speaker: string;
  content: string;
  evidence: string;
  due_date?: string;
}

interface LlmOutput {
  subject: string;
  summary: string;
  narrative: string;
  facts: LlmFact[];
  foresight: LlmFact[];
  profiles: { speaker: string; explicit_facts: string[]; implicit_traits: string[] }[];
  cases: { task_intent: string; approach: string; quality_score: number; key_insight?: string }[];
}

const isStr = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter(isStr) : []);

function parseFacts(v: unknown): LlmFact[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((f) => {
    const o = f as Record<string, unknown>;
    if (!o || !isStr(o['speaker']) || !isStr(o['content'])) return [];
    return [{ speaker: o['speaker'], content: o['content'], evidence: isStr(o['evidence']) ? o['evidence'] : o['content'], ...(isStr(o['due_date']) ? { due_date: o['due_date'] } : {}) }];
  });
}

/** Validates the model's JSON; undefined when it is unusable. */
export function parseLlmExtraction(value: unknown): LlmOutput | undefined {
  const o = value as Record<string, unknown> | null;
  if (!o || typeof o !== 'object' || !isStr(o['narrative'])) return undefined;
  return {
    subject: isStr(o['subject']) ? o['subject'] : '',
    summary: isStr(o['summary']) ? o['summary'] : '',
    narrative: o['narrative'],
    facts: parseFacts(o['facts']),
    foresight: parseFacts(o['foresight']),
    profiles: Array.isArray(o['profiles'])
      ? o['profiles'].flatMap((p) => {
          const r = p as Record<string, unknown>;
          return r && isStr(r['speaker']) ? [{ speaker: r['speaker'], explicit_facts: strings(r['explicit_facts']), implicit_traits: strings(r['implicit_traits']) }] : [];
        })
      : [],
    cases: Array.isArray(o['cases'])
      ? o['cases'].flatMap((c) => {
          const r = c as Record<string, unknown>;
          if (!r || !isStr(r['task_intent']) || !isStr(r['approach'])) return [];
          const q = typeof r['quality_score'] === 'number' && Number.isFinite(r['quality_score']) ? Math.min(1, Math.max(0, r['quality_score'])) : 0.5;
          return [{ task_intent: r['task_intent'], approach: r['approach'], quality_score: q, ...(isStr(r['key_insight']) ? { key_insight: r['key_insight'] } : {}) }];
        })
      : [],
  };
}

function transcript(segment: Segment): string {
  return segment.messages
    .map((m) => `[${new Date(m.timestamp).toISOString()}] ${m.sender_name || m.sender_id} (${m.role}, id ${m.sender_id}): ${extractText(m.content)}`)
    .join('\n');
}

const SYSTEM = `You turn a conversation into long-term memory. Answer with JSON only, following the schema.
- narrative: a third-person account of the conversation.
- facts: atomic facts, one statement each, attributed by name, with every relative date ("yesterday", "next Friday") replaced by the absolute date; speaker is the sender id.
- foresight: plans, intentions and commitments about the future, with due_date (YYYY-MM-DD) when known.
- profiles: per user sender id, explicit facts they state about themselves and implicit traits the conversation shows.
- cases: for the assistant, each task the user asked for: task_intent, approach taken, quality_score 0..1 from the user's reaction, key_insight.`;

/** Creates an extractor backed by an LLM, with the rules filling any gaps. */
export function createLlmExtractor(llm: Llm): Extractor {
  const rules = createRulesExtractor();
  return {
    id: `llm:${llm.id}`,
    async extract(segment: Segment, options: ModelCallOptions = {}): Promise<Extraction> {
      const base = await rules.extract(segment);
      const out = await completeJson(llm, {
        ...options,
        temperature: 0,
        jsonSchema: SCHEMA,
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: `Conversation of ${isoDate(segment.messages[0]!.timestamp)}:\n${transcript(segment)}` },
        ],
      }, parseLlmExtraction);
      const bySender = new Map(segment.messages.map((m) => [m.sender_id, m]));
      const resolve = (speaker: string) => (bySender.has(speaker) ? speaker : [...bySender.values()].find((m) => (m.sender_name ?? '') === speaker)?.sender_id);
      const episodes: ExtractedEpisode[] = base.episodes.map((e) => {
        const mine = (f: LlmFact) => resolve(f.speaker) === e.owner_id;
        const provenance = (f: LlmFact) => {
          const source = segment.messages.find((m) => m.sender_id === e.owner_id && extractText(m.content).includes(f.evidence.slice(0, 40)));
          return { timestamp: source?.timestamp ?? e.timestamp, sender_ids: [e.owner_id], source_message_ids: source ? [provenanceId(source)] : e.source_message_ids };
        };
        const facts = out.facts.filter(mine).map((f) => ({ content: f.content, evidence: f.evidence, ...provenance(f) }));
        const foresight = out.foresight.filter(mine).map((f) => {
          const due = f.due_date ? Date.parse(f.due_date) : Number.NaN;
          return { content: f.content, evidence: f.evidence, due_at: Number.isNaN(due) ? null : due, ...provenance(f) };
        });
        return {
          ...e,
          subject: out.subject || e.subject,
          summary: out.summary || e.summary,
          episode: out.narrative,
          facts: facts.length ? facts : e.facts,
          foresight: foresight.length ? foresight : e.foresight,
        };
      });
      const profiles = base.profiles.map((p) => {
        const llmProfile = out.profiles.find((q) => resolve(q.speaker) === p.user_id);
        return llmProfile ? { ...p, update: { ...p.update, explicit_facts: llmProfile.explicit_facts, implicit_traits: llmProfile.implicit_traits } } : p;
      });
      const cases = base.cases.map((c, i) => {
        const llmCase = out.cases[i];
        return llmCase ? { ...c, task_intent: llmCase.task_intent, approach: llmCase.approach, quality_score: llmCase.quality_score, key_insight: llmCase.key_insight ?? null } : c;
      });
      // The graph is the rules' reading; where the model rewrote the facts, its links to them no longer hold.
      const rewrote = episodes.some((e, i) => e.facts !== base.episodes[i]!.facts || e.foresight !== base.episodes[i]!.foresight);
      return { episodes, profiles, cases, ...(base.graph ? { graph: rewrote ? withoutFactRefs(base.graph) : base.graph } : {}), extractor: `llm:${llm.id}` };
    },
  };
}
