#!/usr/bin/env node
/**
 * `npm run dev:edge`: the Cloudflare Worker under `wrangler dev` on 127.0.0.1, with both of its
 * ports settable. A script rather than a fixed command line because `wrangler dev` takes each
 * flag once: `npm run dev:edge -- --port 8790` on top of a built-in `--port 8788` was refused
 * ("expects a single value").
 *
 *   npm run dev:edge                                         # API on 8788, devtools inspector on 9229 (or the next free port)
 *   npm run dev:edge -- --port 8790 --inspector-port 9330    # any other flag goes to wrangler unchanged, e.g. --var
 *   ENGRAM_EDGE_PORT=8790 ENGRAM_EDGE_INSPECTOR_PORT=9330 npm run dev:edge
 *
 * Offline, wrangler tries to download the `Request.cf` placeholder (geolocation and TLS details of
 * a real request) and prints the failure with a stack trace each time the server (re)starts. The
 * Worker never reads `request.cf`, so the download is turned off (CLOUDFLARE_CF_FETCH_ENABLED=false,
 * read by Miniflare); set that variable yourself to have it back.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const DEFAULT_PORT = 8788;
const OPTIONS = { port: 'ENGRAM_EDGE_PORT', 'inspector-port': 'ENGRAM_EDGE_INSPECTOR_PORT' };

function fail(message) {
  console.error(`dev:edge: ${message}\nusage: npm run dev:edge -- [--port N] [--inspector-port N] [other wrangler dev flags]`);
  process.exit(2);
}

function port(source, text) {
  const value = Number(text);
  if (!/^\d+$/.test(String(text ?? '')) || value < 1 || value > 65_535) fail(`${source} needs a port number from 1 to 65535, got ${JSON.stringify(text ?? '')}`);
  return value;
}

const chosen = {};
for (const [name, variable] of Object.entries(OPTIONS)) if (process.env[variable] !== undefined) chosen[name] = port(variable, process.env[variable]);
const passed = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const match = /^--(port|inspector-port)(?:=(.*))?$/.exec(args[i]);
  if (!match) {
    passed.push(args[i]);
    continue;
  }
  // A flag beats the environment; given twice, the last one wins, as in most tools.
  chosen[match[1]] = port(`--${match[1]}`, match[2] ?? args[++i]);
}

const wrangler = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
const flags = ['dev', '--ip', '127.0.0.1', '--port', String(chosen.port ?? DEFAULT_PORT)];
if (chosen['inspector-port'] !== undefined) flags.push('--inspector-port', String(chosen['inspector-port']));
const child = spawn(process.execPath, [wrangler, ...flags, ...passed], {
  stdio: 'inherit',
  env: { CLOUDFLARE_CF_FETCH_ENABLED: 'false', ...process.env },
});
// Ctrl-C reaches wrangler directly (same process group); this only relays a kill aimed at the script.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
