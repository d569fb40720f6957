/**
 * The narrative track's shortcuts must give exactly what the plain computations they replace
 * give: the one-pass best three behind an episode's evidence (scores.ts), the same-text fold, and a
 * partition's child rows (read by number instead of by id) through writes between searches.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Partition } from '../../src/index/partition.js';
import { tieOrder, type MemoryRecord } from '../../src/records.js';
import { withoutTwins, type ScoredChild } from '../../src/search/episode-track.js';
import { unitEvidence } from '../../src/search/scores.js';

describe('unitEvidence', () => {
  /** The rule written plainly: a copy sorted best first, its best three summed. */
  const reference = (own: number, fused: number[]) => {
    const best = [...fused].sort((a, b) => b - a).slice(0, 3);
    return best.length === 0 ? own : 0.5 * own + 0.5 * (best.reduce((a, b) => a + b, 0) / best.length);
  };

  // Few distinct values, signed zeros and extremes: ties and their order are what could differ.
  const value = fc.oneof(fc.constantFrom(0, -0, 1, -1, 0.5, Infinity, -Infinity, 1e-300), fc.double({ noNaN: true, min: -5, max: 5 }));

  it('its one pass equals a sorted copy\'s best three bit for bit, over numbers and over scored children', () => {
    fc.assert(
      fc.property(value, fc.array(value, { maxLength: 9 }), (own, fused) => {
        expect(Object.is(unitEvidence(own, fused), reference(own, fused))).toBe(true);
        expect(Object.is(unitEvidence(own, fused.map((f) => ({ fused: f })), (c) => c.fused), reference(own, fused))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('counts a NaN as no evidence rather than guess its place in an order', () => {
    expect(unitEvidence(1, [NaN, 2])).toBe(1.5);
    expect(unitEvidence(1, [NaN])).toBe(1);
  });
});

describe('withoutTwins', () => {
  /** The rule written plainly: each child against the first other child of the same text. */
  const reference = (children: ScoredChild[]) =>
    children.filter((c, i) => {
      const twin = children.findIndex((o, j) => j !== i && o.record.content === c.record.content);
      if (twin < 0) return true;
      if (c.record.kind !== children[twin]!.record.kind) return c.record.kind === 'foresight';
      return i < twin;
    });

  it('keeps what the plain rule keeps, in order, for any mix of repeated texts and kinds', () => {
    const child = fc.tuple(fc.constantFrom('atomic_fact', 'foresight'), fc.constantFrom('a', 'b', 'c', 'd', 'e'));
    fc.assert(
      fc.property(fc.array(child, { maxLength: 12 }), (spec) => {
        const children = spec.map(([kind, content], i) => ({ record: { id: `c${i}`, kind, content }, cos: 0, bm25: 0, fused: 0, score: 0 }) as unknown as ScoredChild);
        const kept = withoutTwins(children);
        expect(kept.map((c) => c.record.id)).toEqual(reference(children).map((c) => c.record.id));
        expect(kept).not.toBe(children);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('Partition.childRows', () => {
  const base = { app_id: 'app', project_id: 'p', owner_type: 'user', owner_id: 'u', session_id: 's', timestamp: 0, created_at: 0, updated_at: 0, sender_ids: ['u'], source_message_ids: [], parent_type: null, parent_id: null };
  const vector = (seed: number) => Float32Array.from({ length: 4 }, (_, i) => Math.sin(seed * 7 + i));
  const episode = (id: string) => ({ ...base, id, kind: 'episode', subject: id, summary: 'tea', episode: 'tea and cake', vector: vector(id.length) }) as unknown as MemoryRecord;
  const fact = (id: string, parent: string, kind: 'atomic_fact' | 'foresight' = 'atomic_fact', withVector = true) =>
    ({ ...base, id, kind, parent_type: 'episode', parent_id: parent, content: `${id} likes tea`, evidence: '', due_at: null, vector: withVector ? vector(id.charCodeAt(1)) : null }) as unknown as MemoryRecord;

  /** What the rows stand for: `childrenOf`'s facts and plans in tie order, each with its vector row and keyword document. */
  const expectRows = (partition: Partition, unit: string) => {
    const { keyword, vector: vectors } = partition.indexes();
    const rows = partition.childRows(unit);
    const children = partition.childrenOf(unit).filter((c) => c.kind === 'atomic_fact' || c.kind === 'foresight').sort(tieOrder);
    expect(rows.records).toEqual(children);
    expect(Array.from(rows.slots)).toEqual(children.map((c) => vectors.slotOf(c.id) ?? -1));
    expect(Array.from(rows.keywordIds)).toEqual(children.map((c) => keyword.internalOf(c.id)));
  };

  it('match the partition through puts, replacements and removals between searches', () => {
    const partition = new Partition();
    for (const r of [episode('e1'), episode('e2'), fact('f1', 'e1'), fact('f2', 'e1', 'foresight'), fact('f3', 'e2'), fact('f4', 'e1', 'atomic_fact', false)]) partition.put(r);
    for (const unit of ['e1', 'e2', 'none']) expectRows(partition, unit);
    // Facts before plans, then by text (all were said at once, in one session).
    expect(partition.childRows('e1').records.map((r) => r.id)).toEqual(['f1', 'f4', 'f2']);
    expect(partition.childRows('e1').slots[1]).toBe(-1); // no vector, no row
    // A removal moves the last vector row into the hole; a replacement moves a fact to its new episode.
    partition.remove('f1');
    partition.put(fact('f3', 'e1'));
    partition.put(fact('f5', 'e2'));
    for (const unit of ['e1', 'e2']) expectRows(partition, unit);
    expect(partition.childRows('e1').records.map((r) => r.id)).toEqual(['f3', 'f4', 'f2']);
    expect(partition.childRows('e2').records.map((r) => r.id)).toEqual(['f5']);
    partition.remove('e2');
    partition.put(fact('f1', 'e1'));
    expectRows(partition, 'e1');
  });

  it('come in the same order however the children were written or loaded', () => {
    const children = [fact('f1', 'e1'), fact('f2', 'e1', 'foresight'), fact('f3', 'e1'), { ...fact('f4', 'e1'), timestamp: 5 } as MemoryRecord];
    const orders = [children, [...children].reverse(), [children[2]!, children[0]!, children[3]!, children[1]!]];
    for (const order of orders) {
      const partition = new Partition();
      for (const r of [episode('e1'), ...order]) partition.put(r);
      // The newest first, then facts before plans, then by text.
      expect(partition.childRows('e1').records.map((r) => r.id)).toEqual(['f4', 'f1', 'f3', 'f2']);
    }
  });
});
