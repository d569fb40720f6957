/**
 * The English language model of the rules extractor (wink-nlp with its lite web model: sentence
 * boundaries, tokens, part of speech, lemmas, negation; and the first-name lists of
 * first-names.ts). The model is a few megabytes of tables,
 * so it is imported and built on first use and then shared by every extractor in the process; a
 * memory that never extracts never pays for it. Everything here is plain JavaScript, so the same
 * code runs in the browser worker, Node and workerd.
 */
import type { ItsHelpers, WinkMethods } from 'wink-nlp';
import { loadFirstNames } from './first-names.js';

export interface Language {
  nlp: WinkMethods;
  its: ItsHelpers;
}

let loading: Promise<Language> | null = null;

/** The shared English pipeline, loaded once. */
export function english(): Promise<Language> {
  loading ??= (async () => {
    const [{ default: winkNLP }, { default: model }] = await Promise.all([import('wink-nlp'), import('wink-eng-lite-web-model'), loadFirstNames()]);
    // Only sentence boundaries and part of speech are used (names are typed by the words around
    // them, dates by chrono): the other steps of the pipe would cost time on every message.
    const nlp = winkNLP(model, ['sbd', 'pos']);
    return { nlp, its: nlp.its };
  })();
  // A failed load is not cached: the next segment tries again instead of failing forever.
  loading.catch(() => {
    loading = null;
  });
  return loading;
}
