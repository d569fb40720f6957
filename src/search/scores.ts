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
export function unitEvidence(own: number, childrenFused: readonly number[]): number {
  if (childrenFused.length === 0) return own;
  const best = [...childrenFused].sort((a, b) => b - a).slice(0, EVIDENCE_CHILDREN);
  return 0.5 * own + 0.5 * (best.reduce((a, b) => a + b, 0) / best.length);
}

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
 * on the fit half of LongMemEval-S, protocols (a), (b) and (c) (`--protocol abc --limit a=160,b=40,c=40`).
 */
export const FUSED_CALIBRATION: { unit: FusedCalibration; child: FusedCalibration } = {
  unit: { slope: 3.1207, bias: -5.1909 },
  child: { slope: 2.2064, bias: -3.6758 },
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
 * for the fit half (top_k 10; `--protocol abc --limit a=230,b=80,c=80`) and checked by
 * `bench:quality` on the other half (its reliability table). Monotone, so the order of the answer
 * does not change. Three maps, because the same competition score means a different chance for:
 * an episode that won its place itself (`episode`); the owner's own facts and passages (`fact`);
 * and another participant's words (`passage`: "Mel replied: …"). A reply seldom repeats the
 * question's words, yet when one is shown it usually sits in the conversation that holds the
 * answer: on the fit half, shown passages with competition scores 0.3–0.9 were in an answer
 * session 74–100 % of the time, where the owner's facts at those scores were 46–77 %. An episode
 * that came in through one of its facts carries that fact's score, so it goes through that
 * fact's map.
 */
export type WireMap = 'episode' | 'fact' | 'passage';

export const WIRE_KNOTS: Record<WireMap, Knots> = {
  episode: [[0.0099, 0.001], [0.0168, 0.0057], [0.0236, 0.009], [0.0372, 0.0548], [0.0685, 0.1037], [0.1317, 0.1879], [0.2433, 0.2712], [0.4273, 0.453], [0.6753, 0.7333], [0.8772, 0.8864], [0.9703, 0.9568], [0.9966, 0.999]],
  fact: [[0.0046, 0.001], [0.0084, 0.0102], [0.0113, 0.0143], [0.0146, 0.0259], [0.0225, 0.0439], [0.0315, 0.0739], [0.0397, 0.1045], [0.0468, 0.1055], [0.0512, 0.1081], [0.0605, 0.1172], [0.0765, 0.1696], [0.1003, 0.2051], [0.1402, 0.2516], [0.1803, 0.2768], [0.2023, 0.3475], [0.2604, 0.375], [0.3726, 0.4718], [0.5461, 0.5543], [0.6758, 0.6333], [0.7855, 0.7215], [0.8954, 0.8301], [0.9479, 0.8684], [0.9784, 0.9145], [0.9942, 0.9541], [0.9992, 0.9935]],
  passage: [[0.0063, 0.001], [0.0118, 0.0135], [0.0195, 0.018], [0.03, 0.0583], [0.058, 0.1386], [0.1594, 0.4231], [0.7425, 0.913]],
};

/** The map a nested fact's score goes through: `passage` for words no owner said, else `fact`. */
export function childWireMap(record: { sender_ids: readonly string[]; passage?: true }, ownerId: string): 'fact' | 'passage' {
  return record.passage && !record.sender_ids.includes(ownerId) ? 'passage' : 'fact';
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

/** Reciprocal-rank fusion of ranked id lists; returns ids best first with their fused score. */
export function rrf(lists: readonly (readonly string[])[], k = RRF_K): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/** Rounds a score for the wire (stable output, no float noise). */
export function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}
