import { describe, expect, it } from 'vitest';
import { createNoticeLog, NOTICE_QUIET_MS } from '../../src/cli/notice-log.js';

describe('the CLI notice log', () => {
  it('prints a notice the first time, then at most once a minute with how often it came', () => {
    const lines: string[] = [];
    let clock = 1_000;
    const log = createNoticeLog((line) => lines.push(line), () => clock);
    const notice = { code: 'agentic.single_round', message: 'No LLM is configured.' };
    log(notice);
    for (let i = 0; i < 500; i++) log(notice);
    expect(lines).toEqual(['[engram] agentic.single_round: No LLM is configured.']);
    clock += NOTICE_QUIET_MS;
    log(notice);
    expect(lines[1]).toBe('[engram] agentic.single_round: No LLM is configured. (501 times since it was last printed)');
    clock += NOTICE_QUIET_MS;
    log(notice);
    expect(lines[2]).toBe('[engram] agentic.single_round: No LLM is configured.');
  });

  it('keeps distinct notices apart: another code or another message is printed at once', () => {
    const lines: string[] = [];
    const log = createNoticeLog((line) => lines.push(line), () => 0);
    log({ code: 'agentic.reranker_failed', message: 'The reranker failed (timeout).' });
    log({ code: 'agentic.reranker_failed', message: 'The reranker failed (model_error).' });
    log({ code: 'agentic.llm_failed', message: 'The reranker failed (timeout).' });
    log({ code: 'agentic.reranker_failed', message: 'The reranker failed (timeout).' });
    expect(lines).toHaveLength(3);
  });

  it('forgets what it has seen once it has seen too many distinct notices, and keeps printing', () => {
    const lines: string[] = [];
    const log = createNoticeLog((line) => lines.push(line), () => 0);
    for (let i = 0; i < 2500; i++) log({ code: 'extract.fallback', message: `detail ${i}` });
    expect(lines).toHaveLength(2500);
    log({ code: 'extract.fallback', message: 'detail 2499' });
    expect(lines).toHaveLength(2500);
  });
});
