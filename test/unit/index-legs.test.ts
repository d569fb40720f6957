/**
 * The keyword and vector legs at the machine's limit must still answer exactly what the plain
 * versions answered: bounded selection against a full sort, the typed-array MaxSim scan against a
 * per-record reference, and the bounded BM25 component against Orama's own search (with each
 * kind's idf counted among its family of kinds, from Orama's own statistics: `familyBm25`).
 */
import fc from 'fast-check';
import { count, create, insertMultiple, load, removeMultiple, save, search } from '@orama/orama';
import { describe, expect, it } from 'vitest';
import { createMemory } from '../../src/engine.js';
import { ALL_GROUPS, BoundedBm25, DEFAULT_RELEVANCE, type IndexData } from '../../src/index/bounded-bm25.js';
import { KEYWORD_POOL, KeywordIndex, ramaTokenizer } from '../../src/index/keyword-index.js';
import { sortByScore, topK, topKPerGroup, topValues } from '../../src/index/top-k.js';
import { tokenize, wordsWithTerms } from '../../src/index/tokenizer.js';
import { dot, VectorIndex } from '../../src/index/vector-index.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { RecordKind } from '../../src/records.js';
import { DAY, MONDAY_9AM, remember, said } from '../support/conversations.js';

/** A small deterministic generator, so failures replay. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function unit(random: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) n += (v[i] = random() - 0.5) ** 2;
  for (let i = 0; i < dim; i++) v[i]! /= Math.sqrt(n);
  return v;
}

describe('topK', () => {
  it('equals a full sort by (score desc, key asc), floored, for any scores', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(NaN)), { maxLength: 60 }), fc.integer({ min: 0, max: 70 }), fc.integer({ min: -3, max: 3 }), (raw, k, floor) => {
        const scores = Float64Array.from(raw);
        const key = (i: number) => `k${String(i).padStart(3, '0')}`;
        const expected = raw
          .map((s, i) => i)
          .filter((i) => scores[i]! >= floor)
          .sort((a, b) => scores[b]! - scores[a]! || (key(a) < key(b) ? -1 : 1))
          .slice(0, k);
        expect(topK(scores, scores.length, k, floor, key)).toEqual(expected);
      }),
    );
  });
});

describe('topValues', () => {
  it('equals a full sort of the values best first, NaN left out, for any scores', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noDefaultInfinity: false }), fc.constant(NaN)), { maxLength: 300 }), fc.integer({ min: 0, max: 120 }), (raw, k) => {
        const scores = Float64Array.from(raw);
        const expected = raw.filter((s) => !Number.isNaN(s)).sort((a, b) => b - a).slice(0, k);
        // 0 and -0 are one score, and either may come first among ties: compared as numbers.
        const asNumbers = (xs: number[]) => xs.map((x) => x + 0);
        expect(asNumbers(topValues(scores, scores.length, k))).toEqual(asNumbers(expected));
      }),
    );
  });
});

describe('sortByScore', () => {
  it('orders ids as a full sort by (score desc, id asc) does, ties included', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 200 }), fc.integer({ min: 0, max: 1000 }), (raw, seed) => {
        const scores = Float64Array.from(raw);
        // Distinct ids in a shuffled order.
        const ids = Int32Array.from(raw.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 211) - ((b * 7919 + seed) % 211) || a - b));
        const expected = Array.from(ids).sort((a, b) => scores[b]! - scores[a]! || a - b);
        sortByScore(ids, scores);
        expect(Array.from(ids)).toEqual(expected);
      }),
    );
  });
});

describe('topKPerGroup', () => {
  it('keeps the best k of each group, merged in (score desc, id asc) order, for any scores', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 0, max: 3 })), { maxLength: 80 }), fc.integer({ min: 0, max: 12 }), (raw, k) => {
        // Ids are shuffled positions 0..n-1 in reverse, so input order is not id order.
        const n = raw.length;
        const ids = Int32Array.from(raw, (_, i) => n - 1 - i);
        const scores = new Float64Array(n);
        const groups = new Uint8Array(n);
        raw.forEach(([score, group], i) => {
          scores[n - 1 - i] = score;
          groups[n - 1 - i] = group;
        });
        const order = (a: number, b: number) => scores[b]! - scores[a]! || a - b;
        const expected = [0, 1, 2, 3].flatMap((g) => [...ids].filter((id) => groups[id] === g).sort(order).slice(0, k)).sort(order);
        expect([...topKPerGroup(ids, n, scores, groups, k)]).toEqual(expected);
      }),
    );
  });
});

interface Rec {
  id: string;
  kind: RecordKind;
  parent: string | null;
  vector: Float32Array;
}

/** The per-record MaxSim the narrative track computed before the typed-array scan. */
function referenceMaxSim(records: Map<string, Rec>, query: Float32Array, visible: (id: string) => boolean) {
  const childCos = new Map<string, number>();
  const unitCos = new Map<string, number>();
  for (const r of records.values()) {
    if (r.kind !== 'atomic_fact' || !r.parent || !visible(r.id)) continue;
    if (!records.has(r.parent) || !visible(r.parent)) continue;
    const s = dot(query, r.vector);
    childCos.set(r.id, s);
    if (s > (unitCos.get(r.parent) ?? -Infinity)) unitCos.set(r.parent, s);
  }
  for (const r of records.values()) {
    if (r.kind !== 'episode') continue;
    const hasVisibleChild = [...records.values()].some((c) => c.parent === r.id && visible(c.id));
    if (hasVisibleChild || !visible(r.id)) continue;
    unitCos.set(r.id, dot(query, r.vector));
  }
  return { childCos, unitCos };
}

describe('VectorIndex.maxSim', () => {
  for (const filtered of [false, true]) {
    it(`equals the per-record scan after adds, replacements and removals${filtered ? ', with a filter' : ''}`, () => {
      const random = rng(filtered ? 7 : 3);
      const dim = 13; // not a multiple of four: the unrolled loop's tail is exercised
      const records = new Map<string, Rec>();
      const index = new VectorIndex();
      const put = (r: Rec) => {
        records.set(r.id, r);
        index.add(r.id, r.kind, r.vector, r.kind === 'atomic_fact' ? r.parent : r.id);
      };
      for (let e = 0; e < 40; e++) {
        put({ id: `e${e}`, kind: 'episode', parent: null, vector: unit(random, dim) });
        const facts = Math.floor(random() * 4);
        for (let f = 0; f < facts; f++) put({ id: `e${e}f${f}`, kind: 'atomic_fact', parent: `e${e}`, vector: unit(random, dim) });
      }
      put({ id: 'orphan', kind: 'atomic_fact', parent: null, vector: unit(random, dim) });
      put({ id: 'case', kind: 'agent_case', parent: null, vector: unit(random, dim) });
      // Removals move the last row into the hole; a removed episode leaves its facts orphaned.
      for (const id of ['e3', 'e10f0', 'e20', 'e39']) {
        records.delete(id);
        index.remove(id);
      }
      put({ id: 'e5', kind: 'episode', parent: null, vector: unit(random, dim) }); // replaced in place

      const hidden = new Set(filtered ? ['e7', 'e8f0', 'e9f1', 'e12f0', 'e12f1', 'e12f2'] : []);
      const visible = (id: string) => records.has(id) && !hidden.has(id);
      for (let q = 0; q < 5; q++) {
        const query = unit(random, dim);
        const ref = referenceMaxSim(records, query, visible);
        const scan = index.maxSim(query, {
          units: ['episode', 'knowledge'],
          children: ['atomic_fact', 'foresight'],
          filtered,
          visible,
          hasVisibleChildren: (id) => [...records.values()].some((c) => c.parent === id && visible(c.id)),
        });
        expect(scan.childCount).toBe(ref.childCos.size);
        expect(scan.unitCount).toBe(ref.unitCos.size);
        for (const id of records.keys()) {
          expect(scan.childCos(id)).toBe(ref.childCos.get(id));
          expect(scan.childCosAt(index.slotOf(id) ?? -1)).toBe(ref.childCos.get(id));
          expect(scan.unitCos(id)).toBe(ref.unitCos.get(id));
        }
        const ranked = [...ref.unitCos.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
        expect(scan.topUnits(10, -Infinity)).toEqual(ranked.slice(0, 10).map(([id, score]) => ({ id, score })));
        expect(scan.unitsAtLeast(0.1)).toBe(ranked.filter(([, s]) => s >= 0.1).length);
        expect(scan.topChildScores(5)).toEqual([...ref.childCos.values()].sort((a, b) => b - a).slice(0, 5));
        // The bounded scan of a keyword-only search: the same cosines for the units it is given
        // (and their children), none for the others.
        const picked = ['e0', 'e5', 'e7', 'e8', 'e9', 'e10', 'e12', 'e20', `e${20 + q}`, 'case', 'nobody'];
        // Each unit's children as vector rows (−1: none), as a partition's `childRows` gives them.
        const childSlots = (id: string) => [...records.values()].filter((c) => c.parent === id && c.kind === 'atomic_fact').map((c) => index.slotOf(c.id) ?? -1);
        const bounded = index.maxSimOf(query, picked, {
          units: ['episode', 'knowledge'],
          children: ['atomic_fact', 'foresight'],
          filtered,
          visible,
          hasVisibleChildren: (id) => [...records.values()].some((c) => c.parent === id && visible(c.id)),
          childSlots,
        });
        for (const id of records.keys()) {
          const parent = records.get(id)!.parent;
          expect(bounded.unitCos(id)).toBe(picked.includes(id) ? ref.unitCos.get(id) : undefined);
          expect(bounded.childCos(id)).toBe(parent !== null && picked.includes(parent) ? ref.childCos.get(id) : undefined);
          expect(bounded.childCosAt(index.slotOf(id) ?? -1)).toBe(bounded.childCos(id));
        }
      }
    });
  }

  it('search ranks one kind best first by exact cosine', () => {
    const random = rng(11);
    const index = new VectorIndex();
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 30; i++) {
      const v = unit(random, 8);
      vectors.set(`c${i}`, v);
      index.add(`c${i}`, i % 3 === 0 ? 'agent_skill' : 'agent_case', v);
    }
    const query = unit(random, 8);
    const expected = [...vectors.entries()]
      .filter((_, i) => i % 3 !== 0)
      .map(([id, v]) => ({ id, score: dot(query, v) }))
      .sort((a, b) => b.score - a.score);
    expect(index.search(query, ['agent_case'])).toEqual(expected);
    expect(index.get('c4')).toEqual(vectors.get('c4'));
  });
});

type Plain = ReturnType<typeof create>;

/** keyword-index.ts `FAMILY`: where a kind's idf is counted (0: the whole index). */
const familyOf = (kind: RecordKind) => ({ episode: 1, knowledge: 1, atomic_fact: 2, foresight: 2 } as Partial<Record<RecordKind, number>>)[kind] ?? 0;

/**
 * What the keyword index must answer, from a plain Orama holding the same documents: Orama's BM25
 * over Orama's own term frequencies, lengths and average length, in Orama's order of operations,
 * with a term's idf counted among the documents of the hit's family (the whole index for family 0);
 * the best `limit` of each kind, merged by score, then internal id.
 */
function familyBm25(plain: Plain, query: string, limit: number): { id: string; kind: RecordKind; score: number }[] {
  const index = plain.data.index as unknown as IndexData;
  const docs = (plain.data.docs as unknown as { docs: Record<number, { id: string; kind: RecordKind } | undefined> }).docs;
  const frequencies = index.frequencies['text']!;
  const internals = Object.keys(docs).map(Number).filter((i) => docs[i]);
  const docsIn = [count(plain), 0, 0];
  for (const i of internals) if (familyOf(docs[i]!.kind)) docsIn[familyOf(docs[i]!.kind)]! += 1;
  const { k: k1, b, d } = DEFAULT_RELEVANCE;
  const avg = index.avgFieldLength['text']!;
  const scores = new Map<number, number>();
  for (const token of ramaTokenizer().tokenize(query)) {
    const holders = internals.filter((i) => frequencies[i]?.[token] !== undefined);
    const held = [index.tokenOccurrences['text']![token] ?? 0, 0, 0];
    for (const i of holders) if (familyOf(docs[i]!.kind)) held[familyOf(docs[i]!.kind)]! += 1;
    const idf = held.map((n, f) => Math.log(1 + (docsIn[f]! - n + 0.5) / (n + 0.5)));
    for (const i of holders) {
      const tf = frequencies[i]![token]!;
      const s = (idf[familyOf(docs[i]!.kind)]! * (d + tf * (k1 + 1))) / (tf + k1 * (1 - b + (b * index.fieldLengths['text']![i]!) / avg));
      scores.set(i, scores.has(i) ? scores.get(i)! + s : s);
    }
  }
  const ranked = [...scores].sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  const kept = new Map<RecordKind, number>();
  return ranked
    .filter(([i]) => {
      const kind = docs[i]!.kind;
      kept.set(kind, (kept.get(kind) ?? 0) + 1);
      return kept.get(kind)! <= limit;
    })
    .map(([i, score]) => ({ id: docs[i]!.id, kind: docs[i]!.kind, score }));
}

describe('KeywordIndex (bounded BM25 component)', () => {
  const words = ['garden', 'tomato', 'running', 'marathon', 'paris', 'flight', 'doctor', 'birthday', 'guitar', 'lesson', 'coffee', 'recipe'];
  const random = rng(5);
  const sentence = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]!).join(' ');
  const kinds: RecordKind[] = ['episode', 'atomic_fact', 'foresight'];
  // More matching documents of each kind than one search keeps, so the bound is exercised.
  const docs = Array.from({ length: 9 * KEYWORD_POOL }, (_, i) => {
    const kind = kinds[i % 3]!;
    return { id: `d${i}`, kind, text: sentence(kind === 'episode' ? 30 : 6) };
  });

  it('keeps, per kind, exactly the best hits by Orama’s BM25 with each family’s idf', () => {
    const bounded = new KeywordIndex();
    bounded.add(docs);
    bounded.remove(['d1', 'd2', 'd100']);
    const plain = create({ schema: { kind: 'enum', text: 'string' } as const, components: { tokenizer: ramaTokenizer() as never } });
    // The same writes in the same order: Orama keeps its average length incrementally.
    insertMultiple(plain, docs as never, 1000);
    removeMultiple(plain, ['d1', 'd2', 'd100']);

    for (const query of ['tomato garden', 'marathon running in paris', 'guitar lesson birthday coffee']) {
      const all = (search(plain, { term: query, properties: ['text'], limit: docs.length, threshold: 1 } as never) as { hits: { document: { kind: RecordKind } }[] }).hits;
      const got = bounded.search(query, null);
      for (const kind of kinds) expect(all.filter((h) => h.document.kind === kind).length).toBeGreaterThan(KEYWORD_POOL);
      expect(got).toEqual(familyBm25(plain, query, KEYWORD_POOL));
      // Asked for one kind, the same hits of that kind.
      expect(bounded.search(query, ['foresight'], 50)).toEqual(got.filter((h) => h.kind === 'foresight').slice(0, 50));
    }
  });

  it('keeps its postings and family counts right through searches, adds, removals and re-adds', () => {
    const bounded = new KeywordIndex();
    const plain = create({ schema: { kind: 'enum', text: 'string' } as const, components: { tokenizer: ramaTokenizer() as never } });
    const queries = ['tomato garden', 'marathon running in paris', 'doctor birthday'];
    const check = () => {
      for (const query of queries) expect(bounded.search(query, null, 50)).toEqual(familyBm25(plain, query, 50));
    };
    const write = (add: typeof docs, remove: string[]) => {
      bounded.add(add);
      insertMultiple(plain, add as never, 1000);
      bounded.remove(remove);
      removeMultiple(plain, remove);
    };
    write(docs.slice(0, 300), []);
    check();
    // Ids never indexed, and one named twice, take nothing from a family's count.
    write([], ['never indexed', 'd0', 'd0']);
    check();
    write(docs.slice(300, 600), ['d3', 'd4', 'd299', 'd300']);
    check();
    // Re-added under the same ids (Orama gives them their old internal ids), one with new text.
    write([docs[3]!, { ...docs[4]!, text: 'tomato tomato paris' }], ['d10', 'd11']);
    check();
  });

  it('hits answers search by internal id, and keptScore gives the BM25 of kept hits only, until the next hits', () => {
    const index = new KeywordIndex();
    index.add(docs.slice(0, 600));
    index.remove(['d5', 'd6']);
    index.add([{ ...docs[5]!, text: 'tomato tomato paris' }]);
    let previous: string[] = [];
    for (const query of ['tomato garden', 'marathon running in paris', 'no such words']) {
      const hits = index.hits(query, 50);
      const expected = index.search(query, null, 50);
      expect(Array.from(hits.ids, (internal, i) => ({ id: index.idOf(internal), kind: index.kindOf(internal), score: hits.scores[i] }))).toEqual(expected);
      const kept = new Map(expected.map((h) => [h.id, h.score]));
      for (const d of docs.slice(0, 600)) expect(index.keptScore(index.internalOf(d.id))).toBe(kept.get(d.id));
      // Kept by the previous search only: nothing now.
      for (const id of previous) if (!kept.has(id)) expect(index.keptScore(index.internalOf(id))).toBeUndefined();
      previous = [...kept.keys()];
    }
    expect(index.internalOf('never indexed')).toBe(-1);
    expect(index.keptScore(-1)).toBeUndefined();
  });

  it('rebuilds its postings from Orama’s own tree after a load', () => {
    const make = () => {
      const bm25 = new BoundedBm25(() => KEYWORD_POOL, () => new Uint8Array(docs.length + 2));
      const db = create({ schema: { kind: 'enum', text: 'string' } as const, components: { tokenizer: ramaTokenizer() as never, index: bm25.component as never } });
      return { bm25, db };
    };
    const first = make();
    insertMultiple(first.db, docs.slice(0, 500) as never, 1000);
    removeMultiple(first.db, ['d7', 'd8']);
    const second = make();
    load(second.db, JSON.parse(JSON.stringify(save(first.db))));
    const query = (m: ReturnType<typeof make>, q: string) =>
      m.bm25.search(m.db.data.index as unknown as IndexData, {
        tokens: ramaTokenizer().tokenize(q), properties: ['text'], relevance: DEFAULT_RELEVANCE, docsCount: count(m.db), limit: 1000, groups: new Uint8Array(docs.length + 2), groupMask: ALL_GROUPS,
      });
    for (const q of ['tomato garden', 'guitar lesson']) {
      const expected = query(first, q);
      expect(expected.ids.length).toBeGreaterThan(100);
      expect(query(second, q)).toEqual(expected);
    }
    expect(second.bm25.postingsCount).toBe(first.bm25.postingsCount);
  });

  it('weighs a term for an episode by its rarity among episodes, and for a fact among facts', () => {
    // Two people talking: the owner's name is in every episode and in the owner's facts, not in
    // the other speaker's passages.
    const index = new KeywordIndex();
    const episodes = Array.from({ length: 20 }, (_, i) => ({ id: `e${i}`, kind: 'episode' as const, text: `Maren talked with Teodor. ${i < 2 ? 'pottery class' : 'garden tomato'} coffee` }));
    const facts = Array.from({ length: 200 }, (_, i) => ({ id: `f${i}`, kind: 'atomic_fact' as const, text: i % 2 ? 'Maren watered the garden' : 'Teodor replied: the garden looks great' }));
    index.add([...episodes, ...facts]);
    const episodeScore = (query: string, id: string) => index.search(query, ['episode']).find((h) => h.id === id)!.score;
    // In all 20 episodes: next to no weight there (idf ln(1 + 0.5 / 20.5)), against a word in 2 of them.
    expect(episodeScore('maren', 'e5')).toBeLessThan(0.02 * episodeScore('pottery', 'e0'));
    // Among facts its weight is its rarity there, whatever the episodes hold: the same with episodes
    // of the same lengths that never name her.
    const fact = index.search('maren', ['atomic_fact'])[0]!;
    const again = new KeywordIndex();
    again.add([...episodes.map((e) => ({ ...e, text: e.text.replace('Maren', 'Mirna') })), ...facts]);
    expect(fact.score).toBe(again.search('maren', ['atomic_fact']).find((h) => h.id === fact.id)!.score);
    // So the name leaves the episodes' order to the words that tell them apart.
    expect(index.search('Maren pottery', ['episode']).slice(0, 2).map((h) => h.id).sort()).toEqual(['e0', 'e1']);
  });

  it('sees documents added after a search (its term cache is dropped on every write)', () => {
    const index = new KeywordIndex();
    index.add([{ id: 'a', kind: 'episode', text: 'tomato garden' }]);
    expect(index.search('tomato', null).map((h) => h.id)).toEqual(['a']);
    index.add([{ id: 'b', kind: 'atomic_fact', text: 'tomato' }]);
    expect(index.search('tomato', null).map((h) => h.id).sort()).toEqual(['a', 'b']);
    index.remove(['a']);
    expect(index.search('tomato', null).map((h) => h.id)).toEqual(['b']);
  });
});

describe('keyword-only search', () => {
  it('answers what it answered with the vector pass: the same episodes, BM25 scores, nested facts and cosines', async () => {
    const memory = await createMemory({ embedder: await createDefaultEmbedder() });
    const sessions = [
      ['I planted tomatoes in the garden on Saturday.', 'The tomato seedlings came from my neighbour Ana.', 'I water the garden every morning before work.'],
      ['I am training for the Paris marathon in April.', 'My running coach wants three long runs a week.', 'I bought new running shoes for the marathon.'],
      ['My guitar lesson moved to Thursday evening.', 'I practise guitar for twenty minutes a day.'],
      ['I booked a flight to Paris for my birthday.', 'The hotel in Paris is near the river.'],
    ];
    for (const [i, turns] of sessions.entries()) await remember(memory, `s${i}`, turns.map((t, j) => said('kim', t, MONDAY_9AM + i * DAY + j * 60_000)));
    for (const query of ['tomato garden', 'Paris marathon running', 'guitar lesson Thursday', 'birthday flight to Paris']) {
      const skipped = await memory.searchWithTrace({ user_id: 'kim', query, method: 'keyword', top_k: 10 });
      // A floor makes the keyword leg compute the fused relevance, and with it every cosine.
      const withVectorPass = await memory.searchWithTrace({ user_id: 'kim', query, method: 'keyword', top_k: 10, min_score: 0 });
      expect(skipped.response.data.episodes.length).toBeGreaterThan(0);
      expect(skipped.response.data).toEqual(withVectorPass.response.data);
      expect(skipped.trace.cosine).toEqual(withVectorPass.trace.cosine);
      expect(skipped.trace.legs).toEqual(withVectorPass.trace.legs);
    }
    await memory.close();
  });
});

describe('words with their terms', () => {
  it('gives each word as written and, all together and in order, exactly the terms tokenize gives', () => {
    expect(wordsWithTerms("Priya's long-distance runs, 東京 café")).toEqual([
      { word: "Priya's", terms: ['priya'] },
      { word: 'long', terms: ['long'] },
      { word: 'distance', terms: ['distanc'] },
      { word: 'runs', terms: ['run'] },
      { word: '東京', terms: ['東京'] },
      { word: 'café', terms: ['café'] },
    ]);
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
      expect(wordsWithTerms(text).flatMap((w) => w.terms)).toEqual(tokenize(text));
    }), { numRuns: 300 });
  });
});
