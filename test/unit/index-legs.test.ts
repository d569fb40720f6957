/**
 * The keyword and vector legs at the machine's limit must still answer exactly what the plain
 * versions answered: bounded selection against a full sort, the typed-array MaxSim scan against a
 * per-record reference, and the bounded BM25 component against Orama's own search.
 */
import fc from 'fast-check';
import { create, insertMultiple, removeMultiple, search } from '@orama/orama';
import { describe, expect, it } from 'vitest';
import { KEYWORD_POOL, KeywordIndex, ramaTokenizer } from '../../src/index/keyword-index.js';
import { topK } from '../../src/index/top-k.js';
import { dot, VectorIndex } from '../../src/index/vector-index.js';
import type { RecordKind } from '../../src/records.js';

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
          expect(scan.unitCos(id)).toBe(ref.unitCos.get(id));
        }
        const ranked = [...ref.unitCos.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
        expect(scan.topUnits(10, -Infinity)).toEqual(ranked.slice(0, 10).map(([id, score]) => ({ id, score })));
        expect(scan.unitsAtLeast(0.1)).toBe(ranked.filter(([, s]) => s >= 0.1).length);
        expect(scan.topChildScores(5)).toEqual([...ref.childCos.values()].sort((a, b) => b - a).slice(0, 5));
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

  it('keeps, per kind, exactly Orama’s own best hits with Orama’s scores', () => {
    const bounded = new KeywordIndex();
    bounded.add(docs);
    bounded.remove(['d1', 'd2', 'd100']);
    const plain = create({ schema: { kind: 'enum', text: 'string' } as const, components: { tokenizer: ramaTokenizer() as never } });
    // The same writes in the same order: Orama keeps its average length incrementally.
    insertMultiple(plain, docs as never, 1000);
    removeMultiple(plain, ['d1', 'd2', 'd100']);

    for (const query of ['tomato garden', 'marathon running in paris', 'guitar lesson birthday coffee']) {
      const all = (search(plain, { term: query, properties: ['text'], limit: docs.length, threshold: 1 } as never) as { hits: { id: string; score: number; document: { kind: RecordKind } }[] }).hits;
      const got = bounded.search(query, null);
      for (const kind of kinds) {
        const ofKind = all.filter((h) => h.document.kind === kind);
        expect(ofKind.length).toBeGreaterThan(KEYWORD_POOL);
        const expected = ofKind.slice(0, KEYWORD_POOL).map((h) => ({ id: h.id, kind, score: h.score }));
        expect(got.filter((h) => h.kind === kind)).toEqual(expected);
      }
      // Asked for one kind, the same hits of that kind.
      expect(bounded.search(query, ['foresight'], 50)).toEqual(got.filter((h) => h.kind === 'foresight').slice(0, 50));
    }
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
