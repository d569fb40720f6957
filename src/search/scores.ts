/**
 * Score arithmetic shared by the search methods. Raw measures (BM25, cosine) stay raw where the
 * contract says so. Episodes and facts get one 0..1 relevance from the fusion of both legs
 * (`legScale`, `fuseLegs`, `relevance`), so `min_score` means the same thing for every method;
 * the agent track (cases, skills) still maps cosine and BM25 with `calibrated`, the logistic
 * fusion the reference server uses.
 */

export const RRF_K = 60;

/**
 * Orama scores a term once per document, divided by the document's length, which puts its BM25
 * roughly 2.5–5× below Okapi BM25 with raw term counts; this factor brings it back to the scale
 * EverOS's formulas were written for.
 */
export const ORAMA_TO_OKAPI = 4;

/** The logistic that maps a cosine and a (raw Orama) BM25 to a 0..1 relevance. */
export interface Calibration {
  cos: number;
  bm25: number;
  bias: number;
}

/** EverOS's logistic fusion `sigmoid(6.2747·cos + 0.09395·bm25 − 4.8581)`, on Orama's BM25 scale. */
export const EVEROS_CALIBRATION: Calibration = { cos: 6.2747, bm25: 0.09395 * ORAMA_TO_OKAPI, bias: -4.8581 };

/**
 * Agent-track constants per embedding model. A cosine means different things to different
 * models, so the reference server's constants (fitted for its own model) make poor probabilities:
 * for the bundled model its blend gave a top answer 0.02. These keep EverOS's blend and rescale it
 * (Platt scaling, fitted on LongMemEval-S episodes by an earlier version of `bench/calibrate.ts`);
 * cases and skills have no benchmark of their own to fit them on.
 */
const FITTED: Record<string, Calibration> = {
  'engram-static-en@1.0.0': { cos: 15.8534, bm25: 0.9495, bias: -11.131 },
};

/** The calibration for an embedder: its own, a fitted one for a known model, else EverOS's. */
export function calibrationFor(embedder: { id: string; calibration?: Calibration | undefined }): Calibration {
  return embedder.calibration ?? FITTED[embedder.id] ?? EVEROS_CALIBRATION;
}

/** The calibrated 0..1 relevance of a cosine and a raw BM25. */
export function calibrated(cos: number, bm25: number, c: Calibration = EVEROS_CALIBRATION): number {
  return 1 / (1 + Math.exp(-(c.cos * cos + c.bm25 * bm25 + c.bias)));
}

/** Agent-case fusion: mostly meaning, some exact wording (BM25 squashed into 0..1). */
export function caseScore(cos: number, bm25: number): number {
  const s = ORAMA_TO_OKAPI * bm25;
  return 0.7 * Math.max(0, cos) + 0.3 * (s / (s + 5));
}

/**
 * How many of a leg's best raw scores describe its distribution for one query. Fixed, not tied to
 * `top_k`, so an item's fused score does not change with the number of results asked for.
 */
export const FUSION_POOL = 100;

/** One leg's raw scores standardised per query: z-scores over its best `FUSION_POOL`, and the value an item the leg did not find gets. */
export interface LegScale {
  z(raw: number | undefined): number;
}

/**
 * Standardises one leg's raw scores (BM25 or cosine) for one query. Raw scales differ between
 * legs, queries and embedding models; z-scores over each leg's own best candidates put both legs
 * on one scale without a fitted weight. The population is the leg's best `FUSION_POOL` scores,
 * padded with `missing` (BM25's 0: no match) up to `population` items, so a term found in one
 * document of many stands out instead of being compared with itself alone. An item the leg did
 * not score gets the value of `missing`, or the pool's lowest when `missing` is undefined (a
 * cosine under the radius); it never ranks above an item the leg found.
 */
export function legScale(raw: Iterable<number>, population: number, missing?: number): LegScale {
  const top = [...raw].sort((a, b) => b - a).slice(0, FUSION_POOL);
  while (missing !== undefined && top.length < Math.min(FUSION_POOL, population)) top.push(missing);
  if (top.length === 0) return { z: () => 0 };
  const mean = top.reduce((a, b) => a + b, 0) / top.length;
  const sd = Math.sqrt(top.reduce((a, b) => a + (b - mean) ** 2, 0) / top.length);
  const z = (x: number) => (sd > 1e-9 ? (x - mean) / sd : 0);
  const floor = z(missing ?? top[top.length - 1]!);
  return { z: (x) => (x === undefined ? floor : Math.max(floor, z(x))) };
}

/**
 * The hybrid fusion: the mean of the two legs' z-scores. Equal weights are a choice, not a fit:
 * a weight fitted on one corpus (LongMemEval favours the vector leg, human–human conversations
 * the keyword leg) does not carry over to another.
 */
export function fuseLegs(zKeyword: number, zVector: number): number {
  return 0.5 * zKeyword + 0.5 * zVector;
}

/** How many of an episode's best children speak for it (`unitEvidence`). */
export const EVIDENCE_CHILDREN = 3;

/**
 * An episode's evidence: the mean of its own fused value (BM25 over its whole text, its cosine)
 * and the mean of its best `EVIDENCE_CHILDREN` children's (facts or passages, standardised among
 * children). The episode's text says what the conversation was about; its best sentences say
 * whether it holds the thing asked. One sentence that matches can be chance (a word or a topic in
 * common); a conversation about the thing asked has several, so the best three speak for it more
 * reliably than the best one alone. Chosen on LongMemEval's fit half among the best 1 to 5
 * (R_all@10 under the paper's protocol: best one .961, two .965, three .970, four .970, five
 * .965; with both sides, roles swapped: .975, .988, 1.000, 1.000, 1.000; and with a vector leg
 * made weak on purpose (`bench:quality --embedder-dims 16`): .939, .948, .943, .948, .948).
 * A mean needs no fitted weight.
 */
export function unitEvidence(own: number, childrenFused: readonly number[]): number;
export function unitEvidence<T>(own: number, children: readonly T[], fusedOf: (child: T) => number): number;
export function unitEvidence(own: number, children: readonly unknown[], fusedOf: (child: unknown) => number = (x) => x as number): number {
  // The best values by one pass (no copy or sort per candidate: this runs for every episode a
  // search weighs), kept best first and summed in that order, as a sorted copy would be. A NaN
  // (the legs' z-scores never make one) has no place in an order and is not evidence.
  let n = 0;
  for (const child of children) {
    const x = fusedOf(child);
    if (Number.isNaN(x) || (n === EVIDENCE_CHILDREN && !(x > best[n - 1]!))) continue;
    let at = n < EVIDENCE_CHILDREN ? n++ : n - 1;
    for (; at > 0 && best[at - 1]! < x; at--) best[at] = best[at - 1]!;
    best[at] = x;
  }
  if (n === 0) return own;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += best[i]!;
  return 0.5 * own + 0.5 * (sum / n);
}

/** `unitEvidence`'s best values, reused by every call (one search runs at a time per thread). */
const best = new Float64Array(EVIDENCE_CHILDREN);

/** Maps a fused value to a 0..1 relevance: `sigmoid(slope·fused + bias)`. */
export interface FusedCalibration {
  slope: number;
  bias: number;
}

/**
 * How fused values become chances, one map per kind of item: an episode's fused value is
 * standardised among episodes and a fact's among facts, so the same value does not mean the same
 * chance for both. Calibrated per kind, a fact's score and an episode's both estimate the chance
 * that the item's session holds the answer, which is what the granularity competition needs to
 * weigh one against the other. A fused value is a standardised quantity, so the constants serve
 * any embedding model. Fitted by `bench/calibrate.ts` (Platt scaling over the top 50 candidates)
 * on the fit half of LongMemEval-S, all 230 of its questions in each of protocols (a), (b) and (c)
 * (`--protocol abc`).
 */
export const FUSED_CALIBRATION: { unit: FusedCalibration; child: FusedCalibration } = {
  unit: { slope: 3.1711, bias: -4.7789 },
  child: { slope: 2.2164, bias: -3.2626 },
};

/** The chance that an item holds the answer, given its fused value. */
export function relevance(fused: number, c: FusedCalibration): number {
  return 1 / (1 + Math.exp(-(c.slope * fused + c.bias)));
}

/** [competition score, chance on the wire] pairs of a monotone piecewise-linear map. */
export type Knots = readonly (readonly [number, number])[];

/**
 * The last step before the wire, per map: an isotonic correction of the competition's scores.
 * What is shown is selected (the top of the list, a fact that won its place), and selection
 * shifts the chance a score stands for; these knots map the score of a shown item to the rate at
 * which such items held the answer, fitted by `bench/calibrate.ts` on what hybrid search returns
 * for the fit half (top_k 10; `--protocol abc`) and checked by
 * `bench:quality` on the other half (its reliability table). Monotone, so the order of the answer
 * does not change within a map. The same competition score means a different chance for an
 * episode, for the owner's own facts and passages, and for another
 * participant's words ("Mel replied: …"): a reply seldom repeats the question's words, yet when
 * one is shown it usually sits in the conversation that holds the answer (fit half: shown passages
 * with competition scores 0.3–0.9 were in an answer session 56–89 % of the time, the owner's facts
 * at those scores 34–74 %; `bench/calibrate.ts --protocol abc`, step 2). And episodes and facts of
 * a conversation where only the owner spoke (notes, a user's turns alone) are standardised among
 * other populations than those of a conversation with others, whose episodes are longer and whose
 * facts compete with passages; so each gets its own map (`shared_…` when someone else spoke).
 */
export type WireMap = 'episode' | 'fact' | 'shared_episode' | 'shared_fact' | 'passage';

export const WIRE_KNOTS: Record<WireMap, Knots> = {
  episode: [[0.0101, 0.001], [0.0209, 0.0036], [0.04, 0.034], [0.0894, 0.0793], [0.2292, 0.1705], [0.4529, 0.2941], [0.7845, 0.729], [0.961, 0.9051], [0.9973, 0.9926]],
  fact: [[0.0099, 0.0092], [0.0148, 0.0136], [0.0202, 0.0173], [0.0249, 0.03], [0.0337, 0.0386], [0.0474, 0.0539], [0.0589, 0.0661], [0.0799, 0.0776], [0.1207, 0.1564], [0.1654, 0.1977], [0.2171, 0.2153], [0.2825, 0.3047], [0.3606, 0.3529], [0.4621, 0.4172], [0.6076, 0.5109], [0.7497, 0.6183], [0.8438, 0.7396], [0.9539, 0.8456], [0.9978, 0.9894]],
  shared_episode: [[0.0038, 0.001], [0.0065, 0.002], [0.0098, 0.0096], [0.0132, 0.0141], [0.0153, 0.0155], [0.0199, 0.0184], [0.0296, 0.0417], [0.0394, 0.0703], [0.054, 0.0851], [0.0906, 0.1136], [0.1422, 0.1894], [0.2073, 0.281], [0.4255, 0.4677], [0.7282, 0.6441], [0.8703, 0.8416], [0.9499, 0.9252], [0.9923, 0.9968]],
  shared_fact: [[0.0055, 0.0079], [0.0085, 0.0103], [0.0099, 0.0122], [0.0128, 0.0219], [0.0162, 0.0246], [0.0182, 0.0336], [0.022, 0.0505], [0.0257, 0.0579], [0.0344, 0.086], [0.0497, 0.1168], [0.0631, 0.1381], [0.0791, 0.1545], [0.1007, 0.1958], [0.1168, 0.225], [0.157, 0.2686], [0.2162, 0.2869], [0.2805, 0.3852], [0.3672, 0.4059], [0.4675, 0.5267], [0.6524, 0.6102], [0.7967, 0.6476], [0.86, 0.8211], [0.9417, 0.8867], [0.9873, 0.9189], [0.9966, 0.9524], [0.9996, 0.999]],
  passage: [[0.0039, 0.0056], [0.0059, 0.0101], [0.0072, 0.0156], [0.0115, 0.0174], [0.0167, 0.0254], [0.0187, 0.0264], [0.0228, 0.0578], [0.0289, 0.0857], [0.0345, 0.0917], [0.0459, 0.0967], [0.0638, 0.1088], [0.0795, 0.17], [0.1053, 0.2759], [0.1665, 0.3874], [0.2924, 0.4907], [0.5241, 0.7381], [0.7853, 0.8651], [0.9234, 0.9429], [0.9879, 0.999]],
};

/**
 * How the number of rival conversations moves a shown score's chance. The knots are fitted on
 * LongMemEval's haystacks of about fifty sessions, half of them chats about unrelated things; a
 * memory of eight long conversations about one life is another prior. There, through the knots
 * alone, episodes scored 0.1–0.2 held the answer 55 % of the time (fit half; `bench/calibrate.ts
 * --protocol abc --haystack all` prints it): with fewer rivals, each one is likelier to be the
 * one, and the per-query standardisation (`legScale`) does not say how many there were. So the
 * wire adds, per map, `slope · ln(reference / population)` to a shown item's log-odds after its
 * knots, where `population` is the number of units the query weighed
 * (`UnitCandidate.population`). `reference` is the population the knots were fitted at (the
 * geometric mean of the fit data's), so LongMemEval's own maps barely move; a population outside
 * the range the slopes were fitted on (`least`–`most`) counts as the nearest end of it: a prior
 * is not extrapolated. Within one query every item of a map moves alike, so no order within a map
 * changes. Fitted by `bench/calibrate.ts --haystack all` (step 3) on the fit half of the three
 * haystacks `bench:quality` has (full, personal, days) in all three protocols: about 1 for
 * episodes, as a prior of one in N would have it, and near 0 for facts and passages, which are
 * weighed among hundreds of children however many conversations there are.
 *
 * A memory just begun weighs fewer conversations than any of those haystacks (a new user's first
 * search weighs one), and there the prior of `least` is far too timid: in memories of one to five
 * conversations (`bench:quality --haystack few`, fit half), shown episodes where only the owner
 * spoke that it scored under 0.1 (mean 0.009) held the answer 20 % of the time, and the owner's
 * facts it scored 0.3–0.4 held it 78 % (`bench/calibrate.ts --haystack few`, step 3, "with the
 * prior of the least population"). The standardisation among so few says little (one
 * conversation is its own mean), so a shown item's chance there is mostly how few its rivals
 * are, for facts too, whose rivals are then a few conversations' sentences. Below `least`, each
 * map adds `few · ln(least / population)`, its own slope fitted on the fit half of that haystack
 * (`bench/calibrate.ts --haystack few` or `all`, step 3) with the prior of `least` in the offset:
 * it is 0 at `least`, so the shift does not jump there. A slope, not one constant shift per map:
 * inside the fit half it leaves the lower held-out log loss (`bench/calibrate-cv.ts --prior` on
 * that haystack's samples, where the range's lever is one constant).
 *
 * A memory of months holds more conversations than `most`, and there a shift by the number of
 * rivals is not what is off: most of the added rivals are about other things and barely compete,
 * while the competition's scores, standardised among many more candidates, spread wider than the
 * knots were fitted on (low ones understate, high ones overstate). Above `most`, each map's
 * log-odds (with the prior of `most`) are multiplied by `1 + spread · L` and moved by `slope · L`,
 * `L = ln(population / most)` (`aboveLever`), a population over `largest` counting as `largest`.
 * Fitted by `bench/calibrate.ts --haystack above` (step 3, "above the range") on the fit half of
 * memories of about 200 and about 500 conversations at once, a logistic regression with the held
 * prior in the offset: one spread and slope per map for both did as well as one for each
 * (`bench/calibrate-cv.ts --prior` on their dump). `1 + spread · L` stays positive up to
 * `largest`, so no order within a map changes.
 */
export interface WirePrior {
  reference: number;
  least: number;
  most: number;
  slope: Record<WireMap, number>;
  few: Record<WireMap, number>;
  /** The largest population `above` was fitted at: a larger one counts as this. */
  largest: number;
  /** Per map, above `most`: how a shown item's log-odds spread and move per unit of ln(population / most) (`priorOdds`). */
  above: Record<WireMap, { spread: number; slope: number }>;
}

export const WIRE_PRIOR: WirePrior = {
  reference: 47,
  least: 6,
  most: 58,
  slope: { episode: 1.0852, fact: 0.0625, shared_episode: 0.948, shared_fact: 0.0585, passage: 0.0498 },
  few: { episode: 5.5095, fact: 2.7991, shared_episode: 4.0983, shared_fact: 1.8263, passage: 1.2282 },
  largest: 506,
  above: {
    episode: { spread: -0.2042, slope: -0.3658 },
    fact: { spread: -0.2404, slope: -0.2999 },
    shared_episode: { spread: -0.1794, slope: -0.4611 },
    shared_fact: { spread: -0.1984, slope: -0.33 },
    passage: { spread: -0.1963, slope: -0.2645 },
  },
};

/** The log-odds a shown item of `map` gains among `population` units (`WIRE_PRIOR`). */
export function priorShift(map: WireMap, population: number, prior: WirePrior = WIRE_PRIOR): number {
  const n = Math.min(prior.most, Math.max(prior.least, population));
  const few = population < prior.least ? prior.few[map] * Math.log(prior.least / Math.max(1, population)) : 0;
  return prior.slope[map] * Math.log(prior.reference / n) + few;
}

/** Adds `shift` to a chance's log-odds (0 and 1 stay where they are). */
export function shiftOdds(p: number, shift: number): number {
  return scaleOdds(p, 1, shift);
}

/** Multiplies a chance's log-odds by `scale`, then adds `shift` (0 and 1 stay where they are). */
function scaleOdds(p: number, scale: number, shift: number): number {
  if ((scale === 1 && shift === 0) || p <= 0 || p >= 1) return p;
  return 1 / (1 + Math.exp(-(scale * Math.log(p / (1 - p)) + shift)));
}

/** ln(population / most), the population clamped to `largest`, above the prior's range; else 0. */
export function aboveLever(population: number, prior: WirePrior = WIRE_PRIOR): number {
  return population > prior.most ? Math.log(Math.min(population, prior.largest) / prior.most) : 0;
}

/** Above `most`, the scale and shift `priorOdds` puts on the held log-odds (`1 + spread·L`, `slope·L`); else 1 and 0. */
function aboveTerms(map: WireMap, population: number, prior: WirePrior): { scale: number; shift: number } {
  const lever = aboveLever(population, prior);
  if (lever === 0) return { scale: 1, shift: 0 };
  const { spread, slope } = prior.above[map];
  return { scale: 1 + spread * lever, shift: slope * lever };
}

/**
 * A shown item's chance through its knots (`p`) with the prior of its population: `priorShift`
 * added to its log-odds and, above `most`, those log-odds times `1 + spread·L`, plus `slope·L`
 * (`L`: `aboveLever`). Monotone in `p` for one map and population.
 */
export function priorOdds(p: number, map: WireMap, population: number, prior: WirePrior = WIRE_PRIOR): number {
  const { scale, shift } = aboveTerms(map, population, prior);
  return scaleOdds(shiftOdds(p, priorShift(map, population, prior)), scale, shift);
}

/** Undoes `priorOdds`: the chance through the knots that a wire score came from. */
export function undoPriorOdds(score: number, map: WireMap, population: number, prior: WirePrior = WIRE_PRIOR): number {
  const { scale, shift } = aboveTerms(map, population, prior);
  return shiftOdds(scaleOdds(score, 1 / scale, -shift / scale), -priorShift(map, population, prior));
}

/** The score a shown item goes on the wire with: its competition score through its map's knots, then the prior of its population. */
export function wireScore(score: number, map: WireMap, population: number): number {
  return priorOdds(throughKnots(score, WIRE_KNOTS[map]), map, population);
}

/** Whether someone besides the owner spoke in an episode's conversation. */
export function isShared(episode: { sender_ids: readonly string[] }, ownerId: string): boolean {
  return episode.sender_ids.some((id) => id !== ownerId);
}

/** The map an episode's score goes through: `shared_episode` when someone besides the owner spoke. */
export function episodeWireMap(episode: { sender_ids: readonly string[] }, ownerId: string): 'episode' | 'shared_episode' {
  return isShared(episode, ownerId) ? 'shared_episode' : 'episode';
}

/** The map a nested fact's score goes through: `passage` for words the owner did not say. */
export function childWireMap(record: { sender_ids: readonly string[]; passage?: true }, ownerId: string, shared: boolean): 'fact' | 'shared_fact' | 'passage' {
  if (record.passage && !record.sender_ids.includes(ownerId)) return 'passage';
  return shared ? 'shared_fact' : 'fact';
}

/** The monotone piecewise-linear map through `knots`, anchored at (0, 0) and (1, 1). */
export function throughKnots(x: number, knots: Knots): number {
  if (knots.length === 0) return x;
  let x0 = 0;
  let y0 = 0;
  for (const [x1, y1] of [...knots, [1, 1] as const]) {
    if (x <= x1) return x1 > x0 ? y0 + ((x - x0) / (x1 - x0)) * (y1 - y0) : y1;
    x0 = x1;
    y0 = y1;
  }
  return 1;
}

/**
 * Reciprocal-rank fusion of ranked id lists; returns ids best first with their fused score. Ties
 * (a swap of neighbours ties exactly) keep the order of first sight, the first list's first: the
 * answer follows the lists, never the ids, which are random per store.
 */
export function rrf(lists: readonly (readonly string[])[], k = RRF_K): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/** Rounds a score for the wire (stable output, no float noise). */
export function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}
