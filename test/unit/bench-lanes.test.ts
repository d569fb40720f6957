/**
 * `bench:lanes` compares two runs of every README benchmark by their result lines: a number that
 * moved must show, and a line that only reports time must not (it moves on every run).
 */
import { describe, expect, it } from 'vitest';
import { changedLines, resultLines } from '../../bench/lanes.js';
import { LANES } from '../../bench/lanes-list.js';

describe('bench lanes', () => {
  it('compares result lines and leaves out lines that only report time', () => {
    const old = 'LongMemEval-S, protocol (a), 238 questions; 41.2 ms/search\n  protocol user: 10/238 questions, 6 s\nhybrid  .891  .929\nkeyword .819  .895\n';
    const now = 'LongMemEval-S, protocol (a), 238 questions; 39.8 ms/search\n  protocol user: 10/238 questions, 7 s\nhybrid  .891  .933\nkeyword .819  .895\n';
    expect(resultLines(old)).toEqual(['hybrid  .891  .929', 'keyword .819  .895']);
    expect(changedLines(old, now)).toEqual(['- hybrid  .891  .929', '+ hybrid  .891  .933']);
    expect(changedLines(old, old)).toEqual([]);
    // A line repeated keeps its count: one of two equal lines gone is a change.
    expect(changedLines('a .1\na .1\n', 'a .1\n')).toEqual(['- a .1']);
  });

  it('lists each lane once, as a command of this repository that names a README place', () => {
    const ids = new Set(LANES.map((l) => l.id));
    expect(ids.size).toBe(LANES.length);
    for (const lane of LANES) {
      expect(['npm', 'npx'], lane.id).toContain(lane.argv[0]);
      expect(lane.readme.length, lane.id).toBeGreaterThan(0);
      expect(lane.teacher, lane.id).toBe(lane.argv.includes('teacher'));
    }
  });
});
