/**
 * The benches' memory reached the way an outside evaluation reaches it: `npm run serve -- --port
 * 0 --data DIR` in a child process, and the EverOS routes over HTTP (`POST /api/v1/memory/add`,
 * `/flush`, `/search`). `bench:quality --via http` builds each question's memory here instead of
 * in-process, so what it prints is what a client of the server gets, parsing, defaults and
 * persistence included. Each question's memory is its own project in the one server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SearchResponse } from '../src/index.js';
import type { RerankerChoice } from '../src/cli/open-memory.js';

/** The part of the memory API the benches call. */
export interface BenchMemory {
  add(request: Record<string, unknown>): Promise<unknown>;
  flush(request: Record<string, unknown>): Promise<unknown>;
  search(request: Record<string, unknown>): Promise<SearchResponse>;
  close(): Promise<void>;
}

/** A running `npm run serve` and the memories it holds, one per project. */
export interface BenchServer {
  readonly url: string;
  /** A memory of its own: every request is sent with `project_id` `project`. */
  memoryFor(project: string): BenchMemory;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Starts the server on a free port over a fresh data directory (with `--reranker`, default the server's own); resolves once it listens. */
export async function startBenchServer(options: { reranker?: RerankerChoice } = {}): Promise<BenchServer> {
  const data = await mkdtemp(join(tmpdir(), 'engram-bench-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/http/serve-cli.ts', '--port', '0', '--data', data, '--reranker', options.reranker ?? 'teacher'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  // A bench that fails part-way must not leave the server running.
  const killChild = () => child.kill('SIGTERM');
  process.once('exit', killChild);
  const url = await listening(child);
  const call = async (route: string, body: Record<string, unknown>): Promise<unknown> => {
    const response = await fetch(`${url}/api/v1/memory/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST /api/v1/memory/${route} answered ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as unknown;
  };
  return {
    url,
    memoryFor: (project) => ({
      add: (request) => call('add', { ...request, project_id: project }),
      flush: (request) => call('flush', { ...request, project_id: project }),
      search: async (request) => (await call('search', { ...request, project_id: project })) as SearchResponse,
      close: async () => {},
    }),
    async stop() {
      process.off('exit', killChild);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(data, { recursive: true, force: true });
    },
  };
}

/** The server's URL from its first line ("Engram listening on http://…"), or its error output. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!.replace(/\/$/, ''));
    });
    // The server's log (notices of every search) is kept for an error message, not shown.
    child.stderr!.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4000);
    });
    child.once('exit', (code) => reject(new Error(`npm run serve exited (${code}) before listening: ${err.slice(-2000)}`)));
  });
}
