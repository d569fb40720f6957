/** Sentence splitting and speaker-attributed rewriting for the rule-based extractor. */

/** Splits text into sentences (Latin and CJK terminators, line breaks). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|(?<=[。！？])|\n+/u)
    .map((s) => s.trim().replace(/^[-*•]\s+/, ''))
    .filter((s) => s.length > 0);
}

const THIRD_PERSON: Record<string, string> = { have: 'has', do: 'does', go: 'goes', am: 'is', was: 'was' };
const COMMON_VERBS = new Set([
  'like', 'love', 'have', 'work', 'live', 'want', 'need', 'think', 'go', 'plan', 'enjoy', 'prefer', 'use', 'feel', 'know', 'hate',
  'do', 'own', 'play', 'study', 'teach', 'run', 'cook', 'read', 'write', 'drive', 'eat', 'drink', 'believe', 'hope', 'wish',
  'speak', 'visit', 'watch', 'listen', 'collect', 'volunteer', 'practice', 'train', 'miss', 'remember', 'usually', 'always', 'often', 'never',
]);

function thirdPersonVerb(verb: string): string {
  const lower = verb.toLowerCase();
  if (THIRD_PERSON[lower]) return THIRD_PERSON[lower]!;
  if (['usually', 'always', 'often', 'never'].includes(lower)) return verb;
  if (/(s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`;
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/**
 * Rewrites a first-person sentence as a statement about `name`:
 * "I love my dog" → "Alice loves Alice's dog". Crude but deterministic; an LLM extractor does better.
 */
export function toThirdPerson(sentence: string, name: string): string {
  let out = sentence
    .replace(/\bI['’]m\b/g, `${name} is`)
    .replace(/\bI am\b/g, `${name} is`)
    .replace(/\bI['’]ve\b/g, `${name} has`)
    .replace(/\bI['’]d\b/g, `${name} would`)
    .replace(/\bI['’]ll\b/g, `${name} will`)
    .replace(/\bI was\b/g, `${name} was`)
    .replace(/\bI don['’]t\b/g, `${name} doesn't`)
    .replace(/\bI do not\b/g, `${name} does not`)
    .replace(/\b[Mm]yself\b/g, name)
    .replace(/\b[Mm]ine\b/g, `${name}'s`)
    .replace(/\b[Mm]y\b/g, `${name}'s`)
    .replace(/\bme\b/g, name);
  out = out.replace(/\bI ([A-Za-z]+)\b/g, (_all, verb: string) => {
    const lower = verb.toLowerCase();
    if (COMMON_VERBS.has(lower)) {
      // "I usually go" → "Alice usually goes": conjugate the verb after an adverb.
      return `${name} ${thirdPersonVerb(verb)}`;
    }
    return `${name} ${verb}`;
  });
  out = out.replace(new RegExp(`\\b(${escapeRegExp(name)}) (usually|always|often|never) ([a-z]+)\\b`, 'g'), (_a, n: string, adv: string, verb: string) =>
    COMMON_VERBS.has(verb) ? `${n} ${adv} ${thirdPersonVerb(verb)}` : `${n} ${adv} ${verb}`,
  );
  return out.replace(/\bI\b/g, name);
}

/** True for sentences that speak in the first person. */
export function isFirstPerson(sentence: string): boolean {
  return /\b(I|I['’]m|I['’]ve|I['’]ll|I['’]d|my|me|mine|myself|we|our|us)\b/i.test(sentence);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The first `max` characters of a text, cut at a word boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
