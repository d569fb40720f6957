/**
 * `npm run bench:hostile-text`: how the time to read a message, a document or a query grows with
 * its size, for the texts a hostile client would send (one character, word or phrase repeated up
 * to the contract's bound). A reader that scans the rest of the text at every step takes time
 * quadratic in it, and one request then holds the server for seconds or hours; every reader here
 * should take about twice as long for twice the text. Each recipe is timed at three sizes, each
 * size doubling the last, one call in a fresh extractor (or memory) after one untimed warm-up call of the
 * smallest size; `growth` is the ratio of the last two times (about 2 for linear work, 4 for
 * quadratic). Times are this machine's; the ratios are what to read.
 *
 *   npm run bench:hostile-text [-- --only REGEX]
 */
import { parseArgs } from 'node:util';
import { createDefaultEmbedder, createMemory } from '../src/index.js';
import { decomposeQuery } from '../src/search/decompose.js';
import type { BufferedMessage } from '../src/records.js';
import { readHtml, readMarkdown } from '../src/write/documents/text.js';
import { english } from '../src/write/language.js';
import { createRulesExtractor } from '../src/write/rules-extractor.js';

const { values } = parseArgs({ options: { only: { type: 'string' } } });

/** `unit` repeated to `n` characters. */
const repeat = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
/** A distinct made-up name per index ("Xaab", "Xaac", …), so a text can name thousands of people. */
const made = (i: number) => `X${(i + 26 * 26).toString(26).split('').map((c) => String.fromCharCode(97 + parseInt(c, 26))).join('')}`;
const distinct = (template: (name: string, other: string) => string) => (n: number) => {
  let text = '';
  for (let i = 0; text.length < n; i++) text += template(made(i), `Y${made(i).slice(1)}`);
  return text.slice(0, n);
};

const MESSAGE = [25_000, 50_000, 100_000];
const QUERY = [4_000, 8_000, 16_000];
const now = Date.UTC(2026, 10, 30, 12);

const extractor = createRulesExtractor();
async function extract(content: string): Promise<void> {
  const message = { kind: 'message', id: 'm0', app_id: 'default', project_id: 'default', session_id: 's', seq: 0, sender_id: 'maya', sender_name: 'Maya', role: 'user', timestamp: now, content, tool_calls: null, tool_call_id: null, message_id: 'c0' } as BufferedMessage;
  await extractor.extract({ id: 'seg', app_id: 'default', project_id: 'default', session_id: 's', messages: [message] });
}

/** Loaded by the first recipe that writes through a memory (its untimed warm-up call), not by the others. */
let embedder: ReturnType<typeof createDefaultEmbedder> | undefined;
/** A Markdown document written through a fresh memory: each fact it yields looks for its section. */
async function writeDocument(markdown: string): Promise<void> {
  const memory = await createMemory({ embedder: await (embedder ??= createDefaultEmbedder()) });
  const doc = { type: 'doc', name: 'notes.md', mime_type: 'text/markdown', base64: Buffer.from(markdown).toString('base64') };
  await memory.add({ session_id: 's', messages: [{ sender_id: 'maya', sender_name: 'Maya', role: 'user', timestamp: now, content: [doc] }] });
  await memory.flush({ session_id: 's' });
}

interface Recipe {
  name: string;
  sizes: number[];
  text: (n: number) => string;
  read: (text: string) => unknown;
}

const RECIPES: Recipe[] = [
  { name: 'message: "I have " then "a cat " repeated (pets)', sizes: MESSAGE, text: (n) => `I have ${repeat('a cat ', n - 7)}`, read: extract },
  { name: 'message: "on 5/12 " repeated (dates)', sizes: MESSAGE, text: (n) => repeat('on 5/12 ', n), read: extract },
  { name: 'message: Chinese and English mixed', sizes: MESSAGE, text: (n) => repeat('我今天去了北京 and then I went to Tokyo 明天 ', n), read: extract },
  { name: 'message: "people are their " repeated (pronouns)', sizes: MESSAGE, text: (n) => repeat('people are their ', n), read: extract },
  { name: 'message: "and " repeated (clauses)', sizes: MESSAGE, text: (n) => repeat('and ', n), read: extract },
  { name: 'message: "My sister @ lives in #. " with new names (entity graph)', sizes: MESSAGE, text: distinct((a, b) => `My sister ${a} lives in ${b}. `), read: extract },
  { name: 'message: one word per line', sizes: MESSAGE, text: (n) => repeat('a\n', n), read: extract },
  { name: 'query: "Or " repeated', sizes: QUERY, text: (n) => repeat('Or ', n), read: decomposeQuery },
  { name: 'query: "And " repeated', sizes: QUERY, text: (n) => repeat('And ', n), read: decomposeQuery },
  { name: 'query: ", " repeated', sizes: QUERY, text: (n) => repeat(', ', n), read: decomposeQuery },
  { name: 'query: one run of letters', sizes: QUERY, text: (n) => repeat('a', n), read: decomposeQuery },
  { name: 'document: a Markdown section per fact, written to a memory', sizes: MESSAGE, text: distinct((a) => `## ${a}\n\nI planted tulips by the north fence for ${a}.\n\n`), read: writeDocument },
  { name: 'Markdown: "[" repeated', sizes: MESSAGE, text: (n) => repeat('[', n), read: readMarkdown },
  { name: 'Markdown: "![" repeated', sizes: MESSAGE, text: (n) => repeat('![', n), read: readMarkdown },
  { name: 'Markdown: a heading line of blanks', sizes: MESSAGE, text: (n) => `# a${' '.repeat(n - 4)}b`, read: readMarkdown },
  { name: 'HTML: "<" repeated', sizes: MESSAGE, text: (n) => repeat('<', n), read: readHtml },
  { name: 'HTML: "<br" repeated', sizes: MESSAGE, text: (n) => repeat('<br', n), read: readHtml },
  { name: 'HTML: "<!--" repeated', sizes: MESSAGE, text: (n) => repeat('<!--', n), read: readHtml },
  { name: 'HTML: "<script" repeated', sizes: MESSAGE, text: (n) => repeat('<script', n), read: readHtml },
  { name: 'HTML: "<h1>" repeated', sizes: MESSAGE, text: (n) => repeat('<h1>', n), read: readHtml },
];

await english();
const only = values.only ? new RegExp(values.only, 'i') : null;
console.log('| recipe | size | ms | size | ms | size | ms | growth |\n|---|---|---|---|---|---|---|---|');
for (const recipe of RECIPES) {
  if (only && !only.test(recipe.name)) continue;
  await recipe.read(recipe.text(recipe.sizes[0]!));
  const times: number[] = [];
  for (const n of recipe.sizes) {
    const text = recipe.text(n);
    const started = performance.now();
    await recipe.read(text);
    times.push(performance.now() - started);
  }
  const cells = recipe.sizes.map((n, i) => `${n.toLocaleString('en')} | ${times[i]!.toFixed(0)}`).join(' | ');
  console.log(`| ${recipe.name} | ${cells} | ${(times[2]! / Math.max(times[1]!, 0.001)).toFixed(1)} |`);
}
