/**
 * Screenshots of the offline demo for the README: builds the demo as `npm start` does, serves it,
 * says one message in real Chromium (the conversation a new user tries first: a name, a pet, a job,
 * a dated trip), flushes it, and captures the memories the rules extractor wrote from it, with no
 * LLM: the episode with its facts and plans, and the profile.
 *
 *   npx tsx scripts/demo-screenshot.ts [--out docs/images]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'vite';
import { serveDemo } from '../demo/serve.js';
import { launchChromium } from '../test/support/browser.js';

const REPO = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { out: { type: 'string', default: join(REPO, 'docs', 'images') } } });
const MESSAGE = "I'm Maya. I have a cat named Pixel, a grey tabby who loves sleeping on my keyboard. She is three. I work as a nurse at St. Mary hospital, mostly night shifts. Yes, next month I'm going on a trip to Japan: I fly to Tokyo on the 14th and then visit Kyoto.";

const outDir = await mkdtemp(join(tmpdir(), 'engram-demo-shot-'));
await build({ configFile: join(REPO, 'demo', 'vite.config.ts'), logLevel: 'error', build: { outDir } });
const served = await serveDemo({ dir: outDir, port: 0 });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
  await page.goto(`${served.url}#conversation`);
  await page.locator('#conversation').waitFor();
  await page.getByLabel('Session id').fill('japan-trip');
  await page.getByLabel('Session id').press('Tab');
  await page.getByLabel('Message', { exact: true }).fill(MESSAGE);
  await page.getByRole('button', { name: 'Add message' }).click();
  await page.getByRole('button', { name: 'Flush session' }).click();
  await page.getByText('Flushed: the buffered messages are now memories.').waitFor({ timeout: 120_000 });
  for (const [kind, file] of [['episode', 'demo-extraction-episode.png'], ['profile', 'demo-extraction-profile.png']] as const) {
    await page.locator('nav a[data-pane="memories"]').click();
    await page.locator('#memories').waitFor();
    await page.getByLabel('Kind').selectOption(kind);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('#memories .records li').first().waitFor();
    await page.locator('#memories .records li').first().getByRole('button', { name: /^Open/ }).click();
    const dialog = page.locator('dialog.record-dialog');
    await dialog.waitFor();
    await dialog.screenshot({ path: join(values.out!, file) });
    await dialog.getByRole('button', { name: 'Close' }).click();
    process.stdout.write(`${join(values.out!, file)}\n`);
  }
} finally {
  await browser.close();
  await served.close();
  await rm(outDir, { recursive: true, force: true });
}
