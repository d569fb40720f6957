/**
 * Fusions of Engram's own keyword and vector episode lists computed outside the engine, the way
 * an outside evaluation compares them with hybrid: each leg asked for its top 100 episodes
 * through the public API, then the two lists merged by a one-line rule. If one of these beat
 * hybrid, the engine's fusion (scores.ts, episode-track.ts) would be the weak part, not its legs.
 *
 * - `rrf`: reciprocal rank fusion, `Σ weight / (k + rank)` with k 60 (ranks from 1);
 * - `zFuse`: each list's raw scores (BM25, cosine) standardised over that list, an item a list
 *   did not return taking that list's lowest score, then weighted and summed.
 */

/** One leg's answer: ids with their raw scores, best first. */
export type Ranked = readonly { id: string; score: number }[];

/**
 * Ids by fused value, best first. A map keeps its keys in the order they were first set (the
 * first list's, then the next's) and the sort is stable, so ties keep that order and a run
 * repeats exactly.
 */
const order = (fused: Map<string, number>) => [...fused].sort((a, b) => b[1] - a[1]).map(([id]) => id);

/** Reciprocal rank fusion of ranked lists, one weight per list. */
export function rrf(lists: readonly Ranked[], weights: readonly number[] = lists.map(() => 1), k = 60): string[] {
  const fused = new Map<string, number>();
  lists.forEach((list, j) => list.forEach(({ id }, i) => fused.set(id, (fused.get(id) ?? 0) + weights[j]! / (k + i + 1))));
  return order(fused);
}

/** Weighted sum of per-list z-scores; an id a list lacks stands at that list's lowest score. */
export function zFuse(lists: readonly Ranked[], weights: readonly number[]): string[] {
  const ids = [...new Set(lists.flatMap((l) => l.map((x) => x.id)))];
  const fused = new Map(ids.map((id) => [id, 0]));
  lists.forEach((list, j) => {
    if (list.length === 0) return;
    const scores = list.map((x) => x.score);
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length);
    const of = new Map(list.map((x) => [x.id, x.score]));
    const lowest = Math.min(...scores);
    for (const id of ids) fused.set(id, fused.get(id)! + weights[j]! * (sd > 1e-12 ? ((of.get(id) ?? lowest) - mean) / sd : 0));
  });
  return order(fused);
}

/** The rows `bench:quality` prints next to hybrid: the outside comparisons. */
export const OUTSIDE_FUSIONS: Record<string, (keyword: Ranked, vector: Ranked) => string[]> = {
  'rrf k+v': (k, v) => rrf([k, v]),
  'rrf .7k+.3v': (k, v) => rrf([k, v], [0.7, 0.3]),
  'z k+v': (k, v) => zFuse([k, v], [0.5, 0.5]),
  'z .7k+.3v': (k, v) => zFuse([k, v], [0.7, 0.3]),
};

/** An episode as a leg returns it: its id, raw score and stored session. */
export type LegEpisode = { id: string; score: number; session_id?: string | null };

/**
 * Each outside fusion's order of the legs' episodes, each read as its stored session (repeats
 * kept: the caller folds them). `leg` asks the memory for one leg's top 100 episodes, the most a
 * request may ask for.
 */
export async function outsideFusionSessions(leg: (method: 'keyword' | 'vector') => Promise<readonly LegEpisode[]>): Promise<Record<string, string[]>> {
  const sessionOf = new Map<string, string>();
  const ranked = async (method: 'keyword' | 'vector'): Promise<Ranked> => {
    const episodes = await leg(method);
    for (const e of episodes) sessionOf.set(e.id, e.session_id!);
    return episodes.map((e) => ({ id: e.id, score: e.score }));
  };
  const [keyword, vector] = [await ranked('keyword'), await ranked('vector')];
  return Object.fromEntries(Object.entries(OUTSIDE_FUSIONS).map(([name, fuse]) => [name, fuse(keyword, vector).map((id) => sessionOf.get(id)!)]));
}
