/** Reads the media fixtures from disk (Node only: the browser and edge tests get them from here through their config). */
import { readFileSync } from 'node:fs';
import type { MediaFixtures } from './media-fixtures.js';

const file = (name: string) => readFileSync(new URL(`../fixtures/media/${name}`, import.meta.url)).toString('base64');

export function loadMediaFixtures(): MediaFixtures {
  return { pdf: file('two-pages.pdf'), markdown: file('garden-notes.md'), png: file('red-square.png'), wav: file('tone.wav') };
}
