/**
 * `bench:lanes` compares two runs of every README benchmark by their result lines: a number that
 * moved must show, and a line that only reports time must not (it moves on every run).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedLines, keptLanes, laneOrder, laneSeconds, resultLines } from '../../bench/lanes.js';
import type { Lane } from '../../bench/lanes-list.js';
import { LANES } from '../../bench/lanes-list.js';

describe('bench lanes', () => {
  it('starts the longest lanes first: by an earlier run\'s seconds when given, else teacher lanes first; a lane that reads another\'s file last', () => {
    const lane = (id: string, teacher = false, after?: string): Lane => ({ id, argv: ['npm'], teacher, readme: 'x', ...(after ? { after } : {}) });
    const lanes = [lane('a'), lane('dump'), lane('cv', false, 'dump'), lane('t', true), lane('new'), lane('b')];
    expect(laneOrder(lanes).map((l) => l.id)).toEqual(['t', 'a', 'dump', 'new', 'b', 'cv']);
    // Timed: longest first; a lane without a time (new since) before every timed one.
    const dir = mkdtempSync(join(tmpdir(), 'lanes-seconds-'));
    writeFileSync(join(dir, 'a.status'), 'rc 0\nseconds 60\n');
    writeFileSync(join(dir, 'dump.status'), 'rc 0\nseconds 3153\n');
    writeFileSync(join(dir, 'cv.status'), 'rc 0\nseconds 3\n');
    writeFileSync(join(dir, 't.status'), 'rc 0\nseconds 1592\n');
    writeFileSync(join(dir, 'b.status'), 'rc 1\nseconds 4\n');
    writeFileSync(join(dir, 'a.txt'), 'seconds 99999\n');
    const seconds = laneSeconds(dir);
    expect(seconds).toEqual(new Map([['a', 60], ['dump', 3153], ['cv', 3], ['t', 1592], ['b', 4]]));
    expect(laneOrder(lanes, seconds).map((l) => l.id)).toEqual(['new', 'dump', 't', 'a', 'b', 'cv']);
  });

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

  it('keeps, in a second run into the same folder, the lanes that ended well, only for the same source', () => {
    const out = mkdtempSync(join(tmpdir(), 'lanes-'));
    // A new folder: nothing to keep.
    expect(keptLanes(join(out, 'new'), 'abc')).toEqual(new Set());
    writeFileSync(join(out, 'SOURCE'), 'abc\n');
    writeFileSync(join(out, 'quality-a.status'), 'rc 0\nseconds 131\n');
    writeFileSync(join(out, 'quality-b.status'), 'rc 1\nseconds 3\n');
    writeFileSync(join(out, 'quality-c.txt'), 'half a lane, cut off before its status\n');
    expect(keptLanes(out, 'abc')).toEqual(new Set(['quality-a']));
    // Lanes of another commit, or of a folder that does not say which, are never mixed in.
    expect(() => keptLanes(out, 'def')).toThrow(/holds lanes of abc; this tree is def/);
    const unnamed = join(out, 'unnamed');
    mkdirSync(unnamed);
    writeFileSync(join(unnamed, 'quality-a.status'), 'rc 0\nseconds 131\n');
    expect(() => keptLanes(unnamed, 'abc')).toThrow(/no SOURCE/);
  });
});
