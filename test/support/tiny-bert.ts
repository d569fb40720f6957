/**
 * Builds a tiny BERT in ONNX for tests, with the shapes and operators of a real export: word +
 * position + token-type embeddings, LayerNorm, encoder layers of multi-head self-attention (masked
 * by attention_mask) and a GELU (erf) feed-forward block, output last_hidden_state [batch,
 * sequence, hidden]; optionally a pooler and a one-logit classifier (`logits` [batch, 1]) as
 * ms-marco cross-encoders have. Weights are seeded random numbers, so the model is the same on
 * every run. Also writes a WordPiece tokenizer.json of a few hundred tokens in the Hugging Face
 * format (BertNormalizer, BertPreTokenizer, WordPiece, TemplateProcessing [CLS] $A [SEP]).
 */
import { DataType, encodeModel, type Node, type Tensor, type ValueInfo } from '../../models/onnx-writer.js';

export interface TinyBertOptions {
  seed?: number;
  hidden?: number;
  heads?: number;
  layers?: number;
  intermediate?: number;
  maxPositions?: number;
  /** Declare a token_type_ids input (BERT, MiniLM) or not (DistilBERT-like). Default true. */
  tokenTypes?: boolean;
  /** 'hidden': last_hidden_state only; 'classifier': logits [batch, 1] only (a cross-encoder). */
  head?: 'hidden' | 'classifier';
  /** Standard deviation of the weight matrices relative to 1/sqrt(fan-in). Default 1. */
  weightScale?: number;
  /** Weights set by hand, by initializer name; every other weight stays seeded-random. */
  weights?: ReadonlyMap<string, readonly number[]>;
}

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

const WORDS = `
the a an and or but if of to in on at for with from by about as into over after before under between
is are was were be been being am do does did have has had will would can could should may might must
i you he she it we they me him her us them my your his its our their this that these those what which who
whom whose when where why how all any both each few more most other some such no not only own same so than
too very just now then there here up down out off again once also still yet ever never always often
query passage question answer search memory note fact user assistant
dog dogs cat cats puppy pet pets beagle named rufus alice bob carol dave emma
work works job nurse doctor teacher engineer hospital school office company city town home house apartment
car bike train bus flight trip travel tokyo paris rome italy japan london
like likes love loves hate enjoy enjoys want wants need needs go goes going went come came
eat eats ate food pizza pasta coffee tea milk bread eggs breakfast lunch dinner cook cooking
play plays played guitar piano music song songs game games sport sports basketball football tennis
run running walk walking swim swimming hike hiking read reading book books write writing movie movies
day days week weeks month months year years morning evening night today tomorrow yesterday
monday tuesday wednesday thursday friday saturday sunday january february march april may june july
august september october november december spring summer fall autumn winter
red blue green yellow black white big small new old good bad happy sad long short first last next
weather rain rainy sunny cold hot warm snow
sister brother mother father mom dad daughter son wife husband friend friends family kid kids child children
birthday party wedding meeting appointment doctor's visit plan plans planning
buy bought sell money price cheap expensive shop shopping store market
learn learning study studying class lesson lessons language spanish french english
garden flower flowers tree trees plant plants kitchen room bed sleep
phone laptop computer screen email internet wifi
adopt adopted moved move live lives lived born grew
one two three four five six seven eight nine ten hundred
`;

const SUBWORDS = ['##s', '##es', '##ed', '##ing', '##er', '##ers', '##est', '##ly', '##y', '##ion', '##al', '##ful', '##ness', '##a', '##e', '##i', '##o', '##u', '##n', '##t', '##r', '##l', '##d', '##m', '##k', '##p', '##g', '##h', '##c', '##b'];
const PUNCTUATION = ['.', ',', '?', '!', "'", ':', ';', '-', '(', ')', '"', '/', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');

/** The tokenizer's vocabulary, id = index. */
export function tinyVocab(): string[] {
  const words = [...new Set(WORDS.split(/\s+/).filter(Boolean))];
  return [...new Set([...SPECIAL, ...PUNCTUATION, ...LETTERS, ...SUBWORDS, ...words])];
}

/** A Hugging Face tokenizer.json for the tiny vocabulary, as `tokenizers` writes one for BERT. */
export function tinyTokenizerJson(): Record<string, unknown> {
  const vocab = tinyVocab();
  const ids = Object.fromEntries(vocab.map((token, id) => [token, id]));
  const special = (token: string) => ({ id: token, ids: [ids[token]], tokens: [token] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content) => ({ id: ids[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

/** tokenizer_config.json to go with it. */
export function tinyTokenizerConfig(maxPositions = 128): Record<string, unknown> {
  return { do_lower_case: true, model_max_length: maxPositions, pad_token: '[PAD]', cls_token: '[CLS]', sep_token: '[SEP]', unk_token: '[UNK]', mask_token: '[MASK]', tokenizer_class: 'BertTokenizer' };
}

/** Mulberry32 uniform numbers and Box–Muller normals: the same weights on every run. */
function random(seed: number): { normal(): number } {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    normal() {
      const u = Math.max(uniform(), 1e-12);
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
    },
  };
}

/** Builds the ONNX bytes of a tiny BERT. */
export function buildTinyBert(options: TinyBertOptions = {}): Uint8Array {
  const hidden = options.hidden ?? 32;
  const heads = options.heads ?? 4;
  const layers = options.layers ?? 2;
  const intermediate = options.intermediate ?? 64;
  const maxPositions = options.maxPositions ?? 128;
  const tokenTypes = options.tokenTypes ?? true;
  const head = options.head ?? 'hidden';
  const scale = options.weightScale ?? 1;
  const headDim = hidden / heads;
  if (!Number.isInteger(headDim)) throw new Error('hidden must be a multiple of heads');
  const vocabSize = tinyVocab().length;
  const rng = random(options.seed ?? 7);

  const initializers: Tensor[] = [];
  const nodes: Node[] = [];
  const floats = (name: string, dims: number[], values: number[]) => initializers.push({ name, dataType: DataType.FLOAT, dims, data: { kind: 'float', values } });
  const ints = (name: string, dims: number[], values: bigint[]) => initializers.push({ name, dataType: DataType.INT64, dims, data: { kind: 'int64', values } });
  const randomFloats = (name: string, dims: number[], std: number) => floats(name, dims, Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => rng.normal() * std));
  const constant = (name: string, dims: number[], value: number) => floats(name, dims, Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => value));
  const node = (opType: string, inputs: string[], output: string, attributes: Node['attributes'] = []) => {
    nodes.push({ opType, name: `${opType}_${nodes.length}`, inputs, outputs: [output], attributes });
    return output;
  };
  const linear = (x: string, name: string, fanIn: number, fanOut: number) => {
    randomFloats(`${name}.weight`, [fanIn, fanOut], scale / Math.sqrt(fanIn));
    randomFloats(`${name}.bias`, [fanOut], 0.1);
    return node('Add', [node('MatMul', [x, `${name}.weight`], `${name}.matmul`), `${name}.bias`], `${name}.out`);
  };
  const layerNorm = (x: string, name: string) => {
    floats(`${name}.weight`, [hidden], Array.from({ length: hidden }, () => 1 + rng.normal() * 0.1));
    randomFloats(`${name}.bias`, [hidden], 0.1);
    const mean = node('ReduceMean', [x], `${name}.mean`, [{ name: 'axes', kind: 'ints', value: [-1] }, { name: 'keepdims', kind: 'int', value: 1 }]);
    const centred = node('Sub', [x, mean], `${name}.centred`);
    const variance = node('ReduceMean', [node('Pow', [centred, 'const.two'], `${name}.square`)], `${name}.variance`, [{ name: 'axes', kind: 'ints', value: [-1] }, { name: 'keepdims', kind: 'int', value: 1 }]);
    const std = node('Sqrt', [node('Add', [variance, 'const.eps'], `${name}.variance_eps`)], `${name}.std`);
    const normed = node('Div', [centred, std], `${name}.normed`);
    return node('Add', [node('Mul', [normed, `${name}.weight`], `${name}.scaled`), `${name}.bias`], `${name}.out`);
  };

  constant('const.two', [], 2);
  constant('const.eps', [], 1e-12);
  constant('const.one', [], 1);
  constant('const.half', [], 0.5);
  constant('const.sqrt2', [], Math.SQRT2);
  constant('const.mask_min', [], -10000);
  constant('const.attention_scale', [], Math.sqrt(headDim));
  ints('const.axis1', [1], [1n]);
  ints('const.zero1', [1], [0n]);
  ints('const.axes_mask', [2], [1n, 2n]);
  ints('const.split_heads', [4], [0n, 0n, BigInt(heads), BigInt(headDim)]);
  ints('const.merge_heads', [3], [0n, 0n, BigInt(hidden)]);

  // Embeddings: word + position (rows 0..sequence-1) + token type, then LayerNorm.
  randomFloats('embeddings.word_embeddings.weight', [vocabSize, hidden], 1);
  randomFloats('embeddings.position_embeddings.weight', [maxPositions, hidden], 0.5);
  const words = node('Gather', ['embeddings.word_embeddings.weight', 'input_ids'], 'embeddings.words', [{ name: 'axis', kind: 'int', value: 0 }]);
  const sequence = node('Gather', [node('Shape', ['input_ids'], 'input_shape'), 'const.axis1'], 'sequence_length', [{ name: 'axis', kind: 'int', value: 0 }]);
  const positions = node('Slice', ['embeddings.position_embeddings.weight', 'const.zero1', sequence, 'const.zero1'], 'embeddings.positions');
  let embedded = node('Add', [words, positions], 'embeddings.words_positions');
  if (tokenTypes) {
    randomFloats('embeddings.token_type_embeddings.weight', [2, hidden], 0.5);
    const types = node('Gather', ['embeddings.token_type_embeddings.weight', 'token_type_ids'], 'embeddings.types', [{ name: 'axis', kind: 'int', value: 0 }]);
    embedded = node('Add', [embedded, types], 'embeddings.sum');
  }
  let x = layerNorm(embedded, 'embeddings.LayerNorm');

  // The extended attention mask: 0 where attended, -10000 on padding, shaped [batch, 1, 1, sequence].
  const maskFloat = node('Cast', ['attention_mask'], 'mask.float', [{ name: 'to', kind: 'int', value: DataType.FLOAT }]);
  const maskExpanded = node('Unsqueeze', [maskFloat, 'const.axes_mask'], 'mask.expanded');
  const extendedMask = node('Mul', [node('Sub', ['const.one', maskExpanded], 'mask.inverted'), 'const.mask_min'], 'mask.extended');

  for (let l = 0; l < layers; l++) {
    const p = `encoder.layer.${l}`;
    const split = (t: string, perm: number[], name: string) =>
      node('Transpose', [node('Reshape', [t, 'const.split_heads'], `${name}.heads`)], `${name}.transposed`, [{ name: 'perm', kind: 'ints', value: perm }]);
    const q = split(linear(x, `${p}.attention.self.query`, hidden, hidden), [0, 2, 1, 3], `${p}.q`);
    const k = split(linear(x, `${p}.attention.self.key`, hidden, hidden), [0, 2, 3, 1], `${p}.k`);
    const v = split(linear(x, `${p}.attention.self.value`, hidden, hidden), [0, 2, 1, 3], `${p}.v`);
    const scores = node('Div', [node('MatMul', [q, k], `${p}.scores_raw`), 'const.attention_scale'], `${p}.scores`);
    const probs = node('Softmax', [node('Add', [scores, extendedMask], `${p}.scores_masked`)], `${p}.probs`, [{ name: 'axis', kind: 'int', value: -1 }]);
    const context = node('Transpose', [node('MatMul', [probs, v], `${p}.context_heads`)], `${p}.context_t`, [{ name: 'perm', kind: 'ints', value: [0, 2, 1, 3] }]);
    const merged = node('Reshape', [context, 'const.merge_heads'], `${p}.context`);
    const attended = linear(merged, `${p}.attention.output.dense`, hidden, hidden);
    x = layerNorm(node('Add', [attended, x], `${p}.attention.residual`), `${p}.attention.output.LayerNorm`);
    // GELU in its erf form, as BERT exports write it: 0.5·x·(1 + erf(x/√2)).
    const up = linear(x, `${p}.intermediate.dense`, hidden, intermediate);
    const erf = node('Erf', [node('Div', [up, 'const.sqrt2'], `${p}.gelu.scaled`)], `${p}.gelu.erf`);
    const gelu = node('Mul', [node('Mul', [up, node('Add', [erf, 'const.one'], `${p}.gelu.erf1`)], `${p}.gelu.x_erf`), 'const.half'], `${p}.gelu`);
    const down = linear(gelu, `${p}.output.dense`, intermediate, hidden);
    x = layerNorm(node('Add', [down, x], `${p}.output.residual`), `${p}.output.LayerNorm`);
  }

  const inputs: ValueInfo[] = [
    { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    ...(tokenTypes ? [{ name: 'token_type_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] } satisfies ValueInfo] : []),
  ];
  let outputs: ValueInfo[];
  if (head === 'classifier') {
    // Pooler (tanh over the [CLS] state) and a one-logit classifier, as BertForSequenceClassification.
    ints('const.first', [], [0n]);
    const cls = node('Gather', [x, 'const.first'], 'pooler.cls', [{ name: 'axis', kind: 'int', value: 1 }]);
    const pooled = node('Tanh', [linear(cls, 'bert.pooler.dense', hidden, hidden)], 'pooler.out');
    randomFloats('classifier.weight', [hidden, 1], 2 / Math.sqrt(hidden));
    floats('classifier.bias', [1], [0]);
    node('Add', [node('MatMul', [pooled, 'classifier.weight'], 'classifier.matmul'), 'classifier.bias'], 'logits');
    outputs = [{ name: 'logits', elemType: DataType.FLOAT, shape: ['batch_size', 1] }];
  } else {
    node('Identity', [x], 'last_hidden_state');
    outputs = [{ name: 'last_hidden_state', elemType: DataType.FLOAT, shape: ['batch_size', 'sequence_length', hidden] }];
  }

  for (const [name, values] of options.weights ?? []) {
    const index = initializers.findIndex((t) => t.name === name);
    const tensor = initializers[index];
    if (!tensor || tensor.data.kind !== 'float' || tensor.data.values.length !== values.length) throw new Error(`no float initializer ${name} of ${values.length} values`);
    initializers[index] = { ...tensor, data: { kind: 'float', values } };
  }

  return encodeModel({
    irVersion: 8,
    opsetVersion: 14,
    producerName: 'engram-tests',
    producerVersion: '1',
    domain: '',
    modelVersion: 1,
    docString: 'A tiny seeded-random BERT for tests.',
    metadata: {},
    graph: { name: 'tiny_bert', nodes, initializers, inputs, outputs },
  });
}

/**
 * A tiny cross-encoder whose weights are set by hand so that it scores word overlap between the
 * two segments: layer 1 lets each token attend to the other copies of its word (query·key is the
 * word vector) and keeps a trace only when a copy sits in the other segment (token type); its
 * feed-forward block turns that trace into a "matched" feature; layer 2 averages the feature over
 * all tokens into [CLS], which the pooler and classifier map to a logit. So a passage sharing more
 * of its words with the query scores higher, and only if token_type_ids tell the segments apart.
 */
export function buildOverlapCrossEncoder(seed = 5): Uint8Array {
  const hidden = 32;
  const words = 16; // dims 0..15: word identity; 16..23: segment; 24: matched; 25: mean matched
  const vocabSize = tinyVocab().length;
  const rng = random(seed);
  const zeros = (n: number) => new Array<number>(n).fill(0);
  const matrix = (rows: number, cols: number, set: [number, number, number][]) => {
    const m = zeros(rows * cols);
    for (const [r, c, v] of set) m[r * cols + c] = v;
    return m;
  };
  const segment = Array.from({ length: 8 }, (_, k) => (k % 2 === 0 ? 1 : -1) / Math.sqrt(8));

  const wordTable = zeros(vocabSize * hidden);
  for (let w = 0; w < vocabSize; w++) {
    const v = Array.from({ length: words }, () => rng.normal());
    const mean = v.reduce((a, b) => a + b, 0) / words;
    const centred = v.map((x) => x - mean);
    const norm = Math.hypot(...centred);
    centred.forEach((x, d) => (wordTable[w * hidden + d] = x / norm));
  }
  const types = zeros(2 * hidden);
  segment.forEach((x, k) => {
    types[16 + k] = x;
    types[hidden + 16 + k] = -x;
  });
  const sharp = 4;
  const identity = matrix(hidden, hidden, Array.from({ length: words }, (_, i) => [i, i, sharp] as [number, number, number]));
  const weights = new Map<string, number[]>([
    ['embeddings.word_embeddings.weight', wordTable],
    ['embeddings.position_embeddings.weight', zeros(128 * hidden)],
    ['embeddings.token_type_embeddings.weight', types],
    // Layer 1, head 1 (dims 0..15): attend to copies of the same word, carry their segment.
    ['encoder.layer.0.attention.self.query.weight', identity],
    ['encoder.layer.0.attention.self.key.weight', identity],
    ['encoder.layer.0.attention.self.value.weight', matrix(hidden, hidden, segment.map((_, k) => [16 + k, k, 1]))],
    // Subtract the mean segment of the copies: zero unless a copy sits in the other segment.
    ['encoder.layer.0.attention.output.dense.weight', matrix(hidden, hidden, segment.map((_, k) => [k, 16 + k, -1]))],
    // |segment trace| ≈ gelu(t) + gelu(−t) into dim 24.
    ['encoder.layer.0.intermediate.dense.weight', matrix(hidden, 64, segment.flatMap((x, k) => [[16 + k, 0, x], [16 + k, 1, -x]] as [number, number, number][]))],
    ['encoder.layer.0.output.dense.weight', matrix(64, hidden, [[0, 24, 1], [1, 24, 1]])],
    // Layer 2: uniform attention (zero query and key); head 2 averages dim 24 into dim 25.
    ['encoder.layer.1.attention.self.query.weight', zeros(hidden * hidden)],
    ['encoder.layer.1.attention.self.key.weight', zeros(hidden * hidden)],
    ['encoder.layer.1.attention.self.value.weight', matrix(hidden, hidden, [[24, 16, 1]])],
    ['encoder.layer.1.attention.output.dense.weight', matrix(hidden, hidden, [[16, 25, 1]])],
    ['encoder.layer.1.intermediate.dense.weight', zeros(hidden * 64)],
    ['encoder.layer.1.output.dense.weight', zeros(64 * hidden)],
    ['bert.pooler.dense.weight', matrix(hidden, hidden, [[25, 0, 0.5]])],
    ['classifier.weight', matrix(hidden, 1, [[0, 0, 4]])],
  ]);
  for (const name of ['query', 'key', 'value'].map((k) => `attention.self.${k}.bias`).concat(['attention.output.dense.bias', 'intermediate.dense.bias', 'output.dense.bias'])) {
    for (const layer of [0, 1]) weights.set(`encoder.layer.${layer}.${name}`, zeros(name.startsWith('intermediate') ? 64 : hidden));
  }
  for (const ln of ['embeddings.LayerNorm', 'encoder.layer.0.attention.output.LayerNorm', 'encoder.layer.0.output.LayerNorm', 'encoder.layer.1.attention.output.LayerNorm', 'encoder.layer.1.output.LayerNorm']) {
    weights.set(`${ln}.weight`, new Array<number>(hidden).fill(1));
    weights.set(`${ln}.bias`, zeros(hidden));
  }
  weights.set('bert.pooler.dense.bias', zeros(hidden));
  weights.set('classifier.bias', [-1]);
  return buildTinyBert({ hidden, heads: 2, layers: 2, intermediate: 64, maxPositions: 128, head: 'classifier', weights });
}
