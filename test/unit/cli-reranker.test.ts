/**
 * The reranker the CLI gives agentic search: `--reranker teacher|none` on `serve` (default the
 * teacher), and `openDataDirectory` opening a real data directory with the real Universal Sentence
 * Encoder lite, whose agentic search then reorders with it instead of saying it has no reranker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNoticeLog } from '../../src/cli/notice-log.js';
import { loadReranker, openDataDirectory, readRerankerChoice } from '../../src/cli/open-memory.js';
import { MemoryError } from '../../src/errors.js';
import { readServeSettings } from '../../src/http/serve-cli.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-cli-reranker-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('--reranker', () => {
  it('defaults to the teacher on serve, takes none, and refuses anything else by name', () => {
    expect(readServeSettings([], {})).toMatchObject({ reranker: 'teacher' });
    expect(readServeSettings(['--reranker', 'none'], {})).toMatchObject({ reranker: 'none' });
    expect(() => readServeSettings(['--reranker', 'cross-encoder'], {})).toThrow('--reranker must be teacher or none, not cross-encoder');
    expect(readRerankerChoice(undefined, 'none')).toBe('none');
  });
});

describe('loadReranker', () => {
  it('starts without the teacher when it cannot load, and says so once', async () => {
    const lines: string[] = [];
    const missing = () => Promise.reject(new MemoryError('MODEL_UNAVAILABLE', { message: 'Cannot find module @energetic-ai/embeddings' }));
    const notices = createNoticeLog((line) => lines.push(line));
    expect(await loadReranker('teacher', notices, missing)).toBeNull();
    expect(lines).toEqual([expect.stringContaining('reranker.unavailable: the teacher reranker did not load (MODEL_UNAVAILABLE)')]);
    expect(await loadReranker('none', notices, missing)).toBeNull();
    expect(lines).toHaveLength(1);
  });
});

describe('openDataDirectory', () => {
  const T0 = Date.UTC(2026, 10, 2, 9);
  async function agenticNotices(reranker: 'teacher' | 'none'): Promise<{ notices: string[]; rerankerId: string | null; first: string }> {
    const memory = await openDataDirectory(freshDir(), [], {}, { reranker });
    try {
      const lines = ['My sister Ana just started working as a dentist in Porto.', 'We watched a film about whales last night.', 'I repainted the kitchen a pale green.'];
      for (const [i, content] of lines.entries()) {
        await memory.add({ session_id: `s${i}`, messages: [{ sender_id: 'u1', role: 'user', timestamp: T0 + i * 86_400_000, content }] });
        await memory.flush({ session_id: `s${i}` });
      }
      const { response, trace } = await memory.searchWithTrace({ user_id: 'u1', query: "What is my sister's profession?", method: 'agentic', top_k: 3, radius: 0 });
      return { notices: trace.notices.map((n) => n.code), rerankerId: memory.stats().reranker, first: response.data.episodes[0]?.episode ?? '' };
    } finally {
      await memory.close();
    }
  }

  it('gives agentic search the teacher when asked, and none otherwise', async () => {
    const teacher = await agenticNotices('teacher');
    expect(teacher.rerankerId).toBe('teacher-rerank:use-lite:line');
    expect(teacher.notices).not.toContain('agentic.no_reranker');
    expect(teacher.notices).not.toContain('agentic.reranker_failed');
    expect(teacher.first).toContain('dentist');

    const none = await agenticNotices('none');
    expect(none.rerankerId).toBeNull();
    expect(none.notices).toContain('agentic.no_reranker');
  }, 120_000);
});
