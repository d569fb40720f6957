/**
 * One search over one owner's partition: plan by method, recall, fuse, compete, shape. Returns
 * the contract's `data` plus a trace (which legs found each item, rounds, notices) that hosts
 * can expose without changing the contract's body.
 */
import type { ResolvedSearch } from '../contract/requests.js';
import type { SearchData } from '../contract/types.js';
import type { Partition } from '../index/partition.js';
import { embedQueries, type Embedder, type Llm, type ModelCallOptions, type Reranker } from '../models/ports.js';
import { partitionKey, tieOrder, type AgentCaseRecord, type AgentSkillRecord, type BufferedMessage, type ProfileRecord } from '../records.js';
import { agenticRetrieve } from './agentic.js';
import { calibrationFor, childWireMap, episodeWireMap, FUSED_CALIBRATION, isShared, wireScore, type WireMap } from './scores.js';
import { searchAgentTrack } from './agent-track.js';
import { recallUnits, type Leg, type UnitCandidate } from './episode-track.js';
import { competeGranularity, FACTS_PER_EPISODE } from './granularity.js';
import { caseItem, episodeItem, factItem, profileItem, skillItem, unprocessedItem } from './shape.js';
import { ownMap } from '../own-keys.js';

/** `top_k: -1` means "everything relevant": up to this many episodes… */
export const ALL_EPISODES = 100;
/** …and this many cases and skills… */
export const ALL_AGENT_ITEMS = 10;
/** …with this automatic cosine floor. */
export const AUTO_RADIUS = 0.5;

export interface Notice {
  code: string;
  message: string;
}

export interface SearchTrace {
  method: ResolvedSearch['method'];
  rounds: number;
  notices: Notice[];
  /** Item id → the recall legs that found it. */
  legs: Record<string, Leg[]>;
  /** Item id → its raw cosine with the query (an episode's is its best fact's; nested facts have their own). */
  cosine: Record<string, number>;
  /**
   * Episode or fact id → its fused evidence before calibration (scores.ts): what ranked it, and
   * what `bench/calibrate.ts` fits the wire scores on.
   */
  evidence: Record<string, number>;
  /**
   * Shown episode or fact id → the wire map its score went through (scores.ts `WIRE_KNOTS`).
   * Hybrid and agentic without a reranker; what `bench/calibrate.ts` undoes to refit the maps.
   */
  wire_map: Record<string, WireMap>;
  /** How many units (episodes, knowledge entries) hybrid's scores were weighed among (scores.ts `WIRE_PRIOR`); 0 when it weighed none. */
  population: number;
  supplementary_queries: string[];
  radius: number | null;
  took_ms: number;
}

export interface SearchDeps extends ModelCallOptions {
  partition: Partition | undefined;
  profile: ProfileRecord | undefined;
  unprocessed: BufferedMessage[];
  embedder: Embedder;
  reranker: Reranker | null;
  llm: Llm | null;
  llmReranker: Reranker | null;
  /** The automatic radius for `top_k: -1` (default 0.5). */
  autoRadius?: number;
  /** Whether agentic search asks its expansion query (search/expand.ts). */
  agenticExpansion?: boolean;
  now: () => number;
}

/**
 * The chance hybrid would show for a candidate episode, or for one of its children: what
 * `min_score` floors in every method, so one threshold keeps the same items whichever method
 * ranks them (keyword and vector still show their raw measure).
 */
function episodeChance(candidate: UnitCandidate, ownerId: string): number {
  return wireScore(candidate.score, episodeWireMap(candidate.record, ownerId), candidate.population);
}
function childChance(candidate: UnitCandidate, child: UnitCandidate['children'][number], ownerId: string, shared: boolean): number {
  return wireScore(child.score, childWireMap(child.record, ownerId, shared), candidate.population);
}

function nestFacts(candidate: UnitCandidate, floor: number, raw: 'cos' | 'bm25', ownerId: string) {
  const shared = isShared(candidate.record, ownerId);
  return candidate.children
    .filter((c) => (floor === -Infinity || childChance(candidate, c, ownerId, shared) >= floor) && (raw !== 'bm25' || c.bm25 > 0))
    .sort((a, b) => b[raw] - a[raw])
    .slice(0, FACTS_PER_EPISODE)
    .map((c) => factItem(c.record, c[raw]));
}

/** Runs a validated search. */
export async function runSearch(request: ResolvedSearch, deps: SearchDeps): Promise<{ data: SearchData; trace: SearchTrace }> {
  const started = deps.now();
  const notices: Notice[] = [];
  const notice = (code: string, message: string) => notices.push({ code, message });
  // Keyed by record ids, which a client may choose ("__proto__" is a valid knowledge id).
  const legs = ownMap<Leg[]>();
  const cosine = ownMap<number>();
  const evidence = ownMap<number>();
  const wireMap = ownMap<WireMap>();
  let units = 0;
  const noteCosine = (c: UnitCandidate) => {
    cosine[c.record.id] = c.cos;
    evidence[c.record.id] = c.fused;
    for (const child of c.children) {
      cosine[child.record.id] = child.cos;
      evidence[child.record.id] = child.fused;
    }
  };
  const data: SearchData = { episodes: [], profiles: [], agent_cases: [], agent_skills: [], unprocessed_messages: [] };
  const everything = request.top_k === -1;
  const limit = everything ? ALL_EPISODES : request.top_k;
  const agentLimit = everything ? ALL_AGENT_ITEMS : request.top_k;
  // An explicit radius (even 0) wins over the automatic one.
  const radius = request.radius ?? (everything ? (deps.autoRadius ?? AUTO_RADIUS) : null);
  const floor = request.min_score ?? -Infinity;
  const calibration = calibrationFor(deps.embedder);
  const options: ModelCallOptions = deps.signal ? { signal: deps.signal } : {};
  let rounds = 1;
  let supplementary: string[] = [];

  /** Hybrid's answer: the granularity competition over fused candidates, floored by `min_score`. */
  const shapeCompeting = (candidates: readonly UnitCandidate[]) => {
    const ownerId = request.scope.owner_id;
    for (const w of competeGranularity(candidates, limit)) {
      // Scores go on the wire through their map (scores.ts). A floor filters what would be
      // returned without it: an episode under it goes, with its facts; an episode over it shows
      // only the facts that pass it.
      const episodeMap = episodeWireMap(w.candidate.record, ownerId);
      const shared = episodeMap === 'shared_episode';
      const population = w.candidate.population;
      units = Math.max(units, population);
      const score = wireScore(w.score, episodeMap, population);
      if (score < floor) continue;
      wireMap[w.candidate.record.id] = episodeMap;
      const facts = [];
      for (const f of w.facts) {
        const map = childWireMap(f.record, ownerId, shared);
        const item = factItem(f.record, wireScore(f.score, map, population));
        if (item.score < floor) continue;
        wireMap[f.record.id] = map;
        facts.push(item);
      }
      legs[w.candidate.record.id] = w.candidate.legs;
      noteCosine(w.candidate);
      data.episodes.push(episodeItem(w.candidate.record, score, facts));
    }
    data.episodes.sort((a, b) => b.score - a.score);
  };

  const partition = deps.partition;
  if (partition && partition.size > 0) {
    const [queryVector] = await embedQueries(deps.embedder, [request.query], options);
    const recall = (query: string, vector: Float32Array, legsWanted: readonly Leg[]) =>
      recallUnits(partition, query, vector, { filters: request.filters, pool: limit * 2, radius, legs: legsWanted, keywordEvidence: request.min_score !== null, calibration: FUSED_CALIBRATION });

    if (request.method === 'keyword' || request.method === 'vector') {
      const leg: Leg = request.method;
      const raw = leg === 'keyword' ? 'bm25' : 'cos';
      const ownerId = request.scope.owner_id;
      const hits = recall(request.query, queryVector!, [leg])
        .filter((c) => floor === -Infinity || episodeChance(c, ownerId) >= floor)
        .sort((a, b) => b[raw] - a[raw] || tieOrder(a.record, b.record))
        .slice(0, limit);
      for (const c of hits) {
        legs[c.record.id] = c.legs;
        noteCosine(c);
        data.episodes.push(episodeItem(c.record, c[raw], nestFacts(c, floor, raw, ownerId)));
      }
    } else if (request.method === 'hybrid') {
      shapeCompeting(recall(request.query, queryVector!, ['keyword', 'vector']));
    } else {
      const result = await agenticRetrieve(request.query, {
        ...options,
        cacheScope: partitionKey(request.scope),
        keep: limit,
        llm: deps.llm,
        reranker: deps.reranker,
        notice,
        recall: async (query) => {
          const vector = query === request.query ? queryVector! : (await embedQueries(deps.embedder, [query], options))[0]!;
          // recallUnits returns candidates in fused order already.
          return recall(query, vector, ['keyword', 'vector']);
        },
        ...(deps.agenticExpansion ? { termShare: (term: string) => partition.indexes().keyword.documentShare(term) } : {}),
      });
      rounds = result.rounds;
      supplementary = result.supplementaryQueries;
      // Every round keeps hybrid's calibrated scores by place (agentic.ts), so the answer is shaped as hybrid's is.
      shapeCompeting(result.candidates);
    }

    if (request.scope.owner_type === 'agent') {
      if (request.enable_llm_rerank && request.method === 'hybrid' && !deps.llm) {
        notice('llm_rerank.unavailable', 'enable_llm_rerank was set but no LLM is configured: cases and skills kept their fused order.');
      }
      const agent = await searchAgentTrack(partition, request.query, queryVector!, {
        ...options,
        cacheScope: partitionKey(request.scope),
        method: request.method,
        filters: request.filters,
        limit: agentLimit,
        radius,
        minScore: request.min_score,
        reranker: deps.reranker,
        llmReranker: deps.llmReranker,
        calibration,
        notice,
      }, request.enable_llm_rerank && request.method === 'hybrid');
      for (const h of [...agent.cases, ...agent.skills]) {
        legs[h.record.id] = h.legs;
        cosine[h.record.id] = h.cos;
      }
      data.agent_cases = agent.cases.map((h) => caseItem(h.record as AgentCaseRecord, h.score));
      data.agent_skills = agent.skills.map((h) => skillItem(h.record as AgentSkillRecord, h.score));
    }
  }

  if (request.include_profile && request.scope.owner_type === 'user' && deps.profile) data.profiles.push(profileItem(deps.profile));
  data.unprocessed_messages = deps.unprocessed.map(unprocessedItem);
  return {
    data,
    trace: { method: request.method, rounds, notices, legs, cosine, evidence, wire_map: wireMap, population: units, supplementary_queries: supplementary, radius, took_ms: deps.now() - started },
  };
}
