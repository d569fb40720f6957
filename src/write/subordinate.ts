/**
 * A subordinate clause ("since …", "when …", "if …") read for what it states. Said with the
 * clause it belongs to, it stays whole, opener and all ("When the store opened, a crowd rushed
 * in"); alone, a clause of time or cause still states what holds ("because those seeds are paid in
 * local currency" → "those seeds are paid …"), while a condition alone ("if a wound has been
 * bandaged") or a hedged one ("Maybe when I buy a house.") supposes and states nothing.
 */
import type { Token } from './sentences.js';
import { finite, NAMING_TAGS, SUBJECT_OPENERS, SUBJECT_PRONOUNS, VERBAL } from './word-classes.js';

/** Words that open a subordinate clause; of those, the ones that make it no statement of fact. */
const SUBORDINATORS = new Set(['since', 'because', 'as', 'although', 'though', 'while', 'whilst', 'when', 'whenever', 'once', 'after', 'before', 'if', 'unless', 'whether']);
const CONDITIONAL = new Set(['if', 'unless', 'whether']);
/** Words that hedge what follows, and the openers of a clause that, hedged and alone, only supposes. */
const HEDGES = new Set(['maybe', 'perhaps', 'probably', 'hopefully']);
const HYPOTHETICAL = new Set(['when', 'whenever', 'if', 'once', 'unless', 'until', 'after', 'before']);

/**
 * The clause as a statement: as it is, without its opener where it stands alone as a clause of
 * time or cause, or null where it only supposes. The subordinator may follow a short lead
 * ("Typically, when …", "In this case, if …", "However, if …").
 */
export function asStatement(clause: Token[]): Token[] | null {
  const at = leadBefore(clause);
  const opener = clause[at]?.lower ?? '';
  const subject = clause[at + 1];
  // "If there is no cloth, a finger can be used": the clause it conditions is in the same
  // clause, so the whole is one statement, said with its "if".
  const alone = SUBORDINATORS.has(opener) && !!subject && !phrase(clause, at) && !holdsMainClause(clause, at + 1);
  // "Maybe when I buy a house.", "Hopefully once it warms up": a hedged clause of time or
  // condition with nothing it is the condition of says what might be, not what is.
  const hedged = HEDGES.has(opener) && HYPOTHETICAL.has(subject?.lower ?? '') && !clause.some((t) => t.text === ',');
  // A condition alone ("if a wound has been bandaged", "whether or not it is proven") says
  // nothing that holds, whatever its subject.
  if ((alone && CONDITIONAL.has(opener)) || hedged) return null;
  // Alone, a clause of time or cause says what holds without its opener, whatever its subject
  // opens with; after "as" only a pronoun or a name ("as someone who …" is no clause of its own).
  const subordinate = alone && (SUBJECT_PRONOUNS.has(subject!.lower) || SUBJECT_OPENERS.has(subject!.lower) || subject!.pos === 'PROPN' || (opener !== 'as' && SUBJECT_TAGS.has(subject!.pos)));
  return subordinate ? [...clause.slice(0, at), ...clause.slice(at + 1)] : clause;
}

/** Tags of the word that opens a subordinate clause's subject ("because those seeds …"); not an adverb ("since then", "once again"). */
const SUBJECT_TAGS = new Set([...NAMING_TAGS, 'ADJ']);

/** Subordinators that are prepositions too: "after a busy day, …", "as a teacher, …" open no clause. */
const PREPOSITIONS_TOO = new Set(['after', 'before', 'since', 'as', 'until']);
/** Words that stand for a time or an event said before ("before that", "since then"). */
const DEMONSTRATIVES = new Set(['that', 'this', 'then']);

/**
 * Whether the subordinator at `at` opens a phrase, not a clause: no verb up to its comma, and a
 * clause right after it ("After that, Sam went …", "As a screenwriter, I …"). "Since our dog
 * walker, Sarah, has been …" names its subject twice: a clause.
 */
function phrase(tokens: readonly Token[], at: number): boolean {
  if (!PREPOSITIONS_TOO.has(tokens[at]!.lower)) return false;
  // "Before that I lived in Cairo", "after this we moved": a demonstrative right before a subject
  // is the preposition's object, with no comma to show it ("before that happened" is a clause).
  if (DEMONSTRATIVES.has(tokens[at + 1]?.lower ?? '') && ['PRON', 'PROPN'].includes(tokens[at + 2]?.pos ?? '')) return true;
  let k = at + 1;
  for (; k < tokens.length && tokens[k]!.text !== ','; k++) if (finite(tokens[k]!)) return false;
  if (k === tokens.length) return true;
  for (k++; k < tokens.length && tokens[k]!.text !== ','; k++) if (finite(tokens[k]!)) return true;
  return false;
}

/** Words that may open a short lead before a subordinator: "Typically, when …", "In this case, if …". */
const LEAD_TAGS = new Set(['ADV', 'ADP']);

/** Where a clause's subordinator stands after a lead of one to three words and a comma ("However, if …"); 0 when there is none. */
function leadBefore(tokens: readonly Token[]): number {
  if (!LEAD_TAGS.has(tokens[0]?.pos ?? '')) return 0;
  for (let c = 1; c <= 3 && c < tokens.length - 1; c++) {
    if (tokens[c]!.text === ',') return SUBORDINATORS.has(tokens[c + 1]!.lower) ? c + 1 : 0;
    if (VERBAL.has(tokens[c]!.pos) || tokens[c]!.pos === 'PUNCT') return 0;
  }
  return 0;
}

/** Tags a main clause may open with after the comma that ends a subordinate one ("…, a crowd rushed in", "…, in this case it …"). */
const MAIN_OPENERS = new Set([...SUBJECT_TAGS, 'ADP']);

/**
 * Whether a subordinate clause whose subject starts at `from` is followed, after a comma, by the
 * clause it belongs to: a verb before the comma ("when the store opened, a crowd rushed in") or
 * a condition said short ("if not, you might …", "if possible, …"), and a clause with a verb of
 * its own after it, or "then". "When my sister, a nurse, visited" has no verb before its commas:
 * one clause.
 */
function holdsMainClause(tokens: readonly Token[], from: number): boolean {
  // The last verb and the last auxiliary, so that whether one follows a comma is one comparison.
  let lastFinite = -1;
  let lastAux = -1;
  tokens.forEach((t, k) => {
    if (finite(t)) lastFinite = k;
    if (t.pos === 'AUX') lastAux = k;
  });
  let verb = false;
  for (let c = from; c < tokens.length - 2; c++) {
    const t = tokens[c]!;
    if (VERBAL.has(t.pos)) verb = true;
    if (t.text !== ',') continue;
    const short = c - from <= 2 && tokens.slice(from, c).every((u) => !NAMING_TAGS.has(u.pos));
    const next = tokens[c + 1]!;
    if (!(verb || short) || !(MAIN_OPENERS.has(next.pos) || next.lower === 'then')) continue;
    // After a preposition only an auxiliary makes it a clause: "…, in this case it will be …",
    // not "…, like the one organized by my company".
    if ((next.pos === 'ADP' ? lastAux : lastFinite) > c) return true;
  }
  return unmarkedMain(tokens, from);
}

/** Pronouns that open a main clause after a subordinate one with no comma between ("it" is as often an object). */
const MAIN_SUBJECTS = new Set(['i', 'we', 'he', 'she', 'they']);
/** Tags of a word after which a pronoun opens no main clause: "since I know you like jazz", "when I cook and I bake". */
const NOT_BEFORE_MAIN = new Set(['VERB', 'AUX', 'SCONJ', 'CCONJ', 'PART']);

/** Whether the pronoun at `k` opens a relative clause left without its "that": "the workshop I attended", "my sister's car we borrowed". */
function relativeAfter(tokens: readonly Token[], k: number): boolean {
  if (tokens[k - 1]!.pos !== 'NOUN') return false;
  for (let j = k - 2; j >= Math.max(0, k - 4); j--) {
    if (tokens[j]!.pos === 'DET' || SUBJECT_OPENERS.has(tokens[j]!.lower) || tokens[j]!.text === "'s") return true;
    if (!['NOUN', 'ADJ', 'PROPN', 'NUM'].includes(tokens[j]!.pos)) return false;
  }
  return false;
}

/**
 * Whether the main clause follows the subordinate one without a comma ("When I was young I lived
 * in Oslo", "Because I was tired I slept"): after the clause's own verb, a subject pronoun and its
 * verb. Without it the opener was dropped and two clauses fused ("Sam was young Sam lived …").
 */
function unmarkedMain(tokens: readonly Token[], from: number): boolean {
  let verb = false;
  for (let k = from; k < tokens.length - 1; k++) {
    const t = tokens[k]!;
    if (verb && t.pos === 'PRON' && MAIN_SUBJECTS.has(t.lower) && k > from && !NOT_BEFORE_MAIN.has(tokens[k - 1]!.pos) && tokens[k - 1]!.lower !== 'that' && !relativeAfter(tokens, k)) {
      const after = tokens[k + 1]!.pos === 'ADV' ? tokens[k + 2] : tokens[k + 1];
      if (after && finite(after)) return true;
    }
    if (finite(t)) verb = true;
  }
  return false;
}
