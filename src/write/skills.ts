/**
 * Skills from cases: when an agent has handled similar tasks (cosine of their task intents at
 * least 0.75, quality at least 0.2), the cases are gathered into one skill whose confidence is
 * their mean quality and whose maturity grows with their number. Skills the caller wrote by hand
 * (`upsertSkill`) are never touched; learned ones carry `source_case_ids`. (EverOS clusters skills
 * from cases of quality ≥ 0.2 the same way, with an LLM writing the skill text.)
 */
import { dot } from '../index/vector-index.js';
import type { AgentCaseRecord, AgentSkillRecord } from '../records.js';
import { clip } from './sentences.js';

export const SKILL_SIMILARITY = 0.75;
export const SKILL_MIN_QUALITY = 0.2;
export const SKILL_MIN_CASES = 2;
/** Cases at which a skill counts as fully mature. */
export const SKILL_MATURE_CASES = 5;
export const LEARNED_SKILL_PREFIX = 'sk_learned_';

/** Embeds task intents (the engine passes its embedder). */
export type EmbedTexts = (texts: string[]) => Promise<Float32Array[]>;

/**
 * Intent vectors already computed, by case record (a record is never changed in place: an edit is
 * a new object). Skills are re-learned from all of an agent's cases on every write; with this,
 * only the new cases are embedded or even looked up by their text.
 */
export interface IntentVectors {
  get(c: AgentCaseRecord): Float32Array | undefined;
  has(c: AgentCaseRecord): boolean;
  set(c: AgentCaseRecord, v: Float32Array): unknown;
}

/**
 * The skill records to write after `fresh` cases were added to an agent with `existing` cases and
 * skills. Similarity is measured on the task intents alone: how a task was solved varies more
 * than what was asked.
 */
export async function learnSkills(fresh: readonly AgentCaseRecord[], existingCases: readonly AgentCaseRecord[], existingSkills: readonly AgentSkillRecord[], now: number, embed: EmbedTexts, known?: IntentVectors): Promise<AgentSkillRecord[]> {
  const out = new Map<string, AgentSkillRecord>();
  const cases = new Map<string, AgentCaseRecord>();
  for (const c of existingCases) cases.set(c.id, c);
  for (const c of fresh) cases.set(c.id, c);
  const all = [...cases.values()];
  const vectorOf = known ?? new Map<AgentCaseRecord, Float32Array>();
  const missing = all.filter((c) => !vectorOf.has(c));
  if (missing.length) {
    const vectors = await embed(missing.map((c) => c.task_intent));
    missing.forEach((c, i) => vectorOf.set(c, vectors[i]!));
  }
  const intent = { get: (id: string) => { const c = cases.get(id); return c && vectorOf.get(c); } };
  const learned = existingSkills.filter((s) => s.id.startsWith(LEARNED_SKILL_PREFIX));
  const claimed = new Set<string>();
  for (const s of learned) for (const id of s.source_case_ids) claimed.add(id);

  // Plain loops: this runs on every write and walks all of an agent's cases, so it makes no
  // intermediate arrays per skill or per case.
  for (const c of fresh) {
    const v = intent.get(c.id)!;
    if (c.quality_score < SKILL_MIN_QUALITY || claimed.has(c.id)) continue;
    // Join the learned skill whose cases it resembles most, if any resembles it enough.
    let best: { skill: AgentSkillRecord; cos: number } | null = null;
    for (const skill of [...learned, ...out.values()]) {
      const cos = closest(v, skill.source_case_ids, intent);
      if (cos >= SKILL_SIMILARITY && (!best || cos > best.cos)) best = { skill, cos };
    }
    let members: AgentCaseRecord[];
    let base: AgentSkillRecord | null = null;
    if (best) {
      base = out.get(best.skill.id) ?? best.skill;
      members = [];
      for (const id of base.source_case_ids) {
        const m = cases.get(id);
        if (m) members.push(m);
      }
      members.push(c);
    } else {
      members = [c];
      for (const o of all) {
        if (o.id !== c.id && !claimed.has(o.id) && o.quality_score >= SKILL_MIN_QUALITY && dot(v, vectorOf.get(o)!) >= SKILL_SIMILARITY) members.push(o);
      }
      if (members.length < SKILL_MIN_CASES) continue;
    }
    for (const m of members) claimed.add(m.id);
    const skill = skillFrom(members, base, now);
    out.set(skill.id, skill);
  }
  return [...out.values()];
}

/** The highest cosine of `v` to the intents of the given cases (-1 with none known; NaN as Math.max gives it). */
function closest(v: Float32Array, ids: readonly string[], intent: { get(id: string): Float32Array | undefined }): number {
  let cos = -1;
  for (const id of ids) {
    const m = intent.get(id);
    if (!m) continue;
    const d = dot(v, m);
    if (Number.isNaN(d)) return NaN;
    if (d > cos) cos = d;
  }
  return cos;
}

function skillFrom(members: AgentCaseRecord[], base: AgentSkillRecord | null, now: number): AgentSkillRecord {
  const sorted = [...members].sort((a, b) => b.quality_score - a.quality_score || a.timestamp - b.timestamp);
  const best = sorted[0]!;
  const first = [...members].sort((a, b) => a.timestamp - b.timestamp)[0]!;
  const confidence = members.reduce((s, m) => s + m.quality_score, 0) / members.length;
  return {
    app_id: best.app_id,
    project_id: best.project_id,
    owner_type: 'agent',
    owner_id: best.owner_id,
    id: base?.id ?? `${LEARNED_SKILL_PREFIX}${first.id}`,
    kind: 'agent_skill',
    session_id: null,
    timestamp: Math.max(...members.map((m) => m.timestamp)),
    created_at: base?.created_at ?? now,
    updated_at: now,
    sender_ids: [...new Set(members.flatMap((m) => m.sender_ids))],
    source_message_ids: [],
    parent_type: null,
    parent_id: null,
    vector: null,
    vector_model: null,
    name: clip(best.task_intent, 80),
    description: `Learned from ${members.length} similar tasks, e.g. "${clip(best.task_intent, 160)}"`,
    content: sorted.slice(0, 5).map((m) => `- ${clip(m.approach, 300)}${m.key_insight ? ` (insight: ${clip(m.key_insight, 160)})` : ''}`).join('\n'),
    confidence: Math.round(confidence * 1000) / 1000,
    maturity_score: Math.min(1, members.length / SKILL_MATURE_CASES),
    source_case_ids: members.map((m) => m.id),
  };
}
