/**
 * A Hugging Face `tokenizer.json` run by @huggingface/tokenizers (plain JavaScript, so it works in
 * browsers, workers and Node alike), plus what that library leaves out: truncation to the model's
 * window, which keeps the special tokens ([CLS] … [SEP]) and cuts the text between them, and
 * text pairs for cross-encoders.
 */

import type { Tokenizer } from '@huggingface/tokenizers';

import { MemoryError, wrapError } from '../errors.js';
import type { FetchModelOptions } from './load-static-model.js';
import { fingerprint, loadJsonFile, type ModelFileSource } from './model-source.js';

/** One encoded input: token ids and their segment (token type) ids, the same length. */
export interface EncodedInput {
  ids: number[];
  typeIds: number[];
}

/** A loaded tokenizer with truncating encoders. */
export interface HfTokenizer {
  /** Short fingerprint of the tokenizer definition, for model ids. */
  readonly fingerprint: string;
  /** Longest input the tokenizer config allows (model_max_length), if it names a sane one. */
  readonly modelMaxLength: number | undefined;
  /** Id of the padding token ([PAD], <pad>), 0 when the tokenizer names none. */
  readonly padId: number;
  /** Encodes one text with special tokens, at most maxLength ids. */
  encode(text: string, maxLength: number): EncodedInput;
  /** Encodes a pair (query, passage) with special tokens, the longer side cut first, at most maxLength ids. */
  encodePair(first: string, second: string, maxLength: number): EncodedInput;
}

/** Options of loadHfTokenizer. */
export interface HfTokenizerSource extends FetchModelOptions {
  /** tokenizer.json: the parsed object, its bytes, a URL, or a path (Node). */
  tokenizer: ModelFileSource | object;
  /** tokenizer_config.json, same forms; optional (model_max_length, pad token). */
  tokenizerConfig?: ModelFileSource | object;
}

// Each token covers at least one character of the text, except where whitespace is long; cutting
// the text first keeps a pasted book from being tokenised whole just to keep its first 512 tokens.
const CHARS_PER_TOKEN_BOUND = 32;

/** Loads a tokenizer.json (and optional tokenizer_config.json); anything unusable is MODEL_UNAVAILABLE. */
export async function loadHfTokenizer(source: HfTokenizerSource): Promise<HfTokenizer> {
  const fetchOptions: FetchModelOptions = {
    ...(source.fetch === undefined ? {} : { fetch: source.fetch }),
    ...(source.signal === undefined ? {} : { signal: source.signal }),
  };
  if (source.tokenizer === undefined || source.tokenizer === null) {
    throw new MemoryError('MODEL_UNAVAILABLE', { message: 'A tokenizer (tokenizer.json) is required.' });
  }
  const [json, config] = await Promise.all([
    loadJsonFile(source.tokenizer, fetchOptions),
    source.tokenizerConfig === undefined ? Promise.resolve({}) : loadJsonFile(source.tokenizerConfig, fetchOptions),
  ]);
  try {
    const { Tokenizer } = await import('@huggingface/tokenizers');
    // The library iterates added_tokens unconditionally; some hand-made files omit it.
    return wrapTokenizer(new Tokenizer({ added_tokens: [], ...json }, config), json, config);
  } catch (error) {
    throw wrapError(error, 'MODEL_UNAVAILABLE', 'Cannot build the tokenizer from tokenizer.json');
  }
}

function wrapTokenizer(tokenizer: Tokenizer, json: Record<string, unknown>, config: Record<string, unknown>): HfTokenizer {
  const unkId = tokenizer.model?.unk_token_id ?? 0;
  const toId = (token: string) => tokenizer.token_to_id(token) ?? unkId;
  const padToken = typeof config.pad_token === 'string' ? config.pad_token : (json.padding as { pad_token?: unknown } | null | undefined)?.pad_token;
  const padId = [padToken, '[PAD]', '<pad>'].map((t) => (typeof t === 'string' ? tokenizer.token_to_id(t) : undefined)).find((id) => id !== undefined) ?? 0;
  const declared = Number(config.model_max_length);
  const modelMaxLength = Number.isInteger(declared) && declared > 0 && declared < 1_000_000 ? declared : undefined;
  // Special tokens the post-processor adds around one text and (asked only by cross-encoders,
  // whose tokenizers define a pair template) around a pair.
  const singleOverhead = postProcess(tokenizer, ['a'], null).tokens.length - 1;
  let pairOverhead: number | undefined;

  const pieces = (text: string, maxLength: number) => tokenizer.tokenize(text.slice(0, maxLength * CHARS_PER_TOKEN_BOUND));

  const finish = (first: string[], second: string[] | null): EncodedInput => {
    const processed = postProcess(tokenizer, first, second);
    const ids = processed.tokens.map(toId);
    const typeIds = processed.typeIds.length === ids.length ? processed.typeIds : ids.map(() => 0);
    return { ids, typeIds };
  };

  return {
    fingerprint: fingerprint(new TextEncoder().encode(JSON.stringify(json) + JSON.stringify(config))),
    modelMaxLength,
    padId,
    encode(text, maxLength) {
      const body = pieces(text, maxLength);
      return finish(body.slice(0, Math.max(0, maxLength - singleOverhead)), null);
    },
    encodePair(first, second, maxLength) {
      const a = pieces(first, maxLength);
      const b = pieces(second, maxLength);
      // "Longest first", as Hugging Face truncates pairs: trim whichever side is longer.
      pairOverhead ??= postProcess(tokenizer, ['a'], ['b']).tokens.length - 2;
      const budget = Math.max(0, maxLength - pairOverhead);
      let keepA = a.length;
      let keepB = b.length;
      while (keepA + keepB > budget) {
        if (keepA > keepB) keepA--;
        else keepB--;
      }
      return finish(a.slice(0, keepA), b.slice(0, keepB));
    },
  };
}

function postProcess(tokenizer: Tokenizer, first: string[], second: string[] | null): { tokens: string[]; typeIds: number[] } {
  if (!tokenizer.post_processor) {
    const tokens = second ? [...first, ...second] : first;
    return { tokens, typeIds: second ? [...first.map(() => 0), ...second.map(() => 1)] : tokens.map(() => 0) };
  }
  const out = tokenizer.post_processor(first, second, true);
  // Byte-level processors hand the pair back unmerged; everything else has merged it already.
  const tokens = second && out.tokens_pair ? [...out.tokens, ...out.tokens_pair] : out.tokens;
  return { tokens, typeIds: out.token_type_ids ?? [] };
}
