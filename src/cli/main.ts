#!/usr/bin/env node
/**
 * The `engram-memory` command: `serve` (the HTTP API, MCP at /mcp), `mcp` (MCP over stdio for a
 * desktop assistant), `export` and `import` of a data directory. Each command opens the memory
 * the same way (./open-memory.ts); `serve` is the Node server's own command line
 * (src/http/serve-cli.ts), not a copy of it.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { isMemoryError } from '../errors.js';
import { serveMcpStdio } from '../mcp/stdio.js';
import { SERVE_HELP, serve } from '../http/serve-cli.js';
import { openDataDirectory, readRerankerChoice } from './open-memory.js';

const HELP = `Usage: engram-memory <command> [options]

Commands:
  serve    the EverOS HTTP API on 127.0.0.1:8787, with MCP (Streamable HTTP) at /mcp
  mcp      MCP over stdio, for a desktop assistant or any MCP client
  export   write a data directory's memory as a JSON bundle (or Markdown files)
  import   load a JSON bundle into a data directory

Common options:
  --data DIR              the memory's directory (default ./.engram; created if missing)
  --passphrase-file PATH  the memory is encrypted at rest with this passphrase (or env ENGRAM_PASSPHRASE)

engram-memory <command> --help shows a command's own options.`;

const COMMAND_HELP: Record<string, string> = {
  serve: SERVE_HELP.replace('npm run serve --', 'engram-memory serve'),
  mcp: `Usage: engram-memory mcp [--data ./.engram] [--passphrase-file PATH] [--app-id ID --project-id ID] [--reranker teacher|none]

Serves the memory over MCP on stdin/stdout: tools add_memory, flush_memory, search_memory,
get_memories, delete_memory; resources engram://profile/{user_id}. --app-id and --project-id pin
every call to one app and project. --reranker: what reorders agentic search's best candidates
(default teacher, Universal Sentence Encoder lite on the CPU). Logs go to stderr.`,
  export: `Usage: engram-memory export [--data ./.engram] [--out FILE] [--markdown DIR]

Writes everything the memory holds as a versioned JSON bundle (vectors included) to FILE, or to
stdout without --out. --markdown DIR writes one Markdown file per owner and kind instead.`,
  import: `Usage: engram-memory import FILE [--data ./.engram] [--mode merge|replace]

Loads a bundle made by \`export\` in one atomic write: merge (default) upserts by id, replace
empties the memory first.`,
};

const COMMON = {
  data: { type: 'string', default: './.engram' },
  'passphrase-file': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

async function mcp(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { ...COMMON, 'app-id': { type: 'string' }, 'project-id': { type: 'string' }, reranker: { type: 'string' } } });
  if (values.help) return void console.log(COMMAND_HELP['mcp']);
  const appId = values['app-id'];
  const projectId = values['project-id'];
  if ((appId === undefined) !== (projectId === undefined)) throw new Error('--app-id and --project-id go together');
  const reranker = readRerankerChoice(values.reranker, 'teacher');
  const memory = await openDataDirectory(values.data, args, process.env, { reranker });
  try {
    await serveMcpStdio(memory, appId !== undefined && projectId !== undefined ? { tenancy: { app_id: appId, project_id: projectId } } : {});
  } finally {
    await memory.close();
  }
}

async function exportCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { ...COMMON, out: { type: 'string' }, markdown: { type: 'string' } } });
  if (values.help) return void console.log(COMMAND_HELP['export']);
  const memory = await openDataDirectory(values.data, args);
  try {
    if (values.markdown !== undefined) {
      const files = await memory.exportMarkdown();
      const root = resolve(values.markdown);
      for (const file of files) {
        // Paths are made of owner ids; an id such as `..` must not reach outside the directory.
        const target = resolve(root, file.path);
        if (!target.startsWith(root + sep)) throw new Error(`refusing to write ${file.path} outside ${root}`);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, file.content);
      }
      console.error(`wrote ${files.length} Markdown files to ${values.markdown}`);
      return;
    }
    const json = JSON.stringify(await memory.export());
    if (values.out === undefined || values.out === '-') process.stdout.write(`${json}\n`);
    else {
      await writeFile(values.out, json);
      console.error(`wrote ${values.out}`);
    }
  } finally {
    await memory.close();
  }
}

async function importCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...COMMON, mode: { type: 'string', default: 'merge' } } });
  if (values.help) return void console.log(COMMAND_HELP['import']);
  const [file, ...rest] = positionals;
  if (file === undefined || rest.length) throw new Error('import takes one bundle file (see engram-memory import --help)');
  if (values.mode !== 'merge' && values.mode !== 'replace') throw new Error('--mode must be merge or replace');
  let bundle: unknown;
  try {
    bundle = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const memory = await openDataDirectory(values.data, args);
  try {
    const result = await memory.import(bundle, { mode: values.mode });
    console.log(JSON.stringify(result));
  } finally {
    await memory.close();
  }
}

// `serve --help` shows the usage under this command's name, not the npm script's.
const serveCommand = async (args: string[]) => (args.includes('--help') ? console.log(COMMAND_HELP['serve']) : serve(args));

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = { serve: serveCommand, mcp, export: exportCommand, import: importCommand };

/** Runs the command line `argv` (without node and the script). */
export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP);
    return;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) {
    console.error(`unknown command ${command}\n\n${HELP}`);
    process.exitCode = 2;
    return;
  }
  await run(args);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // The catalog code first (STORAGE_CORRUPT, ENCRYPTION_KEY_INVALID…): what an operator or a script looks for.
  console.error(isMemoryError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : error);
  process.exit(1);
});
