/**
 * Sentences that are only a social formula addressed to someone: "Hey Mariana!", "Take care, Mel!",
 * "Thanks so much, Lucas!", "Caroline!! Hi!". People open and close every conversation
 * with them, so they tell one conversation from another by nothing; and a greeting that names the
 * other person is, to an embedding, little more than that name. Kept as passages, "Lucas said: Hey
 * Mariana!" was the best match in every conversation for any question naming Mariana (cosine 0.96
 * for "When did Mariana first meet Tiago?"), above the passage that answered it (0.54), so the
 * vector leg ranked conversations by who was greeted. Such sentences stay in the episode's text;
 * they only do not become passages of their own.
 *
 * A closed word list, not a model: no well-kept library marks phatic speech, and the test is
 * narrow on purpose: a sentence goes only when it names a participant (by a word of a sender's
 * name or id, or a capitalised short form of one: "Mel" for Melanie) and every other word is a
 * formula word. "Hi!" alone stays (it matches nothing in particular), and one word of content
 * ("Good luck with Tiago", "How's your dad?") keeps a sentence.
 */

/** Words of greetings, farewells, thanks and bare reactions, lower-case. */
const FORMULA_WORDS = new Set(
  (
    "hey heya hi hiya hello howdy yo morning evening afternoon good dear bye byee goodbye goodnight night later soon talk take care see ya catch " +
    "cheers thanks thank thx ty so much very a lot lots again too you u all guys " +
    "haha hahaha hahahaha hehe lol lmao omg oh ohh ah aw aww awww wow woah whoa yay ooh oooh hmm um " +
    "yes yeah yep yup no nope okay ok sure cool nice great awesome amazing wonderful fantastic lovely perfect congrats congratulations " +
    "totally absolutely definitely exactly right true agreed " +
    "that that's thats it it's its is sounds glad to hear i i'm im happy for miss hugs xoxo long time how are have been doing what's whats up how's hows going well " +
    "luck same here there"
  ).split(' '),
);

/** Sender ids that name a role, not a person ("user", "assistant"): never read as a name. */
const ROLE_WORDS = new Set('user assistant system agent bot ai tool human model'.split(' '));

/**
 * The participants' names, lower-case: every word of two letters or more of each sender's name or
 * id ("Mary Ann" → mary, ann; "caroline" → caroline), role words and ids' digits left out.
 */
export function participantNames(names: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const name of names) for (const word of name.toLowerCase().match(/\p{L}{2,}/gu) ?? []) if (!ROLE_WORDS.has(word)) out.add(word);
  return out;
}

/**
 * The short forms a name may be called by: its beginnings of three letters or more ("mel", "mela",
 * … of melanie). One set for a conversation, so a word is looked up, not compared with every name.
 */
export function shortForms(names: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const name of names) for (let end = 3; end < name.length; end++) out.add(name.slice(0, end));
  return out;
}

/** The participants' names and their short forms, made once for a conversation (`participantNames`, `shortForms`). */
export interface CalledNames {
  names: ReadonlySet<string>;
  short: ReadonlySet<string>;
}

/** What people in a conversation may be called by: every word of their names or ids, and the beginnings of those words. */
export function calledNames(senders: Iterable<string>): CalledNames {
  const names = participantNames(senders);
  return { names, short: shortForms(names) };
}

/**
 * Whether a sentence is only a social formula (see the file's comment); `names` from
 * `participantNames`, `short` their `shortForms` (pass them once for a conversation's sentences).
 */
export function isSocialFormula(sentence: string, names: ReadonlySet<string>, short: ReadonlySet<string> = shortForms(names)): boolean {
  const words = sentence.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
  if (words.length === 0) return false;
  const lower = words.map((w) => w.toLowerCase().replace('’', "'"));
  // A name, or a capitalised short form of one ("Mel" for Melanie).
  const named = lower.map((w, i) => names.has(w) || (short.has(w) && /^\p{Lu}/u.test(words[i]!)));
  return named.some(Boolean) && lower.every((w, i) => FORMULA_WORDS.has(w) || named[i]);
}
