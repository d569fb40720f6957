/**
 * A list written under a line that introduces it ("Some popular systems include:", then "* IKEA's
 * PAX", "* California Closets") read as one sentence: the line alone says nothing ("… include."),
 * and the items alone have no verb, so neither would make a fact. Each item gives its head, the
 * words before its own colon ("**Start small**: pick one room …") or the item itself when it is a
 * few words; a list whose items are sentences of their own is left as it is.
 */

/** A list item's mark: a bullet, or a number or letter with a stop or bracket. */
const ITEM = /^\s*(?:[-*•]|\d{1,2}[.)]|[a-z][.)])\s+/i;
/** The most words an item's head may have to be named in the sentence that introduces it. */
const HEAD_WORDS = 8;
/** Words that open a sentence rather than a name. */
const SUBJECT = /^(?:i|i'm|i've|i'd|i'll|we|you|he|she|they|it|my|our|your|his|her|their|this|that|there|these|those)$/i;
/** A line's ending that the list completes without a colon ("… include IKEA, Elfa and …"). */
const RUNS_ON = /\b(?:include|includes|including|included|such as|like|are|is|were|was|be|by|with|to|from|following|follows|as follows|namely|e\.g\.)\s*:$/i;

/** An item's head, without its mark and emphasis, or null when the item is too long to be one. */
function head(item: string): string | null {
  const text = item.replace(ITEM, '').replace(/\*\*|__|`/g, '').trim();
  const named = /^([^:]{1,80}):\s*\S/.exec(text)?.[1] ?? text.replace(/[.;,]+$/, '');
  const words = named.trim().split(/\s+/);
  // "I sleep better on trains": an item that opens with a subject is a sentence, not a name.
  if (named === text && SUBJECT.test(words[0]!)) return null;
  return words.length <= HEAD_WORDS && /\p{L}/u.test(named) ? named.trim() : null;
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
    out.push(line);
    if (!line.endsWith(':') || ITEM.test(line)) continue;
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
    out[out.length - 1] = RUNS_ON.test(line) ? `${lead} ${listWords(heads)}.` : `${lead} (${listWords(heads)}).`;
  }
  return out;
}
