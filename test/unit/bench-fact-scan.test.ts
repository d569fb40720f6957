/** `npm run bench:fact-scan`'s comparison: which sessions' rules output changed, by protocol. */
import { describe, expect, it } from 'vitest';
import { compareScans } from '../../bench/fact-scan.js';

describe('fact-scan comparison', () => {
  const line = (id: string, protocol: string, hash: string) => `${id}\t${protocol}\t${hash}\t100`;
  it('names the sessions whose hash moved, per protocol, and counts lines in one scan only', () => {
    const old = [line('a', 'user', '1'), line('a', 'all', '2'), line('b', 'other', '3'), line('c', 'user', '4')].join('\n');
    const now = [line('a', 'user', '1'), line('a', 'all', '9'), line('b', 'other', '8'), line('d', 'user', '5')].join('\n');
    const { changed, missing } = compareScans(old, now);
    expect([...changed.get('user')!]).toEqual([]);
    expect([...changed.get('all')!]).toEqual(['a']);
    expect([...changed.get('other')!]).toEqual(['b']);
    expect(missing).toBe(2);
  });

  it('finds nothing between a scan and itself', () => {
    const scan = [line('a', 'user', '1'), line('b', 'all', '2')].join('\n');
    const { changed, missing } = compareScans(scan, `${scan}\n`);
    expect([...changed.values()].every((s) => s.size === 0)).toBe(true);
    expect(missing).toBe(0);
  });
});
