/**
 * Explicit profile facts a user states about themselves ("my name is…", "I work as…", "I live
 * in…", "I love…"), read with patterns. Implicit traits need judgement and are left to an LLM
 * extractor; the rules never invent them.
 */

interface ProfilePattern {
  key: 'name' | 'occupation' | 'workplace' | 'location' | 'age' | 'likes' | 'dislikes' | 'allergies' | 'family' | 'pets';
  pattern: RegExp;
  list: boolean;
}

const END = String.raw`(?=[.,;!?]|\s+(?:and|but|because|so|since|which|who)\b|$)`;

const PATTERNS: ProfilePattern[] = [
  { key: 'name', pattern: /\b[Mm]y name is ([A-Z][\p{L}'-]+(?: [A-Z][\p{L}'-]+)?)/u, list: false },
  { key: 'name', pattern: /\b(?:call me|I['’]m called) ([A-Z][\p{L}'-]+)/u, list: false },
  { key: 'age', pattern: /\bI(?:['’]m| am) (\d{1,3}) years? old\b/i, list: false },
  { key: 'occupation', pattern: new RegExp(String.raw`\bI (?:work|am working) as (?:an? )?(.{3,60}?)${END}`, 'i'), list: false },
  { key: 'occupation', pattern: new RegExp(String.raw`\bI(?:['’]m| am) an? ((?:[a-z-]+ )?(?:engineer|developer|nurse|teacher|doctor|student|designer|manager|lawyer|writer|artist|chef|scientist|researcher|accountant|consultant|programmer|analyst|photographer|musician|pharmacist|architect|therapist|professor|librarian|journalist|entrepreneur|freelancer|mechanic|electrician|pilot|farmer|firefighter|officer|dentist|veterinarian|vet|editor|marketer|salesperson|retiree))\b`, 'i'), list: false },
  { key: 'workplace', pattern: new RegExp(String.raw`\bI work (?:at|for) (.{2,60}?)${END}`, 'i'), list: false },
  { key: 'location', pattern: new RegExp(String.raw`\bI (?:live|am living|['’]m living|reside) in (.{2,60}?)${END}`, 'i'), list: false },
  { key: 'location', pattern: new RegExp(String.raw`\bI (?:just )?moved to (.{2,60}?)${END}`, 'i'), list: false },
  { key: 'likes', pattern: new RegExp(String.raw`\bI (?:really |absolutely )?(?:love|like|enjoy|adore|prefer) (.{2,60}?)${END}`, 'i'), list: true },
  { key: 'likes', pattern: new RegExp(String.raw`\bI(?:['’]m| am) (?:a (?:big |huge )?fan of|into|passionate about) (.{2,60}?)${END}`, 'i'), list: true },
  { key: 'dislikes', pattern: new RegExp(String.raw`\bI (?:really )?(?:hate|dislike|can['’]t stand|don['’]t like|do not like) (.{2,60}?)${END}`, 'i'), list: true },
  { key: 'allergies', pattern: new RegExp(String.raw`\bI(?:['’]m| am) allergic to (.{2,60}?)${END}`, 'i'), list: true },
  { key: 'family', pattern: new RegExp(String.raw`\b[Mm]y (wife|husband|partner|son|daughter|mother|mom|father|dad|brother|sister|grandmother|grandfather|kids?|children)(?: is| are|,)? (?:named |called )?([A-Z][\p{L}'-]+)?`, 'u'), list: true },
  { key: 'pets', pattern: /\b[Mm]y (dog|cat|puppy|kitten|parrot|hamster|rabbit|horse)(?: is)?(?: named| called|,)? ?([A-Z][\p{L}'-]+)?/u, list: true },
];

/** The explicit profile facts in one user sentence, keyed like the stored profile. */
export function profileFacts(sentence: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const { key, pattern, list } of PATTERNS) {
    const m = pattern.exec(sentence);
    if (!m) continue;
    let value = (m[1] ?? '').trim();
    if (key === 'family' || key === 'pets') value = m[2] ? `${m[1]} ${m[2]}` : m[1]!;
    value = value.replace(/\s+/g, ' ').replace(/^(to|the) /i, (s) => (key === 'likes' || key === 'dislikes' ? '' : s)).trim();
    if (!value) continue;
    if (list) out[key] = [...((out[key] as string[] | undefined) ?? []), value];
    else if (!(key in out)) out[key] = value;
  }
  return out;
}

const LIST_CAP = 50;

/** Folds an update into a profile: scalars replace, lists union (newest last, capped), `explicit_facts` likewise. */
export function mergeProfile(current: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (Array.isArray(value)) {
      const existing = Array.isArray(out[key]) ? (out[key] as unknown[]) : [];
      const merged = [...existing.filter((v) => !value.some((n) => JSON.stringify(n) === JSON.stringify(v))), ...value];
      out[key] = merged.slice(-LIST_CAP);
    } else if (value !== undefined) {
      out[key] = value;
    }
  }
  out['summary'] = summarizeProfile(out);
  return out;
}

/** A one-paragraph portrait from the explicit fields. */
export function summarizeProfile(profile: Record<string, unknown>): string {
  const name = typeof profile['name'] === 'string' ? profile['name'] : 'The user';
  const parts: string[] = [];
  const scalar = (key: string) => (typeof profile[key] === 'string' ? (profile[key] as string) : undefined);
  const list = (key: string) => (Array.isArray(profile[key]) ? (profile[key] as unknown[]).map(String) : []);
  if (scalar('age')) parts.push(`is ${scalar('age')} years old`);
  if (scalar('occupation')) parts.push(`works as ${scalar('occupation')}`);
  if (scalar('workplace')) parts.push(`works at ${scalar('workplace')}`);
  if (scalar('location')) parts.push(`lives in ${scalar('location')}`);
  if (list('likes').length) parts.push(`likes ${list('likes').slice(-5).join(', ')}`);
  if (list('dislikes').length) parts.push(`dislikes ${list('dislikes').slice(-5).join(', ')}`);
  if (list('allergies').length) parts.push(`is allergic to ${list('allergies').join(', ')}`);
  if (list('family').length) parts.push(`has family: ${list('family').join(', ')}`);
  if (list('pets').length) parts.push(`has pets: ${list('pets').join(', ')}`);
  return parts.length ? `${name} ${parts.join('; ')}.` : `${name} has not shared personal details yet.`;
}
