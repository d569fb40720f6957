/**
 * Word classes the claim rules share: who can open a clause as its subject, which tags name
 * someone or something, what makes a clause a clause. Kept apart so the rules that read a
 * sentence's clauses (claims.ts) and its subordinate clauses (subordinate.ts) read them alike.
 */
import type { Token } from './sentences.js';

/** Pronouns that may be a clause's subject. */
export const SUBJECT_PRONOUNS = new Set(['i', 'we', 'he', 'she', 'they', 'it', 'you']);
/** Words that open a subject's noun phrase ("my sister", "the store"). */
export const SUBJECT_OPENERS = new Set(['my', 'our', 'his', 'her', 'their', 'the']);
/** Tags of words that name someone or something. */
export const NAMING_TAGS = new Set(['NOUN', 'PROPN', 'PRON', 'DET', 'NUM']);
/** Tags of verbs, auxiliaries among them. */
export const VERBAL = new Set(['VERB', 'AUX']);
/** A verb that makes a clause: an auxiliary, or a verb that is no -ing form ("preparations going on" makes none). */
export const finite = (t: Token) => t.pos === 'AUX' || (t.pos === 'VERB' && !/ing$/.test(t.lower));
