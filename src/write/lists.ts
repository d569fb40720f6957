/**
 * A list written under a line that introduces it ("Some popular systems include:", then "* IKEA's
 * PAX", "* California Closets") read as one sentence: the line alone says nothing ("… include."),
 * and the items alone have no verb, so neither would make a fact. Each item gives its head, the
 * words before its own colon ("**Start small**: pick one room …") or the item itself when it is a
 * few words; a list whose items are sentences of their own is left as it is.
 */

import { escapeRegExp } from './regexp.js';

/** A list item's mark: a bullet, or a number or letter with a stop or bracket. */
const ITEM = /^\s*(?:[-*•]|\d{1,2}[.)]|[a-z][.)])\s+/i;
/** The most words an item's head may have to be named in the sentence that introduces it. */
const HEAD_WORDS = 8;
/**
 * The most heads one sentence names. A longer list is told in several sentences, each with the
 * line that introduces it: every item is kept, and no fact grows with the list (20,000 items
 * would otherwise make one claim of a quarter megabyte that names everything and answers nothing).
 */
const HEADS_PER_SENTENCE = 10;
/** Words that open a sentence rather than a name. */
const SUBJECT = /^(?:i|i'm|i've|i'd|i'll|we|you|he|she|they|it|my|our|your|his|her|their|this|that|there|these|those)$/i;
/** A line's ending that the list completes without a colon ("… include IKEA, Elfa and …"). */
const RUNS_ON = /\b(?:include|includes|including|included|such as|like|are|is|were|was|be|by|with|to|from|following|follows|as follows|namely|e\.g\.)\s*:$/i;

/**
 * A list item read apart: its mark, its text without mark and emphasis, and, for "head: rest"
 * ("**Start small**: pick one room"), the words before its own colon and those after.
 */
function itemParts(item: string): { mark: string; text: string; label?: string; rest?: string } {
  const mark = ITEM.exec(item)?.[0] ?? '';
  const text = item.slice(mark.length).replace(/\*\*|__|`/g, '').trim();
  const labelled = /^([^:]{1,80}):\s*(\S[\s\S]*)$/.exec(text);
  return labelled ? { mark, text, label: labelled[1]!, rest: labelled[2]! } : { mark, text };
}

/** An item's head, without its mark and emphasis, or null when the item is too long to be one. */
function head(item: string): string | null {
  const { text, label: labelled } = itemParts(item);
  const named = labelled ?? text.replace(/[.;,]+$/, '');
  const words = named.trim().split(/\s+/);
  // "I sleep better on trains.": an item that opens with a subject is a sentence, not a name.
  if (labelled === undefined && SUBJECT.test(words[0]!)) return null;
  return words.length <= HEAD_WORDS && /\p{L}/u.test(named) ? named.trim() : null;
}

/**
 * "They" opening what an item says after its head ("**Threadless**: They often have sales"). A head
 * is read as one name, and "they" would be taken for the last plural named; "he" and "she" find
 * the head already, "these" is most often a determiner ("These vaccines use …"), and "it" may stand
 * for nothing ("It's important to …").
 */
const ITEM_SUBJECT = /^they\s+(?=\p{L})/iu;

/** An item whose words after its head open with "they", said of the head: "- **Threadless**: They often have sales" is "- Threadless often have sales". */
function headAsSubject(item: string): string {
  const { mark, rest } = itemParts(item);
  if (rest === undefined || !ITEM_SUBJECT.test(rest)) return item;
  const name = head(item);
  if (name === null) return item;
  // "**Capacity**: They often have a larger capacity": a head its own words go on to describe is
  // a topic, not the things "they" are.
  const last = name.split(/\s+/).pop()!.toLowerCase();
  if (new RegExp(`\\b${escapeRegExp(last)}`, 'iu').test(rest)) return item;
  return `${mark}${name} ${rest.replace(ITEM_SUBJECT, '')}`;
}

/** Words as a sentence lists them: "A", "A and B", "A, B and C". */
export function listWords(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * The lines of a message with each introduced list folded into the line that introduces it
 * ("Some popular systems include IKEA's PAX, Elfa and California Closets."); the items' lines
 * stay, so what an item says after its head is still read. Lines are returned trimmed.
 */
export function foldLists(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const isItem = ITEM.test(line);
    out.push(isItem ? headAsSubject(line) : line);
    if (!line.endsWith(':') || isItem) continue;
    const heads: string[] = [];
    let j = i + 1;
    for (; j < lines.length && ITEM.test(lines[j]!); j++) {
      const h = head(lines[j]!);
      if (h === null) break;
      heads.push(h);
    }
    // Every item up to the list's end must have a head, or the list is one of sentences.
    if (heads.length < 2 || (j < lines.length && ITEM.test(lines[j]!))) continue;
    const lead = line.replace(/\s*:$/, '');
    // "… include IKEA and Elfa.", or the list in brackets ("Here are some tips (Start small and Use
    // bins)."): a colon would part the line from its list again when the sentence is cut into clauses.
    const runsOn = RUNS_ON.test(line);
    const told = (part: string[]) => (runsOn ? `${lead} ${listWords(part)}.` : `${lead} (${listWords(part)}).`);
    const sentences: string[] = [];
    for (let k = 0; k < heads.length; k += HEADS_PER_SENTENCE) sentences.push(told(heads.slice(k, k + HEADS_PER_SENTENCE)));
    out[out.length - 1] = sentences.join(' ');
  }
  return out;
}
