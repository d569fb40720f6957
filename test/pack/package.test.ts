/**
 * The package as a user gets it: `npm pack`, the tarball installed into a fresh project outside
 * the repository, and used only through its public subpaths — the README's snippets (Node, AI SDK,
 * LangChain.js, the MCP client configuration) run as they are written, the CLI's `serve` answers
 * HTTP and MCP, `mcp` answers an MCP client over stdio, `export`/`import` move a memory, and the
 * types resolve. better-sqlite3 is the user's own (optional peer) dependency, installed without
 * its build script: the repository's compiled binding is placed in it instead of compiling it
 * again (~70 s on 2 cores).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { build, createLogger } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissingFor, launchChromium, serveDir } from '../support/browser.js';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '..', '..');
const lockVersion = (name: string): string => (JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** The README's tested snippets: a code block right after `<!-- pack-test: FILE -->`. */
function readmeSnippets(): Map<string, string> {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const out = new Map<string, string>();
  for (const m of readme.matchAll(/<!-- pack-test: ([\w./-]+) -->\n```\w*\n([\s\S]*?)\n```/g)) out.set(m[1]!, m[2]!);
  return out;
}

let dir: string;
let project: string;
let snippets: Map<string, string>;
const bin = () => join(project, 'node_modules', '.bin', 'engram-memory');
const node = (file: string, cwd = project) => run(process.execPath, [file], { cwd, timeout: 120_000 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-pack-'));
  // `npm pack` runs `prepack` (npm run build) first: the tarball is built from this checkout.
  const { stdout } = await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: REPO, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  const tarball = join(dir, stdout.trim().split('\n').pop()!);
  project = join(dir, 'app');
  cpSync(join(REPO, 'test', 'pack', 'fixture-package.json'), join(project, 'package.json'));
  await run('npm', [
    'install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball,
    `ai@${lockVersion('ai')}`, `@langchain/core@${lockVersion('@langchain/core')}`, `@langchain/langgraph@${lockVersion('@langchain/langgraph')}`,
    `@modelcontextprotocol/sdk@${lockVersion('@modelcontextprotocol/sdk')}`, `better-sqlite3@${lockVersion('better-sqlite3')}`,
  ], { cwd: project, timeout: 400_000, maxBuffer: 64 * 1024 * 1024 });
  cpSync(join(REPO, 'node_modules', 'better-sqlite3', 'build'), join(project, 'node_modules', 'better-sqlite3', 'build'), { recursive: true });
  snippets = readmeSnippets();
  mkdirSync(join(project, 'web'));
  mkdirSync(join(project, 'src'));
  for (const [file, code] of snippets) writeFileSync(join(project, file), code);
}, 900_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed package in a fresh project', () => {
  it('ships the model, the licences and no sources, tests or internals', () => {
    const root = join(project, 'node_modules', 'engram-memory');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.private).toBeUndefined();
    expect(readdirSync(root).sort()).toEqual(['LICENSE', 'NOTICE', 'README.md', 'dist', 'package.json']);
    expect(readdirSync(join(root, 'dist')).sort()).toEqual(['models', 'src', 'worker']);
    expect(readdirSync(join(root, 'dist', 'models', 'static-en')).sort()).toEqual(['README.md', 'manifest.json', 'model.bin', 'model.onnx']);
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0/);
    expect(readFileSync(join(root, 'NOTICE'), 'utf8')).toMatch(/ISC License[\s\S]*Zeke Sikelianos/);
  });

  it('the README has the snippets this test runs', () => {
    expect([...snippets.keys()].sort()).toEqual(['ai-sdk.mjs', 'langchain.mjs', 'mcp-config.json', 'node-app.mjs', 'src/index.js', 'web/main.js', 'web/vite.config.js', 'wrangler.toml']);
  });

  it('runs the README’s Node snippet: engine, SQLite store, search', async () => {
    const { stdout } = await node('node-app.mjs');
    expect(stdout).toMatch(/Alice adopted a cat named Miso/);
    // The store is on disk in the project, as the snippet said.
    expect(readdirSync(join(project, '.engram')).length).toBeGreaterThan(0);
  });

  it('runs the README’s AI SDK snippet: real tool calls against a real memory', async () => {
    const { stdout } = await node('ai-sdk.mjs');
    expect(stdout).toMatch(/stored: true/);
    expect(stdout).toMatch(/Miso/);
    expect(stdout).toMatch(/What you remember about this user/);
  });

  it('runs the README’s LangChain.js snippet: retriever and LangGraph store', async () => {
    const { stdout } = await node('langchain.mjs');
    expect(stdout).toMatch(/nurse/);
    expect(stdout).toMatch(/Alice loves ramen/);
  });

  it('answers the README’s MCP client configuration over stdio', async () => {
    const config = JSON.parse(snippets.get('mcp-config.json')!).mcpServers.engram as { command: string; args: string[] };
    const args = config.args.map((a) => (a === '/home/me/.engram' ? join(dir, 'mcp-data') : a));
    expect(args).not.toEqual(config.args);
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: config.command, args, cwd: project, stderr: 'pipe' }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_memory');
      await client.callTool({
        name: 'add_memory',
        arguments: { session_id: 's1', messages: [{ sender_id: 'alice', role: 'user', timestamp: Date.UTC(2026, 10, 28), content: 'I adopted a cat named Miso yesterday.' }] },
      });
      await client.callTool({ name: 'flush_memory', arguments: { session_id: 's1' } });
      const found = await client.callTool({ name: 'search_memory', arguments: { user_id: 'alice', query: 'what pet does alice have', top_k: 3 } });
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent as any).data.episodes[0].episode).toMatch(/Miso/);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('serves HTTP, OpenAPI and MCP with `engram-memory serve`, and moves the memory with export/import', async () => {
    const data = join(dir, 'serve-data');
    const token = 'pack-test-token-0123456789';
    const server: ChildProcess = spawn(bin(), ['serve', '--port', '0', '--data', data, '--token', token], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
      });
      const post = (path: string, body: unknown) =>
        fetch(`${url}/api/v1/memory/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
      expect((await post('add', { session_id: 's1', messages: [{ sender_id: 'alice', role: 'user', timestamp: Date.UTC(2026, 10, 28), content: 'I moved to Lisbon and I work as a nurse.' }] })).status).toBe(200);
      expect((await post('flush', { session_id: 's1' })).status).toBe(200);
      const search = await (await post('search', { user_id: 'alice', query: 'where does alice work', top_k: 3 })).json();
      expect(search.data.episodes[0].episode).toMatch(/nurse/);
      expect((await post('search', { user_id: 'alice', query: '' })).status).toBe(422);
      expect((await fetch(`${url}/api/v1/memory/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);

      const openapi = await (await fetch(`${url}/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).json();
      expect(openapi.openapi).toBe('3.1.0');
      expect(Object.keys(openapi.paths)).toContain('/api/v1/memory/search');

      const client = new Client({ name: 'pack-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      const found = await client.callTool({ name: 'search_memory', arguments: { user_id: 'alice', query: 'nurse', method: 'keyword' } });
      expect((found.structuredContent as any).data.episodes.length).toBe(1);
      await client.close();
    } finally {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
    }

    const bundle = join(dir, 'bundle.json');
    await run(bin(), ['export', '--data', data, '--out', bundle], { cwd: project });
    const copy = join(dir, 'imported');
    const { stdout } = await run(bin(), ['import', bundle, '--data', copy], { cwd: project });
    expect(JSON.parse(stdout).imported).toBeGreaterThan(0);
    const check = join(project, 'check-import.mjs');
    writeFileSync(check, `
      import { createMemory } from 'engram-memory';
      import { createDefaultEmbedder, createSqliteStore } from 'engram-memory/node';
      const memory = await createMemory({ store: await createSqliteStore(${JSON.stringify(copy)}), embedder: await createDefaultEmbedder() });
      console.log(JSON.stringify((await memory.search({ user_id: 'alice', query: 'lisbon', method: 'keyword' })).data.episodes.map((e) => e.episode)));
      await memory.close();
    `);
    expect((await node(check)).stdout).toMatch(/Lisbon/);
  }, 180_000);

  it('prints its help, and a command’s own', async () => {
    expect((await run(bin(), ['--help'])).stdout).toMatch(/serve[\s\S]*mcp[\s\S]*export[\s\S]*import/);
    expect((await run(bin(), ['serve', '--help'])).stdout).toMatch(/engram-memory serve/);
    await expect(run(bin(), ['frobnicate'])).rejects.toMatchObject({ code: 2 });
  });

  it('keeps its internals out of reach: only the exported subpaths resolve', async () => {
    const probe = join(project, 'probe.mjs');
    writeFileSync(probe, `
      for (const sub of ['', '/node', '/http', '/mcp', '/ai', '/langchain', '/cloudflare', '/model', '/vite']) await import('engram-memory' + sub);
      try { await import('engram-memory/dist/src/engine.js'); console.log('reachable'); } catch (e) { console.log(e.code); }
    `);
    expect((await node(probe)).stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it.skipIf(chromiumMissingFor('test/pack/package.test.ts (browser app)'))('builds the README’s browser app with Vite and runs it in Chromium: worker, IndexedDB, the bundled model', async () => {
    const web = join(project, 'web');
    writeFileSync(join(web, 'index.html'), '<!doctype html><html><body><script type="module" src="./main.js"></script></body></html>');
    // The README's config builds quietly: engramBrowserBuiltins() resolves the Node built-ins the
    // worker's code names (the model loader's, the teacher reranker's packages').
    const warnings: string[] = [];
    const logger = createLogger('warn');
    const warn = logger.warn.bind(logger);
    logger.warn = (message, options) => {
      warnings.push(message);
      warn(message, options);
    };
    await build({ root: web, configFile: join(web, 'vite.config.js'), logLevel: 'warn', customLogger: logger });
    expect(warnings.filter((w) => /externalized for browser compatibility/.test(w))).toEqual([]);
    const assets = readdirSync(join(web, 'dist', 'assets'));
    // The bundler found the model and the worker through new URL(…, import.meta.url): nothing was copied by hand.
    expect(assets.some((a) => /^model-.*\.bin$/.test(a))).toBe(true);
    expect(assets.some((a) => /^memory\.worker-.*\.js$/.test(a))).toBe(true);
    const site = await serveDir(join(web, 'dist'));
    const browser = await launchChromium({ webgpu: false });
    try {
      const page = await browser.newPage();
      const logged = page.waitForEvent('console', { predicate: (m) => /Porto|Error/.test(m.text()), timeout: 90_000 });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(site.url);
      expect((await logged).text()).toMatch(/Ana lives in Porto/);
      expect(errors).toEqual([]);
      expect(site.requests.some((r) => /model-.*\.bin$/.test(r))).toBe(true);
      // engramTeacherFiles() put the teacher's files in the build, and the memory's worker loaded them.
      await expect.poll(() => site.requests.filter((r) => /teacher\/(model\.json|vocab\.json|group1-shard\dof7)$/.test(r)).length, { timeout: 60_000 }).toBe(9);
      expect(site.requests.some((r) => /assets\/tfjs-backend-wasm.*\.wasm$/.test(r))).toBe(true);
    } finally {
      await browser.close();
      await site.close();
    }
  }, 180_000);

  // wrangler is the user's own tool: the repository's copy runs the project's wrangler.toml.
  it('runs the README’s Cloudflare Worker in workerd (wrangler dev): keys, the model from the package, MCP', async () => {
    const free = async () => {
      const { createServer } = await import('node:net');
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      await new Promise((resolve) => server.close(resolve));
      return port;
    };
    const [port, inspector] = [await free(), await free()];
    const key = 'scratch-worker-key-123';
    const { createHash } = await import('node:crypto');
    const apiKeys = JSON.stringify({ [createHash('sha256').update(key).digest('hex')]: { app_id: 'acme', project_id: 'prod' } });
    const wrangler = spawn(process.execPath, [join(REPO, 'node_modules', 'wrangler', 'bin', 'wrangler.js'), 'dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector), '--var', `API_KEYS:${apiKeys}`], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false' },
    });
    let log = '';
    wrangler.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    wrangler.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    const base = `http://127.0.0.1:${port}`;
    try {
      for (let i = 0; ; i++) {
        if (wrangler.exitCode !== null) throw new Error(`wrangler dev exited: ${log}`);
        const up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
        if (up) break;
        if (i > 240) throw new Error(`wrangler dev did not start: ${log}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const post = (path: string, body: unknown, auth = `Bearer ${key}`) =>
        fetch(`${base}/api/v1/memory/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify(body) });
      expect((await post('add', { session_id: 's1', messages: [{ sender_id: 'alice', role: 'user', timestamp: Date.UTC(2026, 10, 28), content: 'I adopted a cat named Miso yesterday.' }] })).status).toBe(200);
      expect((await post('flush', { session_id: 's1' })).status).toBe(200);
      const found = await (await post('search', { user_id: 'alice', query: 'what pet does alice have', top_k: 3 })).json();
      expect(found.data.episodes[0]).toMatchObject({ app_id: 'acme', project_id: 'prod' });
      expect(found.data.episodes[0].episode).toMatch(/Miso/);
      expect((await post('search', { user_id: 'alice', query: 'cat' }, 'Bearer wrong')).status).toBe(401);

      const client = new Client({ name: 'pack-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      const viaMcp = await client.callTool({ name: 'search_memory', arguments: { user_id: 'alice', query: 'Miso', method: 'keyword' } });
      expect((viaMcp.structuredContent as any).data.episodes.length).toBe(1);
      await client.close();
    } finally {
      if (wrangler.exitCode === null) {
        const exited = new Promise((resolve) => wrangler.once('exit', resolve));
        wrangler.kill('SIGTERM');
        await exited;
      }
    }
  }, 180_000);

  it('has types for every subpath', async () => {
    writeFileSync(join(project, 'types.ts'), `
      import { createMemory, type Memory, type SearchResponse, MemoryError } from 'engram-memory';
      import { createSqliteStore, createDefaultEmbedder, startNodeServer, serveMcpStdio } from 'engram-memory/node';
      import { createMemoryClient, type MemoryClient } from 'engram-memory/client';
      import { modelUrl } from 'engram-memory/model';
      import { createFetchHandler, openApiDocument } from 'engram-memory/http';
      import { createMcpServer, handleMcpRequest } from 'engram-memory/mcp';
      import { createMemoryTools, memoryPromptBlock } from 'engram-memory/ai';
      import { EngramRetriever, EngramStore } from 'engram-memory/langchain';
      import worker, { MemoryObject } from 'engram-memory/cloudflare';
      export async function check(): Promise<string> {
        const memory: Memory = await createMemory({ store: await createSqliteStore('x'), embedder: await createDefaultEmbedder() });
        const found: SearchResponse = await memory.search({ user_id: 'a', query: 'q' });
        const client: MemoryClient | undefined = undefined;
        const url: URL = modelUrl;
        void [startNodeServer, serveMcpStdio, createMemoryClient, client, url, createFetchHandler(memory), openApiDocument(), createMcpServer(memory), handleMcpRequest,
          createMemoryTools(memory, { user_id: 'a' }).searchMemory, new EngramRetriever({ memory, owner: { user_id: 'a' } }), new EngramStore(memory, { user_id: 'a' }),
          worker.fetch, MemoryObject, new MemoryError('NOT_FOUND')];
        return memoryPromptBlock(found);
      }
    `);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, lib: ['ES2023', 'DOM'], types: [] },
      files: ['types.ts'],
    }));
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project, timeout: 120_000 }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(result.stdout).toBe('');
  }, 120_000);
});
