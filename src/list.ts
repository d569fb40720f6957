/**
 * The paginated listing (`/memory/get`): one kind of an owner's memories, filtered, sorted by
 * time, a page at a time. Listings are not ranked, so every item's `score` is 0.
 */
import type { ResolvedGet } from './contract/requests.js';
import type { GetResponse, SearchAtomicFactItem } from './contract/types.js';
import type { Partition } from './index/partition.js';
import type { AtomicFactRecord, BufferedMessage, EpisodeRecord, ForesightRecord, KnowledgeRecord, MemoryRecord, ProfileRecord } from './records.js';
import { caseItem, episodeItem, factItem, profileItem, skillItem, unprocessedItem } from './search/shape.js';

export function listMemories(req: ResolvedGet, partition: Partition | undefined, profile: ProfileRecord | undefined, unprocessed: BufferedMessage[]): GetResponse['data'] {
  const data: GetResponse['data'] = {
    episodes: [], profiles: [], agent_cases: [], agent_skills: [], unprocessed_messages: unprocessed.map(unprocessedItem), total_count: 0, count: 0,
  };
  const kind = req.memory_type;
  let matching: MemoryRecord[] = [];
  if (kind === 'profile') matching = profile ? [profile] : [];
  // Verbatim passages serve search only: the owner's facts are the claims the extractor made.
  else if (partition) matching = [...partition.records.values()].filter((r) => r.kind === kind && !(r.kind === 'atomic_fact' && r.passage));
  if (req.filters) matching = matching.filter((r) => req.filters!.test(r));
  const direction = req.sort_order === 'asc' ? 1 : -1;
  matching.sort((a, b) => direction * (a[req.sort_by] - b[req.sort_by]) || (a.id < b.id ? -1 : 1));
  const page = matching.slice((req.page - 1) * req.page_size, req.page * req.page_size);
  data.total_count = matching.length;
  data.count = page.length;

  switch (kind) {
    case 'episode':
      for (const r of page as EpisodeRecord[]) {
        const facts = ((partition?.childrenOf(r.id) ?? []) as (AtomicFactRecord | ForesightRecord)[]).filter((f) => !(f.kind === 'atomic_fact' && f.passage));
        data.episodes.push(episodeItem(r, 0, facts.sort((a, b) => a.timestamp - b.timestamp).map((f) => factItem(f, 0))));
      }
      break;
    case 'knowledge':
      for (const r of page as KnowledgeRecord[]) data.episodes.push(episodeItem(r, 0));
      break;
    case 'atomic_fact':
    case 'foresight': {
      // Facts come nested under their parent episode, in page order.
      const groups = new Map<string, SearchAtomicFactItem[]>();
      for (const f of page as (AtomicFactRecord | ForesightRecord)[]) {
        const key = f.parent_id ?? '';
        groups.set(key, [...(groups.get(key) ?? []), factItem(f, 0)]);
      }
      for (const [parentId, facts] of groups) {
        const parent = partition?.records.get(parentId);
        if (parent?.kind === 'episode') data.episodes.push(episodeItem(parent, 0, facts));
      }
      break;
    }
    case 'profile':
      for (const r of page as ProfileRecord[]) data.profiles.push(profileItem(r));
      break;
    case 'agent_case':
      for (const r of page) if (r.kind === 'agent_case') data.agent_cases.push(caseItem(r, 0));
      break;
    case 'agent_skill':
      for (const r of page) if (r.kind === 'agent_skill') data.agent_skills.push(skillItem(r, 0));
      break;
  }
  return data;
}
