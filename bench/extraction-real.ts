/**
 * `npx tsx bench/extraction-real.ts`: the rules extractor on conversations nobody wrote for it.
 * `npm run bench:extraction` scores hand-labelled fixtures; real users write longer, looser text
 * (asides, lists, pasted prompts, quoted speech), where the rules break in ways the fixtures do
 * not show. This runs the extractor over LongMemEval-S sessions (user turns, as the paper's
 * protocol adds them) and counts the facts that match a known way of breaking, each found by
 * reading samples of real output (`--both`: the assistant's turns too, as a second participant,
 * whose words are read for the pronouns and names of the user's next message):
 *
 *   - a possessive declined twice ("Sam's skills's work");
 *   - a verb that does not agree with the listener's name ("Do Assistant have …", "Assistant've");
 *   - a subordinate clause left as a claim ("Since Sam has finished …", "If …");
 *   - a discourse phrase left as, or in front of, a claim ("Sam said that speaking of which.");
 *   - a recurring day or a quantity read as one date ("every on 2023-07-16", "open on 2023-07-24"
 *     from "open 24/7");
 *   - a place left as "there" after a verb of being, going or working ("Sam went there": the rules
 *     resolve pronouns, not place adverbs; "are there any …" is not counted);
 *   - a past verb left without its subject ("Sam said that made lasagna …");
 *   - a verb left to the other speaker ("Sam would love to.");
 *   - a name read into a pronoun before a judgement: wrong where the "it" stands for what follows
 *     ("Africa is a global problem that …", "UV is also important to sign …"), right where it
 *     stands for the name ("Tikka Masala is always a favorite"); the pattern cannot tell them apart;
 *   - a date put in a noun phrase's place ("in the on 2023-05-26" of "in the past 3 days", "a
 *     pretty active on 2023-05-27", "on 2023-04-22 on 2023-05-22" of "… in 27 minutes");
 *   - the line that introduced a list, left without it ("Some popular options include.");
 *   - a pronoun in a title read as a person ("The Last of Sam and others Part II");
 *   - one name as a verb's subject and its object ("Gifts loved gifts" of "they loved them");
 *   - the speaker's stance on saying something, alone or in front of it ("Sam has to say.",
 *     "Though Sam must say, the hike was …");
 *   - a question typed without its mark read as a statement ("Sam said that how much is 10 + 5.").
 *
 * A pattern can only count what it matches: these are floors on breakage, not its rate (and the
 * last one also counts facts that are right). Read the examples (`--show N`) before trusting a
 * change in the counts.
 *
 * `--sample N --seed S` prints instead one fact (not a question) from each of N sessions drawn at
 * random, with the words it came from, both sides: the sample to read and judge by hand.
 *
 * `--dump FILE` also writes everything the extractor wrote for those sessions, one line each: every
 * episode's subject, summary and narrative, and its facts and foresight, each line led by the session
 * id, the episode's owner and the kind. Dumped before and after a change to the write path, `diff`
 * shows every line it changed: what to read before trusting the counts, and before re-measuring
 * retrieval (a dump byte-identical over the sessions of a benchmark says the change wrote no text
 * there differently; profiles and the dates kept beside a fact are not in it).
 *
 *   npx tsx bench/extraction-real.ts [--sessions 600] [--both] [--show 20] [--data PATH] [--dump FILE]
 *   npx tsx bench/extraction-real.ts --sample 60 --seed 101
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BufferedMessage } from '../src/records.js';
import { createRulesExtractor } from '../src/write/rules-extractor.js';
import { loadDataset, parseHaystackDate } from './longmemeval.js';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '600' }, show: { type: 'string', default: '0' }, both: { type: 'boolean', default: false }, sample: { type: 'string' }, seed: { type: 'string', default: '1' }, data: { type: 'string' }, dump: { type: 'string' } } });

const PATTERNS: Record<string, RegExp> = {
  'possessive declined twice': /'s's\b/,
  'verb disagrees with the named listener': /\b(?:Do|do|Are|are|Have|have|Were|were) Assistant\b|(?<!\b(?:[Dd]oes|[Dd]id|[Cc]an|[Cc]ould|[Ww]ill|[Ww]ould|[Ss]hould|[Mm]ay|[Mm]ight|[Mm]ust|[Ll]et|[Hh]elp|[Mm]ake) )\bAssistant (?:are|have|were)\b|\bAssistant['’](?:re|ve)\b/,
  // "If a wound has been bandaged.", "Sam said that however, if the person is fasting.": a clause
  // of time, cause or condition with nothing it belongs to.
  'subordinate clause as a claim': /^(?:Since|Because|Although|Though|While|When|If|Unless|Once|Whether) [^,]*$|\bsaid that (?:(?:\w+ ){0,2}\w+, )?(?:since|because|although|though|while|when|if|unless|once|whether) [^,]*$/,
  'discourse phrase left in': /said that (?:speaking of|by the way)|^By the way, |^Speaking of/,
  'recurring day as one date': /\b(?:every|each) (?:on|in) \d{4}|\d{4}-\d\d-\d\d (?:evenings|mornings|afternoons|nights)\b/,
  'quantity as a date': /\b\d+\/\d+\b.*\bon \d{4}-\d\d-\d\d|\bis (?:open )?on \d{4}-\d\d-\d\d\.$/,
  'a place left as "there"': /\b(?:been|work|works|worked|working|live|lives|lived|living|stay|stayed|staying|go|goes|went|going|moved|move|travel|traveled|travelled|visit|visited|met|meet|bought|buy|eat|ate|study|studied|volunteer|volunteered|[a-z]+ist|analyst|engineer|manager|nurse|teacher) there\b(?! (?:is|are|was|were|will|has|have|had)\b)/,
  // "Sam said that made lasagna …", "Sam said that based on this, …": a past form whose subject was left out.
  'a past verb left without its subject': /\bsaid that (?:\w+ed|made|bought|found|felt|left|met|thought|told|spent|brought|got|went|took|saw|ran|ate)\b(?! (?:is|are|was|were|has|have|had)\b)/,
  // "Sam would love to.", "Sam really will.": a reply whose verb is the other person's.
  'a verb left to the other speaker': /\bto\.$|(?<!\bto )\b(?:will|would|can|could|should|do|does|did)\.$/,
  // The rules spell out "it's" after a name they put in ("Hindi is", "Hindi has been"), so both forms count.
  'a name read into a pronoun before a judgement': /^(?!(?:It|Sam|Assistant|There|Here|This|That|What)\b)[A-Z]\w*(?: [A-Z]\w*)*(?:'s| is| has) (?:important|okay|ok|worth|been a|a good idea|hard|easy|amazing|interesting|fascinating|frustrating|really|so|just|always|also)\b/,
  // "in the on 2023-05-26" (of "in the past 3 days"), "a on 2023-05-27", "on X on Y": a date put in a noun phrase's place.
  'a date in a noun phrase\'s place': /\b(?:the|a|an|this|last|next|of) (?:on|in) (?:\d{4}|the week of|January|February|March|April|May|June|July|August|September|October|November|December)\b|\b(?:on|in) \d{4}(?:-\d\d){0,2} (?:on|in) (?:\d{4}|the week)/,
  // "Some popular options include.", "… defined as follows.": the line before a list, without the list.
  'a line that introduced a list, alone': /\b(?:include|includes|including|following|follows|such as|namely|(?:things|questions|features|activities|foods|places) like)\.$/,
  // "The Last of Sam and others Part II": a pronoun in a title read as the speaker.
  'a pronoun in a title read as a person': /\b[A-Z]\w* (?:of|and) (?:Sam|Assistant)(?: and others)? [A-Z]/,
  // "Sam has to say.", "Though Sam must say, …": "I have to say", "I must admit" kept as a claim.
  'a stance on saying it, kept': /\b(?:has to|have to|must|will|should) (?:say|admit|confess|be honest)(?:\.$|, )/,
  // "Sam said that how much is 10 + 5.", "How to improve Sam's fashion style.": a question typed without its mark.
  'a question read as a statement': /^(?:\w+ said that )?(?:what|how|why|where|which|who|when) (?:is|are|was|were|do|does|did|can|could|should|would|will|to|much|many)\b.*\.$/i,
  // "Gifts loved gifts", "Humans told humans of their history": a subject pronoun and the object of its verb read as one name.
  'one name as a verb\'s subject and object': /^(?!(?:Sam|Assistant|User)\b)(\p{Lu}[\p{L} ]{0,40}?) (?:(?:also|then|really|just|always|often|never|have|has|had) )?(?!(?:said|mentioned|realized|noticed|thought|knew|felt|hoped|wished|guessed|decided|figured|found|learned|learnt|saw|heard|showed|believed|worried|assumed|imagined|pretended|guaranteed|promised|remembered)\b)\w+(?:ed|ew|ave|old|ook|ught) \1(?=[ .,;!?]|$)(?! that\b)/iu,
};

const dataset = await loadDataset(values.data);
// Each session once, in the dataset's order, with the date it was held.
const sessions = new Map<string, string>();
for (const q of dataset.questions) q.haystack_session_ids.forEach((id, i) => sessions.has(id) || sessions.set(id, q.haystack_dates[i]!));
const extractor = createRulesExtractor();

/** The session's messages as a segment, both sides or the user's alone. */
function segmentOf(id: string, date: string, both: boolean, n: number) {
  const at = parseHaystackDate(date);
  const turns = (dataset.sessions[id] ?? []).filter((t) => (both || t.role === 'user') && t.content.trim());
  const messages = turns.map((t, j) => {
    const user = t.role === 'user';
    return {
      id: `m${j}`, app_id: 'default', project_id: 'default', session_id: id, seq: j, sender_id: user ? 'user' : 'assistant', sender_name: user ? 'Sam' : 'Assistant',
      role: user ? 'user' : 'assistant', timestamp: at + j * 1000, content: t.content,
    } as BufferedMessage;
  });
  return { id: `mc${n}`, app_id: 'default', project_id: 'default', session_id: id, messages };
}

if (values.sample) {
  // A fixed linear congruential generator, so a seed draws the same sample on every machine.
  let state = Number(values.seed);
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const all = [...sessions];
  const lines: string[] = [];
  for (let n = 0; n < Number(values.sample); n++) {
    const [id, date] = all[Math.floor(random() * all.length)]!;
    const out = await extractor.extract(segmentOf(id, date, true, n));
    const facts = out.episodes.flatMap((e) => e.facts.filter((f) => !/ asked: /.test(f.content)));
    const fact = facts[Math.floor(random() * facts.length)];
    if (fact) lines.push(`- ${fact.content}
     << ${fact.evidence.slice(0, 200)}`);
  }
  console.log(lines.join('\n'));
  process.exit(0);
}

const chosen = [...sessions].slice(0, Number(values.sessions));
const counts = new Map(Object.keys(PATTERNS).map((k) => [k, 0]));
const examples: string[] = [];
let facts = 0;
let messages = 0;
const dump: string[] = [];
/** One dump line: the session, the episode's owner, the kind, the text with its line breaks escaped. */
const dumpLine = (id: string, owner: string, kind: string, text: string) => dump.push(`${id} ${owner} ${kind} ${JSON.stringify(text)}`);
for (const [n, [id, date]] of chosen.entries()) {
  const segment = segmentOf(id, date, values.both!, n);
  messages += segment.messages.length;
  const out = await extractor.extract(segment);
  if (values.dump) {
    for (const e of out.episodes) {
      for (const [kind, text] of [['subject', e.subject], ['summary', e.summary], ['episode', e.episode]] as const) dumpLine(id, e.owner_id, kind, text);
      for (const f of e.facts) dumpLine(id, e.owner_id, 'fact', f.content);
      for (const f of e.foresight) dumpLine(id, e.owner_id, 'foresight', f.content);
    }
  }
  for (const fact of out.episodes.filter((e) => e.owner_id === 'user').flatMap((e) => e.facts)) {
    facts++;
    for (const [name, pattern] of Object.entries(PATTERNS)) {
      if (!pattern.test(fact.content)) continue;
      counts.set(name, counts.get(name)! + 1);
      if (examples.length < Number(values.show)) examples.push(`${name}: ${fact.content}\n    from: ${fact.evidence}`);
    }
  }
}
console.log(`rules extractor on ${chosen.length} LongMemEval-S sessions (${messages} ${values.both ? 'user and assistant' : 'user'} messages): ${facts} facts of the user`);
for (const [name, n] of counts) console.log(`${String(n).padStart(5)}  ${((100 * n) / Math.max(1, facts)).toFixed(2)} %  ${name}`);
if (examples.length) console.log(`\n${examples.join('\n')}`);
if (values.dump) {
  writeFileSync(values.dump, `${dump.join('\n')}\n`);
  console.log(`\n${dump.length} lines written to ${values.dump}`);
}
