/**
 * The entity graph the rules extractor derives from a segment: entities with a canonical name, a
 * type and aliases; relations that name the fact they come from, when they became true and when a
 * later statement in the same segment superseded them.
 */
import { describe, expect, it } from 'vitest';
import type { BufferedMessage } from '../../src/records.js';
import { entityId, withoutFactRefs } from '../../src/write/entity-graph.js';
import type { Segment } from '../../src/write/extraction.js';
import { createRulesExtractor } from '../../src/write/rules-extractor.js';

const MONDAY = Date.UTC(2026, 10, 30, 10);

function segment(texts: string[]): Segment {
  return {
    id: 'mc', app_id: 'default', project_id: 'default', session_id: 's',
    messages: texts.map((content, i) => ({
      id: `m${i + 1}`, app_id: 'default', project_id: 'default', session_id: 's', seq: i, role: 'user', content,
      timestamp: MONDAY + i * 60_000, sender_id: 'maya', sender_name: 'Maya',
    }) as BufferedMessage),
  };
}

describe('the entity graph', async () => {
  const extraction = await createRulesExtractor().extract(segment([
    'I have a cat named Pixel. I work as a nurse at St. Mary hospital.',
    'I live in Lisbon. My sister Ana lives in Braga.',
    'I moved to Porto yesterday.',
  ]));
  const graph = extraction.graph!;
  const byId = new Map(graph.entities.map((e) => [e.id, e]));
  const rel = (predicate: string) => graph.relations.filter((r) => r.predicate === predicate).map((r) => ({ ...r, object: byId.get(r.object)?.name }));

  it('names the user, the pet and the relative, typed, with their descriptions as aliases', () => {
    expect(byId.get('user:maya')).toMatchObject({ name: 'Maya', type: 'person' });
    expect(byId.get(entityId('Pixel'))).toEqual({ id: 'e:pixel', name: 'Pixel', type: 'animal', aliases: ["Maya's cat"] });
    expect(byId.get(entityId('Ana'))).toMatchObject({ name: 'Ana', type: 'person', aliases: ["Maya's sister"] });
    expect(byId.get(entityId('St. Mary hospital'))).toMatchObject({ type: 'organization' });
  });

  it('links them, each relation pointing at the fact it comes from', () => {
    const [pet] = rel('has_pet');
    expect(pet).toMatchObject({ subject: 'user:maya', object: 'Pixel', source_message_ids: ['m1'], superseded_at: null });
    const fact = extraction.episodes[pet!.fact!.episode]![pet!.fact!.list][pet!.fact!.index]!;
    expect(fact.content).toBe('Maya has a cat named Pixel.');
    expect(rel('works_at')).toEqual([expect.objectContaining({ object: 'St. Mary hospital' })]);
    expect(rel('has_sister')).toEqual([expect.objectContaining({ object: 'Ana' })]);
    expect(rel('lives_in').filter((r) => r.subject === entityId('Ana'))).toEqual([expect.objectContaining({ object: 'Braga', superseded_at: null })]);
  });

  it('a later statement supersedes an earlier one from the date it names', () => {
    const lives = rel('lives_in').filter((r) => r.subject === 'user:maya');
    const yesterday = Date.UTC(2026, 10, 29);
    expect(lives.map((r) => [r.object, r.valid_from, r.superseded_at])).toEqual([
      ['Lisbon', MONDAY + 60_000, yesterday],
      ['Porto', yesterday, null],
    ]);
  });

  it('ids are stable across segments, and links to rewritten facts can be dropped', async () => {
    const again = await createRulesExtractor().extract(segment(['Pixel is sleeping on my keyboard again.']));
    expect(again.graph!.entities.map((e) => e.id)).toContain(entityId('Pixel'));
    expect(withoutFactRefs(graph).relations.every((r) => r.fact === null)).toBe(true);
  });

  it('names no entity from a lower-case word the tokenizer kept with its full stop', async () => {
    const sun = await createRulesExtractor().extract(segment(['June has the midnight sun. Do you want to rent a car?']));
    expect(sun.graph!.entities.map((e) => e.name)).toEqual(['Maya']);
  });
});
