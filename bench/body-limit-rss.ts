/**
 * The Node server's memory while clients send bodies far over the limit: starts `npm run serve`'s
 * CLI as its own process, sends one body with a content-length and one chunked (1 GiB each by
 * default), and prints the server's resident memory before and after and its peak (Linux
 * /proc/<pid>/status: VmRSS, VmHWM), with each answer's status.
 *
 *   npx tsx bench/body-limit-rss.ts [--gib 1] [--port 18787]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { gib: { type: 'string', default: '1' }, port: { type: 'string', default: '18787' } } });
const total = Math.round(Number(values.gib) * 1024 ** 3);
const port = Number(values.port);
const MiB = 1024 * 1024;

function memoryOf(pid: number): { rss_mb: number; peak_mb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss_mb: Math.round(kb('VmRSS') / 1024), peak_mb: Math.round(kb('VmHWM') / 1024) };
}

function upload(mode: 'length' | 'chunked'): Promise<{ status: number; code: string; sent_mb: number }> {
  return new Promise((done, fail) => {
    let sent = 0;
    let answered = false;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(mode === 'length' ? { 'content-length': String(total) } : {}) };
    const req = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/memory/add', method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        answered = true;
        done({ status: res.statusCode!, code: (JSON.parse(text) as { code?: string }).code ?? '', sent_mb: Math.round(sent / MiB) });
      });
    });
    req.on('error', (error) => setTimeout(() => !answered && fail(error), 2000));
    const chunk = Buffer.alloc(MiB, 0x61);
    chunk.write('{"session_id":"s","messages":"');
    const pump = () => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

const data = await mkdtemp(join(tmpdir(), 'engram-rss-'));
const cli = resolve(import.meta.dirname, '..', 'src', 'http', 'serve-cli.ts');
const server = spawn(process.execPath, ['--import', 'tsx', cli, '--port', String(port), '--data', data], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  await new Promise<void>((ready, fail) => {
    server.stdout.on('data', (c: Buffer) => c.toString().includes('listening') && ready());
    server.once('exit', (code) => fail(new Error(`the server exited (${code})`)));
  });
  console.log(`server pid ${server.pid}, bodies of ${values.gib} GiB`);
  console.log('before         ', JSON.stringify(memoryOf(server.pid!)));
  for (const mode of ['length', 'chunked'] as const) {
    const answer = await upload(mode);
    console.log(mode.padEnd(15), JSON.stringify({ ...answer, ...memoryOf(server.pid!) }));
  }
  const health = await fetch(`http://127.0.0.1:${port}/health`);
  console.log(`after (health ${health.status})`, JSON.stringify(memoryOf(server.pid!)));
} finally {
  server.kill('SIGTERM');
  await rm(data, { recursive: true, force: true });
}
