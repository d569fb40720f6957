/**
 * The server under test, as an operator runs it: a separate Node process started the way
 * `npm run serve` starts it, on a free port, over a data directory. The harness talks to it
 * only through HTTP, signals and /proc, so it works with whichever store the server uses.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BREETH_USER } from './requests.js';

const HERE = fileURLToPath(new URL('../../', import.meta.url));

/** Where every server of this run is started from, and extra arguments for all of them. */
const defaults: { root: string; args: string[] } = { root: HERE, args: [] };

/**
 * Points the harness at another checkout (say a snapshot of the last commit while the working
 * tree is mid-edit) and adds arguments to every server it starts (say `--token`).
 */
export function configureServers(options: { root?: string; args?: string[] }): void {
  if (options.root) defaults.root = options.root;
  if (options.args) defaults.args = options.args;
}

export interface ServerOptions {
  dataDir: string;
  /** How long to wait for the "listening" line. */
  startTimeoutMs?: number;
  /** Extra command-line arguments (say `--token`). */
  args?: string[];
  env?: Record<string, string>;
  /** Shell commands run before the server in the same process (say `ulimit -f 2048`). */
  shellPrefix?: string;
}

/** A running server process. */
export interface ServerProcess {
  port: number;
  pid: number;
  child: ChildProcess;
  /** Milliseconds from spawn to the listening line (the reopen time). */
  startMs: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Current resident set size in bytes, from /proc (0 when unavailable). */
  rss(): number;
  /** Resolves with the exit code (or signal) once it has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** The outcome of a start that did not reach "listening". */
export class StartFailure extends Error {
  constructor(message: string, readonly output: string, readonly code: number | null) {
    super(message);
  }
}

/** Reads VmRSS of a process in bytes. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Starts `serve-cli` on a free port with every route on; rejects with StartFailure if it exits or stalls first. */
export function startServer(options: ServerOptions): Promise<ServerProcess> {
  const started = performance.now();
  const args = ['--import', 'tsx', 'src/http/serve-cli.ts', '--port', '0', '--data', options.dataDir, '--tablestore', '--breeth-user', BREETH_USER, ...defaults.args, ...(options.args ?? [])];
  // With a prefix, bash sets the limits and then becomes node (exec), so the pid is the server's.
  const [command, argv] = options.shellPrefix ? ['bash', ['-c', `${options.shellPrefix}; exec "$0" "$@"`, process.execPath, ...args]] as const : [process.execPath, args] as const;
  const child = spawn(command, argv, {
    cwd: defaults.root,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new StartFailure(`the server did not start within ${options.startTimeoutMs ?? 60_000} ms`, out, null));
    }, options.startTimeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.length > 1_000_000) out = out.slice(-500_000);
      const m = /listening on http:\/\/[^\s]*:(\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        if (out.length > 1_000_000) out = out.slice(-500_000);
      });
      const pid = child.pid!;
      resolve({
        port: Number(m[1]),
        pid,
        child,
        startMs: performance.now() - started,
        output: () => out,
        rss: () => rssOf(pid),
        exited,
        kill: (signal = 'SIGKILL') => void child.kill(signal),
        async stop(graceMs = 10_000) {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
          await exited;
          clearTimeout(t);
        },
      });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.length > 1_000_000) out = out.slice(-500_000);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new StartFailure(`the server exited before listening (code ${code}, signal ${signal})`, out, code));
    });
  });
}

/** Samples a process's RSS every `everyMs` and keeps the peak. */
export function sampleRss(pid: () => number, everyMs = 100): { peak(): number; stop(): void } {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid()));
  }, everyMs);
  timer.unref();
  return { peak: () => Math.max(peak, rssOf(pid())), stop: () => clearInterval(timer) };
}
