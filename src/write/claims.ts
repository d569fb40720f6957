/**
 * One sentence → the claims a person would note down from it: each clause rewritten in the third
 * person and attributed to its speaker ("I fly to Tokyo on the 14th" → "Maya flies to Tokyo on
 * 2026-12-14."), pronouns replaced by the name they stand for, relative dates made absolute.
 * Clauses that say nothing on their own (greetings, "That sounds lovely!", a pronoun with nothing
 * to stand for, a question, an instruction) give no claim: the episode keeps their words.
 */
import { bareDate, findDates, spoken, type ResolvedDate } from './dates.js';
import { INTERJECTIONS, Mentions, noteMentions } from './mentions.js';
import { resolvePronouns, romanNumeral } from './pronouns.js';
import { calledNames, type CalledNames } from './social-formula.js';
import type { Sentence, Token } from './sentences.js';
import { asStatement } from './subordinate.js';
import { finite, SUBJECT_OPENERS, SUBJECT_PRONOUNS } from './word-classes.js';

export interface Claim {
  content: string;
  /** The clause as spoken. */
  evidence: string;
  /** A stated plan or intention, with the date it is due when one is said. */
  plan: boolean;
  due_at: number | null;
  dates: ResolvedDate[];
  /** The clause's words, as spoken (first person), for the profile rules. */
  tokens: Token[];
  /** The clause speaks of the speaker ("I …", "my …"). */
  firstPerson: boolean;
}

export interface Speaker {
  name: string;
  /** Who "you" is in this speaker's words. */
  listener: string | null;
  /** The words the listener may be called by (`addresseeWords(listener)`), made once for a conversation. */
  addressee: CalledNames;
}

const DAY = 86_400_000;
const LEAD = new Set(['yes', 'yeah', 'yep', 'no', 'nope', 'well', 'oh', 'ah', 'so', 'ok', 'okay', 'actually', 'anyway', 'also', 'and', 'but', 'haha', 'hahaha', 'lol', 'lmao', 'omg', 'tbh', 'um', 'uh', 'hmm', 'btw', ...INTERJECTIONS, 'honestly', 'sure', 'right', 'wow', 'hey', 'hi', 'hello', 'plus', 'besides', 'oh,']);
/** Chat words that close a clause without adding to it ("I'd do the same tbh", "… lol"). */
const TAIL = new Set(['btw', 'lol', 'lmao', 'haha', 'hahaha', 'tho', 'though', 'actually', 'tbh', 'imo', 'imho', 'xd']);
/** Reactions that open a reply ("Great, I'll …", "Perfect! …"), dropped when punctuation follows them. */
const REACTIONS = new Set(['great', 'perfect', 'cool', 'nice', 'awesome', 'thanks', 'lovely', 'wonderful', 'sorry', 'true', 'mostly', 'sure', 'right', 'exactly', 'totally', 'indeed', 'fun', 'congrats', 'yay', 'aww', 'ugh', 'omg']);
const MODALS = new Set(['will', 'would', 'can', 'could', 'should', 'may', 'might', 'must', 'shall', 'ca', 'wo']);
const THIRD: Record<string, string> = { am: 'is', have: 'has', do: 'does', were: 'was', are: 'is', go: 'goes' };
const FIRST_PERSON = new Set(['i', 'my', 'me', 'we', 'our']);
const CONTENT_TAGS = new Set(['NOUN', 'PROPN', 'NUM', 'ADJ', 'PRON']);
const CONJUNCTIONS = new Set(['and', 'but', 'so']);
/** An auxiliary before "I" or "you", as it agrees with the name put in their place ("Do you" → "Does Mel"). */
const AGREE_THIRD: Record<string, string> = { do: 'does', am: 'is', are: 'is', have: 'has', were: 'was' };
/** "to", and the chat forms that end in it ("gonna sell it and get a new one" keeps "get"). */
const TO_WORDS = new Set(['to', 'gonna', 'wanna', 'gotta']);
const YOU_PLURAL = new Set(['guys', 'folks', 'lot']);
/** Words after "you" that make it several people only when nothing they could quantify follows ("you all should", not "send you all the files"). */
const YOU_QUANTIFIED = new Set(['all', 'two', 'both']);

/** Whether the "you" at `i` opens "you guys", "you all", "you two": the listener and others. */
function youPlural(tokens: readonly Token[], i: number): boolean {
  const next = tokens[i + 1]?.lower ?? '';
  if (YOU_PLURAL.has(next)) return true;
  const after = tokens[i + 2];
  return YOU_QUANTIFIED.has(next) && (!after || ['PUNCT', 'VERB', 'AUX', 'ADV'].includes(after.pos));
}
const NOMINAL_TAGS = new Set(['NOUN', 'PROPN', 'ADJ']);
const PRESENT_FORMS = new Set(['am', 'are', "'re", "'m", 'ca', 'wo', "n't"]);
/** Words of a plan. "going to" after a verb of liking or remembering is a place one goes ("I remember going to Rome"), no plan. */
const FUTURE = /\b(will|shall|(?<!\b(?:remember|remembered|recall|recalled|miss|missed|love|loved|enjoy|enjoyed|like|liked|hate|hated|stopped|quit) )going to|gonna|plan(?:ning)? to|planning on|intend to|intending to|hope to|hoping to|aim to|about to|scheduled|booked|want to|would like to|have to|need to|tomorrow|next)\b/i;
const SMALL_TALK = /^(thanks?|thank you|you['’]?re welcome|no problem|good (?:morning|night|evening|afternoon)|see you|bye|goodbye|sounds good|that sounds|that['’]?s (?:great|nice|lovely|awesome|cool|good|wonderful|amazing|fun|interesting|exciting|too bad|a shame|sad)|how (?:nice|lovely|cool|fun)|nice|great|cool|awesome|lovely|wonderful|me too|same here|of course|glad to hear|good to know|fingers crossed|(?:i )?(?:ca n['’]?t|can ?not|could n['’]?t) believe it|(?:i )?(?:gotta|got to|have to|need to|must) (?:go|run|dash|head out|head off|get going)|talk (?:to you )?(?:later|soon)|catch you (?:later|soon)|speak soon|ttyl|take care|(?:(?:it['’]?s|it was|so) )?(?:good|great|nice|lovely|happy|glad) to (?:see|hear from|meet|talk to|catch up with|chat with) you)\b/i;
/** A greeting to the listener, however long ("It was so nice to hear from you again"): no fact about anyone. */
const GREETING = /^(?:it['’]?s |it is |it was |it['’]?s been |it has been )?(?:so |really |very |always |such )?(?:good|great|nice|lovely|happy|glad|fun|a pleasure|a joy) to (?:see|hear from|meet|talk to|catch up with|chat with) you\b/i;
/** Verbs that open a task for the assistant when they come first ("write …", "list …", "select …"). */
const TASK_VERBS = new Set(['write', 'rewrite', 'list', 'provide', 'give', 'create', 'design', 'explain', 'describe', 'select', 'generate', 'summarize', 'summarise', 'translate', 'answer', 'compose', 'draft', 'outline', 'suggest', 'recommend', 'continue', 'pretend', 'imagine', 'act', 'include', 'add', 'remove', 'format', 'convert', 'calculate', 'compare', 'analyze', 'analyse', 'identify', 'classify', 'rank', 'name', 'complete', 'fill', 'choose']);
/** Quotation marks: the words between them are kept as said. */
const QUOTES = new Set(['"', '“', '”']);
/** Verbs whose object takes a bare verb ("let you know", "help you find"): "you" there is no subject. */
const BARE_INFINITIVE = new Set(['let', 'make', 'help', 'see', 'hear', 'watch', 'have', 'bid', 'feel', 'notice', 'get']);

/** 3rd person singular of a verb in its base form ("fly" → "flies", "go" → "goes"). */
export function thirdPerson(verb: string): string {
  const lower = verb.toLowerCase();
  if (Object.hasOwn(THIRD, lower)) return THIRD[lower]!;
  if (/(s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`;
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Splits a sentence's tokens into clauses: at ":" and ";", and before "and/but/so I …" (a new subject and its verb). */
function clauses(tokens: readonly Token[]): Token[][] {
  const out: Token[][] = [];
  let current: Token[] = [];
  const newSubjectAt = (k: number): boolean => {
    const t = tokens[k];
    if (!t) return false;
    if (t.pos === 'PRON' && SUBJECT_PRONOUNS.has(t.lower)) {
      const next = tokens[k + 1]?.pos;
      return next === 'VERB' || next === 'AUX' || next === 'ADV';
    }
    // "my husband is …", "Luna is …": a subject of its own, then its verb within a few words
    if (SUBJECT_OPENERS.has(t.lower) || t.pos === 'PROPN') {
      for (let j = k + 1; j < Math.min(tokens.length, k + 4); j++) {
        const pos = tokens[j]!.pos;
        if (pos === 'VERB' || pos === 'AUX') return true;
        if (!NOMINAL_TAGS.has(pos)) return false;
      }
    }
    return false;
  };
  // Whether the clause so far holds a verb, kept as it grows: asking at every "and" cost its length.
  let hasVerb = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const conj = CONJUNCTIONS.has(t.lower) && hasVerb;
    const afterComma = current[current.length - 1]?.text === ',';
    if (t.text === ':' || t.text === ';' || t.text === '—' || (conj && (tokens[i + 1]?.pos === 'PRON' ? newSubjectAt(i + 1) : afterComma && newSubjectAt(i + 1)))) {
      if (afterComma) current.pop();
      if (current.length) out.push(current);
      current = [];
      hasVerb = false;
      continue;
    }
    if (t.text === ',' && tokens[i + 1]?.pos === 'PRON' && newSubjectAt(i + 1) && current.length > 2 && hasVerb) {
      out.push(current);
      current = [];
      hasVerb = false;
      continue;
    }
    current.push(t);
    if (t.pos === 'VERB' || t.pos === 'AUX') hasVerb = true;
  }
  if (current.length) out.push(current);
  return out;
}

/** Words that open a relative clause inside an appositive. */
const RELATIVES = new Set(['who', 'which', 'that', 'whose', 'whom', 'where']);

/** Whether the words after an appositive's comma hold a verb of the sentence's own before any relative word: an auxiliary, or a verb after a second comma. */
function ownVerb(rest: readonly Token[]): boolean {
  let comma = false;
  for (const t of rest) {
    if (RELATIVES.has(t.lower)) return false;
    if (t.pos === 'AUX' || (t.pos === 'VERB' && comma)) return true;
    if (t.text === ',') comma = true;
  }
  return false;
}

/** "a cat named Pixel, a grey tabby who …": the appositive becomes its own clause ("Pixel is a grey tabby who …"). */
function appositives(clause: Token[]): Token[][] {
  for (let i = 1; i < clause.length - 2; i++) {
    if (clause[i]!.text !== ',' || clause[i - 1]!.pos !== 'PROPN' || !['a', 'an'].includes(clause[i + 1]!.lower)) continue;
    const name = clause[i - 1]!;
    const rest = clause.slice(i + 1).filter((t, k, all) => !(k === all.length - 1 && t.pos === 'PUNCT'));
    if (!rest.some((t) => t.pos === 'NOUN')) continue;
    // "Luna, a beagle who loves walks" is a name and what it is; "if there is no Miswak, a cloth
    // can be used" is a clause of its own: a verb before any "who" or "which" is no appositive's.
    // A participle ("a drug used to treat covid") describes; an auxiliary, or a verb after the
    // appositive's closing comma ("Baidu, a search engine, increased …"), is the sentence's own.
    if (ownVerb(rest)) continue;
    const is: Token = { text: 'is', lower: 'is', pos: 'AUX', lemma: 'be', space: ' ' };
    return [clause.slice(0, i), [{ ...name, space: '' }, is, { ...rest[0]!, space: ' ' }, ...rest.slice(1)]];
  }
  return [clause];
}

/** Phrases that link a clause to the talk around it and say nothing themselves ("Speaking of which, …"). */
const DISCOURSE = /^(?:speaking of(?: \S+){1,3}|by the way|that being said|having said that|with that said|that said|in fact|to be honest|honestly speaking|of course|for example|for instance|in addition|on the other hand|as a result|at the same time|come to think of it|to be fair|in any case|after all|in other words|as well|then again|all in all|first of all|to be clear|on top of that|apart from that|other than that|you know|as you know|i mean|you see|mind you|let me see|let's see|guess what|you know what|believe it or not|no way|no kidding|for real|oh wow|oh my(?: god| gosh| goodness)?|my (?:god|gosh|goodness))$/i;
/** The speaker's stance on saying what follows ("Though I must say, …", "I have to admit I …"), read with contractions spelled out. */
const STANCE = /^(?:(?:though|although|still) )?(?:i (?:must|have to|have got to|will|should) (?:say|admit|confess|be honest)|(?:i am )?not going to lie)$/;

const subjectPronoun = (t: Token | undefined) => t?.pos === 'PRON' && SUBJECT_PRONOUNS.has(t.lower);

/**
 * The length of a discourse phrase opening the clause at `from`, with its comma ("By the way, …"),
 * or 0. A stance needs no comma before the subject of what it says ("I have to admit (that) I
 * finished it": read as "have to", it was a plan).
 */
function discourseLead(tokens: readonly Token[], from: number): number {
  for (let n = 2; n <= 6 && from + n < tokens.length; n++) {
    const next = tokens[from + n]!;
    const comma = next.text === ',';
    const that = next.lower === 'that' && subjectPronoun(tokens[from + n + 1]);
    if (!comma && !that && !subjectPronoun(next)) continue;
    const words = tokens.slice(from, from + n).map((t) => t.lower).join(' ');
    if (STANCE.test(words)) return comma || that ? n + 1 : n;
    if (comma && DISCOURSE.test(words)) return n + 1;
  }
  return 0;
}

/**
 * The words a speaker calls the listener by, lower-case: each word of the listener's name and, for
 * a capitalised word only, its beginnings of three letters or more ("Mel" for Melanie).
 */
export function addresseeWords(listener: string | null): CalledNames {
  return calledNames(listener ? [listener] : []);
}

/** The number of tokens of the listener's name at `k` ("Harold", "Mary Ann"), or 0. */
function nameAt(tokens: readonly Token[], k: number, addressee: CalledNames): number {
  let n = 0;
  while (n < 3 && k + n < tokens.length) {
    const t = tokens[k + n]!;
    if (!/^\p{Lu}/u.test(t.text) || !(addressee.names.has(t.lower) || addressee.short.has(t.lower))) break;
    n++;
  }
  return n;
}

/**
 * Drops discourse words around a clause: "Yes, …", "Actually …", "Speaking of which, …", "… btw",
 * "… though", and the listener called by name ("Oh, Harold, now I'm crying too", "… too, Mel!",
 * "Congratulations again, Leila, I am so proud of you"):
 * a vocative is no part of the claim, and left in ("Harold, now Evelyn is crying too.") it made
 * the claim match any question that names Harold.
 */
function stripLead(tokens: Token[], addressee: CalledNames): Token[] {
  let i = 0;
  const lead = (k: number) => LEAD.has(tokens[k]!.lower) || tokens[k]!.pos === 'INTJ' || (REACTIONS.has(tokens[k]!.lower) && [',', '!', '.'].includes(tokens[k + 1]?.text ?? ''));
  // The listener's name before a comma or an exclamation mark opens the clause as a call, not its subject.
  const vocative = (k: number) => {
    const n = nameAt(tokens, k, addressee);
    return n > 0 && [',', '!'].includes(tokens[k + n]?.text ?? '') ? n : 0;
  };
  // Words and phrases in any order: "Oh, by the way, …", "By the way, actually …".
  for (let before = -1; before !== i; ) {
    before = i;
    i += discourseLead(tokens, i);
    i += vocative(i);
    while (i < tokens.length && (lead(i) || (tokens[i]!.pos === 'PUNCT' && i > 0 && i < 3) || tokens[i]!.text === ',')) i++;
  }
  let end = tokens.length;
  const tail = (k: number) => tokens[k]!.pos === 'PUNCT' || TAIL.has(tokens[k]!.lower);
  let k = end - 1;
  while (k > i && tail(k)) k--;
  if (k < end - 1 && tokens.slice(k + 1).some((t) => t.pos !== 'PUNCT')) end = k + 1;
  // "…, Harold." / "… too, Mary Ann!": the name after the clause's last comma, and nothing else.
  let last = end - 1;
  while (last > i && tokens[last]!.pos === 'PUNCT') last--;
  for (let n = 1; n <= 3 && last - n >= i; n++) {
    if (tokens[last - n]!.text === ',' && nameAt(tokens, last - n + 1, addressee) >= n) {
      end = last - n;
      break;
    }
  }
  // "Congratulations again, Leila, I am so proud of you": the name between two commas, with the first.
  const out: Token[] = [];
  for (let k = i; k < end; k++) {
    const n = tokens[k]!.text === ',' ? nameAt(tokens, k + 1, addressee) : 0;
    // A name after another ("Peg, Leila, and Owen") is one of those listed, not a call.
    const left = tokens[k - 1];
    const listed = left !== undefined && /^\p{Lu}/u.test(left.text) && (k - 1 > i || left.pos === 'PROPN');
    if (n > 0 && !listed && tokens[k + 1 + n]?.text === ',') {
      k += n;
      continue;
    }
    out.push(tokens[k]!);
  }
  return out;
}

interface Piece {
  text: string;
  space: string;
}

/** Prepositions a date phrase replaces together with its own ("on Friday" → "on 2026-12-04"). */
const DATE_PREPOSITIONS = ['on', 'in', 'at', 'during'];
/** Prepositions after which a date is written without its own ("since 2026-12-04", "of February 2026"). */
const BARE_AFTER = new Set(['of', 'since', 'by', 'until', 'till', 'before', 'after', 'from', 'around', 'through', 'between', 'to', 'for', 'within']);
/** A span counted back or ahead from the day it was said ("the past 3 days", "the next few months"). */
const SPAN = /^(?:past|last|previous|next|coming|following)\s+(?:(?:\d+|few|couple|several|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:of\s+)?)?\w+$|^past\s+\w+$/i;

/**
 * How a date phrase goes into a claim, given the pieces written before it (which it may take
 * away: its preposition, and an article between them): replaced by the absolute date as a person
 * writes it ("on 2026-12-04"), or, inside a noun phrase, kept as said and followed by the date
 * ("in the past 3 days (since 2026-11-27)", "has the weekend (2026-12-05) off"); after "that" or
 * "those" the words point at a time named before, which this phrase does not hold.
 */
function datePlace(pieces: Piece[], date: ResolvedDate, now: number): { keep: boolean; note?: string; bare?: boolean; space?: string | undefined } {
  const last = pieces[pieces.length - 1]?.text.toLowerCase();
  const before = pieces[pieces.length - 2]?.text.toLowerCase();
  if (last === 'that' || last === 'those' || last === 'these') return { keep: true };
  let space: string | undefined;
  if (last === 'the') {
    if (SPAN.test(date.phrase)) return { keep: true, note: `${date.at < now ? 'since' : 'until'} ${date.precision === 'week' ? 'the ' : ''}${date.label}` };
    if (!before || !DATE_PREPOSITIONS.includes(before)) return { keep: true, note: date.label };
    space = pieces.pop()!.space; // "on the 22nd of April" → "on 2026-04-22"
  } else if (last === 'this' || last === 'last' || last === 'next' || last === 'coming') {
    space = pieces.pop()!.space; // "which I completed this June" → "completed in June 2026"
  }
  const prev = pieces[pieces.length - 1]?.text.toLowerCase();
  if (prev && DATE_PREPOSITIONS.includes(prev)) space = pieces.pop()!.space;
  // "the weekend of August 20th", "since last week": the preposition said stays, the date follows it bare.
  else if (prev && BARE_AFTER.has(prev)) return { keep: false, bare: true, space };
  return { keep: false, space };
}

/** Character offsets of each token in `join(tokens)`. */
function offsets(tokens: readonly Token[]): number[] {
  const out: number[] = [];
  let at = 0;
  tokens.forEach((t, i) => {
    if (i > 0) at += t.space.length;
    out.push(at);
    at += t.text.length;
  });
  return out;
}

/**
 * The claims of one sentence. `mentions` carries the segment's names forward; the sentence's own
 * names are registered before its pronouns are resolved, so "my sister Ana said she …" works.
 */
export function claimsOf(sentence: Sentence, speaker: Speaker, now: number, mentions: Mentions): { claims: Claim[]; ownClauses: Token[][] } {
  if (sentence.cjk) {
    const dates = findDates(sentence.text, now);
    return { claims: [{ content: `${speaker.name} said: ${sentence.text}`, evidence: sentence.text, plan: false, due_at: null, dates, tokens: [], firstPerson: false }], ownClauses: [] };
  }
  // A question, with its mark or without it ("can you quote some sayings from the book", "how
  // much is 10 + 5": a wh-word before a verb, in a line left without any end mark; "What was once a
  // hobby is now my job." is a statement).
  const question = /[?？]\s*$/.test(sentence.text) || /^(?:can|could|would|will|do|does|did|should|have|has|are|were)\s+you\b/i.test(sentence.text) || unmarkedWhQuestion(sentence.tokens);
  // "he", "she" and "they" stand for someone talked about, not for whoever is talking or listening
  // (they are "I" and "you"): "we picked him up" is never the listener.
  const own = new Set(speaker.listener ? [speaker.name, speaker.listener] : [speaker.name]);
  const addressee = speaker.addressee;
  if (question) {
    // A question is no claim, but what was asked is worth remembering: "Maya asked: Can Assistant
    // recommend a book about Rome?" (pronouns resolved like a claim's; none if one stands for nothing).
    const tokens = stripLead(sentence.tokens, addressee);
    const resolved = resolvePronouns(tokens, mentions, own);
    noteMentions(sentence.tokens, speaker.name, mentions, speaker.listener);
    const asked = rewrite(tokens, speaker, now, resolved, true);
    return { claims: asked ? [asked] : [], ownClauses: [] };
  }
  const claims: Claim[] = [];
  const ownClauses: Token[][] = [];
  for (const [n, raw] of clauses(sentence.tokens).flatMap(appositives).entries()) {
    const stripped = n === 0 ? withDroppedSubject(stripLead(raw, addressee)) : stripLead(raw, addressee);
    const tokens = asStatement(stripped);
    if (!tokens) {
      noteMentions(stripped, speaker.name, mentions, speaker.listener);
      continue;
    }
    // Pronouns are resolved against what came before (the clause's own names count from the next
    // clause), but for a plural subject of the clause itself ("artists can share their work").
    const resolved = resolvePronouns(tokens, mentions, own, speaker);
    noteMentions(tokens, speaker.name, mentions, speaker.listener);
    if (tokens.some((t) => FIRST_PERSON.has(t.lower) && t.pos !== 'PUNCT')) ownClauses.push(tokens);
    const claim = rewrite(tokens, speaker, now, resolved);
    if (claim) claims.push(claim);
  }
  return { claims, ownClauses };
}

/** Adverbs a chat line may open with before its verb ("just got back", "finally finished"). */
const OPENING_ADVERBS = new Set(['just', 'finally', 'also', 'already', 'recently', 'literally', 'actually', 'totally', 'really', 'still', 'never', 'once', 'today', 'yesterday']);
/** Past participles that are no past tense ("done with exams", "gone for the day"): no subject is left out before them. */
const PARTICIPLES = new Set(['done', 'gone', 'seen', 'been', 'taken', 'given', 'eaten', 'written', 'known', 'shown', 'broken', 'chosen', 'spoken', 'driven', 'ridden', 'fallen', 'forgotten', 'gotten', 'born', 'grown', 'thrown', 'worn', 'hidden', 'proven']);
/** Past forms that are participles as well and do not end in "-ed". */
const IRREGULAR_PAST = new Set(['bought', 'made', 'found', 'felt', 'left', 'met', 'thought', 'told', 'said', 'spent', 'brought', 'taught', 'caught', 'won', 'sent', 'kept', 'slept', 'heard', 'paid', 'sat', 'stood', 'built', 'lost', 'had', 'read', 'put', 'cut', 'hit', 'let', 'set', 'tried']);
/** Verbs of beginning, ending and going on that take an -ing form ("finished reading"). */
const ASPECT_VERBS = new Set(['started', 'finished', 'stopped', 'quit', 'tried', 'kept', 'loved', 'enjoyed', 'hated', 'continued', 'resumed']);
/** Words that place a line in time ("yesterday", "last week", "two days ago"). */
const WHEN_WORDS = new Set(['yesterday', 'today', 'tonight', 'ago', 'last', 'earlier']);
/** Past-tense forms that are no participle too ("went", "saw"): at the head of a line they are the speaker's past. */
const PAST_ONLY = new Set(['went', 'got', 'saw', 'took', 'ate', 'ran', 'came', 'did', 'knew', 'grew', 'threw', 'wore', 'rode', 'sang', 'swam', 'broke', 'chose', 'forgot', 'spoke', 'fell', 'became', 'began', 'drove', 'flew', 'wrote', 'gave', 'was', 'were']);

/**
 * A chat line often leaves its subject out: "Just got back from the market, bought way too many
 * peaches", "Loved the movie!". A line that opens (after an adverb or two) with a verb in the past
 * tense speaks of the speaker, so "I" is put back. A base form is an instruction ("Send pics") and
 * is left as written. Three words at least, so a reaction ("Got it!") stays none.
 */
function withDroppedSubject(tokens: Token[]): Token[] {
  let v = 0;
  while (v < tokens.length && OPENING_ADVERBS.has(tokens[v]!.lower)) v++;
  // "Can't wait to try it!", "Won't forget that day": a modal and its "not" before a verb.
  if (tokens[v]?.pos === 'AUX' && MODALS.has(tokens[v]!.lower) && tokens[v + 1]?.lemma === 'not' && tokens[v + 2]?.pos === 'VERB') return withSpeaker(tokens);
  const verb = tokens[v];
  if (!verb || verb.pos !== 'VERB' || verb.lower === verb.lemma.toLowerCase() || /(?:ing|s)$/.test(verb.lower) || PARTICIPLES.has(verb.lower)) return tokens;
  // Any other past form is also a participle, which often opens a line that is no claim by the
  // speaker ("Loaded avocado toast", "Based on …", "Animated Gif showing …"): only with an object
  // that a determiner or pronoun opens is it the speaker's past ("Loved the movie", "Finished my essay").
  if (!PAST_ONLY.has(verb.lower)) {
    const pastForm = /ed$/.test(verb.lower) || IRREGULAR_PAST.has(verb.lower);
    const object = tokens[v + 1];
    // "Finished my essay"; "Just finished reading the book", "Started learning Spanish": a verb of
    // beginning or ending before an -ing form is no participle of a description.
    const gerund = ASPECT_VERBS.has(verb.lower) && ['VERB', 'NOUN'].includes(object?.pos ?? '') && /^\p{L}{2,}ing$/u.test(object!.text);
    // "Made lasagna for the first time yesterday": a line that says when is an event, not a caption.
    const dated = tokens.some((t) => WHEN_WORDS.has(t.lower));
    if (!pastForm || !(['DET', 'PRON'].includes(object?.pos ?? '') || gerund || dated)) return tokens;
  }
  if (tokens.filter((t) => t.pos !== 'PUNCT').length < 3) return tokens;
  return withSpeaker(tokens);
}

/** The clause with the speaker's "I" put before it, its first word lowered. */
function withSpeaker(tokens: Token[]): Token[] {
  const first = tokens[0]!;
  const lowered = /^\p{Lu}\p{Ll}/u.test(first.text) ? { ...first, text: first.text.charAt(0).toLowerCase() + first.text.slice(1) } : first;
  return [{ text: 'I', lower: 'i', pos: 'PRON', lemma: 'i', space: '' }, { ...lowered, space: ' ' }, ...tokens.slice(1)];
}

const WH_WORDS = new Set(['what', 'how', 'why', 'where', 'which', 'who', 'whom', 'whose', 'when']);
/** Words after "how" that ask for a measure ("how much is …", "how long does …"). */
const MEASURES = new Set(['much', 'many', 'long', 'often', 'far', 'old', 'big', 'soon']);

/** A line that asks without its mark: a wh-word, then a verb, "to" or a measure, and no end mark at all ("how to make a kite"). */
function unmarkedWhQuestion(tokens: readonly Token[]): boolean {
  const first = tokens[0];
  const last = tokens[tokens.length - 1];
  if (!first || !WH_WORDS.has(first.lower) || !last || /^[.!…"”')]$/.test(last.text)) return false;
  const next = tokens[1];
  return !!next && (next.pos === 'AUX' || next.lower === 'to' || (first.lower === 'how' && MEASURES.has(next.lower)));
}

function isContent(tokens: readonly Token[]): boolean {
  const words = tokens.filter((t) => t.pos !== 'PUNCT');
  if (words.length < 3) return false;
  if (!tokens.some((t) => t.pos === 'VERB' || t.pos === 'AUX')) return false; // a fragment
  // "Mostly walking dogs and cleaning kennels": only -ing forms, no verb that makes a sentence.
  if (!tokens.some(finite)) return false;
  if (!tokens.some((t) => CONTENT_TAGS.has(t.pos))) return false;
  const first = words[0]!;
  const last = words[words.length - 1]!;
  if (['this', 'that', 'these', 'those'].includes(first.lower) || ['this', 'that'].includes(last.lower)) return false; // points at words we do not hold
  // "I'd love to!", "I really will.", "Yes, I do": the verb is the other person's, left out.
  if (last.lower === 'to' || (last.pos === 'AUX' && BASE_AFTER.has(last.lower))) return false;
  // "Some popular options include", "defined as follows": a line whose list was not kept with it.
  if (/^(?:include|includes|including|following|follows|namely|as)$/.test(last.lower)) return false;
  if (last.lower === 'like' && words[words.length - 2]?.pos === 'NOUN') return false; // "questions like"
  if (words.length <= 6 && words.some((w) => /^(thanks?|thank|perfect|awesome|congratulations|sorry)$/i.test(w.text))) return false;
  const lowered = words.map((w) => w.lower).join(' ');
  if (DISCOURSE.test(lowered) || STANCE.test(lowered)) return false; // "Speaking of which", "I have to say" split from its clause
  // An instruction, also after a word that only softens or sequences it ("Now write …", "Please list …").
  const verb = ['now', 'please', 'also', 'then', 'just', 'next', 'finally'].includes(first.lower) ? words[1] ?? first : first;
  if (verb.pos === 'VERB' && verb.lower === verb.lemma && !['i'].includes(verb.lower)) return false;
  // A task put to the assistant, which the tagger may not read as a verb ("Select all that apply",
  // "design a study …", "… please list 5 options"): an instruction, no fact about the speaker.
  const next = words[words.indexOf(verb) + 1];
  if (TASK_VERBS.has(verb.lower) && next && !['AUX', 'VERB', 'PART'].includes(next.pos) && next.lower !== 'to' && !(next.pos === 'PRON' && !['me', 'us'].includes(next.lower))) return false;
  if (words.some((w, k) => w.lower === 'please' && TASK_VERBS.has(words[k + 1]?.lower ?? ''))) return false;
  const said = words.map((w) => w.text).join(' ');
  if (GREETING.test(said)) return false;
  return words.length > 6 || !SMALL_TALK.test(said);
}

/**
 * The auxiliary just before a pronoun that becomes a name, made to agree with it ("do I" → "does
 * Maya", "are you" → "is Mel"); the pieces written so far end with that auxiliary.
 */
function agreeAuxiliary(pieces: Piece[], tokens: readonly Token[], i: number): void {
  const prev = pieces[pieces.length - 1];
  const agreed = prev && tokens[i - 1]?.pos === 'AUX' && Object.hasOwn(AGREE_THIRD, prev.text.toLowerCase()) ? AGREE_THIRD[prev.text.toLowerCase()] : undefined;
  if (agreed) prev!.text = /^\p{Lu}/u.test(prev!.text) ? capitalise(agreed) : agreed;
}

/** Verbs whose past tense is spelled as their base form. */
const SAME_IN_PAST = new Set(['quit', 'put', 'set', 'cut', 'hit', 'let', 'read', 'hurt', 'cost', 'shut', 'spread', 'bet', 'split', 'burst', 'cast', 'fit', 'upset', 'shed']);
/** Words that place a clause in the past ("two years ago", "yesterday", "last week"). */
const PAST_TIME = /\b(?:ago|yesterday|last (?:night|week|weekend|month|year|time|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b/i;

/** Auxiliaries that, placed before the subject, leave the main verb in its base form. */
const BASE_AFTER = new Set([...MODALS, 'do', 'does', 'did']);

/** The subject at `i` follows an auxiliary that governs its verb (a question's inversion: "Can I …", "Where did I …"). */
function inverted(tokens: readonly Token[], i: number): boolean {
  let j = i - 1;
  while (j >= 0 && (tokens[j]!.pos === 'ADV' || tokens[j]!.pos === 'PART')) j--; // "Should I not …", "Did I ever …"
  const before = tokens[j];
  return before !== undefined && (before.pos === 'AUX' || before.pos === 'VERB') && BASE_AFTER.has(before.lower);
}

function rewrite(tokens: Token[], speaker: Speaker, now: number, resolved: Map<number, string> | null, question = false): Claim | null {
  // A question of a few words is small talk ("How are you?").
  if (!resolved || !(question ? tokens.filter((t) => t.pos !== 'PUNCT').length >= 5 : isContent(tokens))) return null;
  const evidence = tokens.map((t, i) => (i === 0 ? t.text : t.space + t.text)).join('').trim();
  const firstPerson = tokens.some((t) => (t.lower === 'i' && t.pos === 'PRON') || t.lower === 'my' || t.lower === 'me' || t.lower === 'we' || t.lower === 'our');
  const futureWords = FUTURE.test(evidence);
  const future = futureWords && !/\b(was|were|had|did)\b/i.test(evidence);
  // Past tense from the verbs themselves: a verb that is not its lemma and no -ing or -s form ("took", "moved").
  const past = !future && tokens.some((t) => (t.pos === 'VERB' || t.pos === 'AUX') && t.lower !== t.lemma && !/(ing|s)$/.test(t.lower) && !PRESENT_FORMS.has(t.lower));
  const dates = findDates(evidence, now, future ? false : past || undefined);
  // "I quit my job last month": a verb whose past is its base form keeps it when the clause says when, in the past.
  const pastSpelledAsBase = (verb: string) => SAME_IN_PAST.has(verb) && !future && PAST_TIME.test(evidence);
  // Token offsets serve only to find the dates' tokens: most clauses name none.
  const starts = dates.length ? offsets(tokens) : [];
  const name = speaker.name;
  // A speaker known only by an id ("user-001"): it keeps its case and is not made possessive after the subject.
  const idLike = !/^\p{Lu}/u.test(name);
  const capitalised = (body: string) => (idLike && body.startsWith(name) ? body : capitalise(body));

  const pieces: Piece[] = [];
  let moved: string | null = null;
  let conjugate = false; // the next verb belongs to the speaker as subject
  let speakerSubject = false;
  let modal = false;
  let namedSubject = false;
  let infinitive = false; // the last verb was "to …"
  let quoted = false;
  let startsWithName = false; // a name keeps its capital after "said that"
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const date = dates.length === 0 ? undefined : dates.find((d) => d.index === starts[i]);
    if (date) {
      // Replace the phrase (and its preposition) by the absolute date; a leading date moves to the end.
      let j = i;
      while (j < tokens.length && starts[j]! < date.end) j++;
      // "the Hotel Tonight app", "Black Friday": a day's word after a name is part of the name, no
      // date ("Business Administration May 2013" is one).
      const inName = pieces.length > 0 && /^\p{Lu}/u.test(t.text) && !/\d/.test(date.phrase) && tokens[i - 1]?.pos === 'PROPN' && /^\p{Lu}/u.test(tokens[i - 1]!.text);
      // "Friday was a blur", "Yesterday was my birthday": a date that is the clause's subject stays
      // where it is, the date after it; moved to the end it left the verb without a subject.
      const subject = pieces.length === 0 && ['AUX', 'VERB'].includes(tokens[j]?.pos ?? '');
      const said = inName ? { keep: true } : subject ? { keep: true, note: date.label } : datePlace(pieces, date, now);
      if (said.keep) {
        // Inside a noun phrase ("in the past 3 days", "the weekend off"): the words stay and the
        // date follows them, or nothing does where "that" points at a time named before.
        for (let k = i; k < j; k++) pieces.push({ text: tokens[k]!.text, space: tokens[k]!.space });
        if (said.note) pieces.push({ text: `(${said.note})`, space: ' ' });
      } else if (pieces.length === 0) {
        moved = spoken(date);
        if (tokens[j]?.text === ',') j++;
      } else pieces.push({ text: said.bare ? bareDate(date) : spoken(date), space: said.space ?? t.space });
      i = j - 1;
      continue;
    }
    const lower = t.lower;
    let text = t.text;
    // "The Last of Us", "Stephen King's It": a pronoun written with a capital inside a sentence is part of a title.
    if (t.pos === 'PRON' && lower !== 'i' && i > 0 && /^\p{Lu}/u.test(t.text) && /^[\p{L}\p{N}]/u.test(tokens[i - 1]!.text)) {
      pieces.push({ text, space: pieces.length ? t.space : '' });
      continue;
    }
    // Words quoted are kept as said: 'to say "I love you"' is no claim about who loves whom.
    if (QUOTES.has(t.text)) quoted = t.text === '“' ? true : t.text === '”' ? false : !quoted;
    if (quoted || (lower === 'i' && romanNumeral(tokens, i))) {
      pieces.push({ text, space: pieces.length ? t.space : '' });
      continue;
    }
    if (t.pos === 'PRON' || lower === 'my') {
      if (lower === 'i') {
        text = name;
        conjugate = true;
        speakerSubject = true;
        // "should I pick", "do I need", "did I leave": the auxiliary came first and carries the
        // tense, so the verb after the subject keeps its base form ("should Ann pick").
        modal = inverted(tokens, i);
        // "am I taking", "do I attend": the auxiliary before the speaker agrees with the name.
        agreeAuxiliary(pieces, tokens, i);
      } else if (lower === 'my' || lower === 'mine' || lower === 'our' || lower === 'ours') {
        // An id is no name to decline: "user-001 runs before their drink", not "before user-001's drink".
        text = idLike && speakerSubject && (lower === 'my' || lower === 'our') ? 'their' : `${name}'s`;
      }
      else if (lower === 'me' || lower === 'myself') text = name;
      else if (lower === 'we' || lower === 'us') {
        text = `${name} and others`;
      } else if (lower === 'you' || lower === 'your' || lower === 'yours') {
        if (!speaker.listener) return null;
        text = lower === 'you' ? speaker.listener : `${speaker.listener}'s`;
        // "you guys", "you all", "you two": the listener and others, as "we" is the speaker and others.
        if (lower === 'you' && youPlural(tokens, i)) {
          text = `${speaker.listener} and others`;
          i++;
          if (pieces.length === 0 && ['VERB', 'AUX'].includes(tokens[i + 1]?.pos ?? '')) namedSubject = true; // "You guys should come" → "Mel and others should come
        } else if (lower === 'you') {
          agreeAuxiliary(pieces, tokens, i); // "Do you have …?" → "Does Mel have …?"
          // "you" as a subject ("you were right", "after you have built …"), not an object ("let you know").
          if (!conjugate && ['VERB', 'AUX'].includes(tokens[i + 1]?.pos ?? '') && !BARE_INFINITIVE.has(tokens[i - 1]?.lemma ?? '') && tokens[i - 1]?.pos !== 'AUX' && tokens[i - 1]?.lower !== 'to') {
            conjugate = true;
            modal = false;
            if (pieces.length === 0) namedSubject = true; // "You were right …" → "Mel was right …"
          }
        }
      } else if (resolved.has(i)) {
        text = resolved.get(i)!;
        if (i === 0 || pieces.length === 0) namedSubject = true;
      }
    } else if (conjugate && (t.pos === 'VERB' || t.pos === 'AUX')) {
      if (MODALS.has(lower)) modal = true;
      else if (!modal && !pastSpelledAsBase(lower) && (lower === t.lemma.toLowerCase() || lower === 'am' || lower === 'are' || lower === 'have' || lower === 'do' || lower === 'were')) text = thirdPerson(t.text);
      conjugate = false;
    } else if (conjugate && t.pos !== 'ADV' && t.pos !== 'PART') {
      conjugate = false;
    } else if (speakerSubject && !modal && !infinitive && (t.pos === 'VERB' || (t.pos === 'AUX' && (lower === 'have' || lower === 'do'))) && lower === t.lemma.toLowerCase() && tokens[i - 1] && (tokens[i - 1]!.pos === 'CCONJ' || (tokens[i - 1]!.pos === 'ADV' && tokens[i - 2]?.pos === 'CCONJ'))) {
      text = thirdPerson(t.text); // "… and then visit Kyoto" shares the subject "I"
    }
    // "excited to explore Rostov and try the food": a verb after "and" continues the infinitive.
    if (t.pos === 'VERB') infinitive = TO_WORDS.has(tokens[i - 1]?.lower ?? '') || (tokens[i - 1]?.pos === 'ADV' && TO_WORDS.has(tokens[i - 2]?.lower ?? ''));
    if (pieces.length === 0) startsWithName = text !== t.text || t.pos === 'PROPN';
    pieces.push({ text, space: pieces.length ? t.space : '' });
  }
  while (pieces.length && /^[,.!?;:…]+$/.test(pieces[pieces.length - 1]!.text)) pieces.pop();
  if (moved) pieces.push({ text: moved, space: ' ' });
  let body = pieces.map((p, i) => (i === 0 ? p.text : p.space + p.text)).join('');
  body = body.replace(/\s+([,.;:!?])/g, '$1').trim();
  if (!body) return null;
  const direct = firstPerson || namedSubject || /^\p{Lu}/u.test(body) && tokens[0]?.pos === 'PROPN';
  // "Loved it, made lasagna twice": a past verb with no subject, which "said that" would not mend.
  const head = tokens.find((t) => !OPENING_ADVERBS.has(t.lower) && t.pos !== 'PUNCT');
  if (!direct && !question && head?.pos === 'VERB' && head.lower !== head.lemma.toLowerCase() && !/ing$/.test(head.lower)) return null;
  if (question) return { content: `${name} asked: ${capitalised(body)}?`, evidence, plan: false, due_at: null, dates, tokens, firstPerson: false };
  const stop = /[.!?…]$/.test(body) ? '' : '.'; // "around 30k." ends with its own stop
  const content = direct ? `${capitalised(body)}${stop}` : `${name} said that ${startsWithName ? body : body.charAt(0).toLowerCase() + body.slice(1)}${stop}`;
  const today = Math.floor(now / DAY) * DAY;
  const ahead = dates.filter((d) => d.at >= today);
  // "I watered the beds today": a date that is not past does not make a past-tense verb a plan.
  const pastVerb = tokens.some((t) => t.pos === 'VERB' && /ed$/.test(t.lower) && t.lower !== t.lemma.toLowerCase());
  const plan = speakerSubject && !/\b(was|were|had|did|went)\b/i.test(evidence) && (futureWords || (!pastVerb && ahead.length > 0 && ahead.length === dates.length));
  return { content, evidence, plan, due_at: plan ? ahead[ahead.length - 1]?.at ?? null : null, dates, tokens, firstPerson };
}
