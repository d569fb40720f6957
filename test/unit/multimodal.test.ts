/**
 * Multimodal memories in Node, with the real files of test/fixtures/media and the bundled static
 * embedding model: a two-page PDF (read by pdfjs-dist), a Markdown document, a PNG with a caption
 * and a WAV with a transcript are each found by keyword, vector and hybrid search, with the
 * item's reference (and the page or section) on the result; the bytes are kept once; export,
 * import and forget carry them; malformed items are 422 and unsupported ones 415, writing nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SearchEpisodeItem, SearchMethod } from '../../src/contract/types.js';
import { createMemory, type Memory } from '../../src/engine.js';
import { isMemoryError } from '../../src/errors.js';
import { createFetchHandler } from '../../src/http/handler.js';
import { createDefaultEmbedder } from '../../src/models/load-static-model.js';
import type { Embedder, Llm, LlmRequest } from '../../src/models/ports.js';
import { createOpenAiCompatibleLlm } from '../../src/models/openai-compatible-llm.js';
import { createRulesExtractor } from '../../src/write/rules-extractor.js';
import { MAX_ITEM_BYTES } from '../../src/write/content-items.js';
import { createPdfjsReader } from '../../src/write/documents/index.js';
import { MONDAY_9AM } from '../support/conversations.js';
import { loadMediaFixtures } from '../support/media-files.js';
import {
  MARKDOWN_QUERY, mediaConversation, PDF_PAGE_ONE_QUERY, PDF_PAGE_TWO_QUERY, PNG_QUERY, WAV_QUERY, type MediaFixtures,
} from '../support/media-fixtures.js';

const METHODS: SearchMethod[] = ['keyword', 'vector', 'hybrid'];
let embedder: Embedder;
let memory: Memory;
let f: MediaFixtures;

/** The fact (or, failing that, the episode) of the best episode, with the references it carries. */
async function best(query: string, method: SearchMethod, mem = memory, user = 'ann') {
  const { data } = await mem.search({ user_id: user, query, method, top_k: 3 });
  const top = data.episodes[0] as SearchEpisodeItem;
  expect(top, `${method}: ${query}`).toBeDefined();
  const fact = top.atomic_facts[0];
  return { episode: top, fact, refs: fact?.content_items ?? [] };
}

async function rejection(request: unknown, mem = memory) {
  try {
    await mem.add(request);
  } catch (error) {
    if (isMemoryError(error)) return error;
    throw error;
  }
  throw new Error('the add was accepted');
}

beforeAll(async () => {
  f = loadMediaFixtures();
  embedder = await createDefaultEmbedder();
  memory = await createMemory({ embedder });
  const added = await memory.add(mediaConversation(f, { session_id: 'media', user: 'ann', t0: MONDAY_9AM }));
  expect(added.data.message_count).toBe(4);
  expect(added.notices).toBeUndefined();
  await memory.flush({ session_id: 'media' });
}, 60_000);

describe('each item is found by what it says, with every method', () => {
  it.each(METHODS)('%s: text inside the PDF, attributed to its page', async (method) => {
    const two = await best(PDF_PAGE_TWO_QUERY, method);
    expect(two.fact?.content).toMatch(/telescope repair costs 4200 euros/);
    expect(two.refs).toEqual([expect.objectContaining({ type: 'pdf', mime_type: 'application/pdf', name: 'harbour-survey.pdf', page: 2, size: Buffer.from(f.pdf, 'base64').length, text_source: 'extracted' })]);
    expect(two.refs[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    const one = await best(PDF_PAGE_ONE_QUERY, method);
    expect(one.fact?.content).toMatch(/lighthouse keeper/);
    expect(one.refs.map((r) => [r.type, r.page])).toEqual([['pdf', 1]]);
  });

  it.each(METHODS)('%s: the image by its caption, the audio by its transcript, the Markdown by its section', async (method) => {
    const image = await best(PNG_QUERY, method);
    expect(image.fact?.content).toMatch(/red kite/);
    expect(image.refs).toEqual([expect.objectContaining({ type: 'image', mime_type: 'image/png', name: 'kite.png', size: 84, text_source: 'caption' })]);
    const audio = await best(WAV_QUERY, method);
    expect(audio.fact?.content).toMatch(/piano tuner/);
    expect(audio.refs).toEqual([expect.objectContaining({ type: 'audio', mime_type: 'audio/wav', size: Buffer.from(f.wav, 'base64').length, text_source: 'transcript' })]);
    const doc = await best(MARKDOWN_QUERY, method);
    expect(doc.fact?.content).toMatch(/Drip irrigation/i);
    expect(doc.refs).toEqual([expect.objectContaining({ type: 'doc', mime_type: 'text/markdown', section: 'Watering' })]);
  });

  it('the episode lists every item of the conversation by reference, never their bytes', async () => {
    const { episode } = await best(PNG_QUERY, 'hybrid');
    expect(episode.content_items?.map((r) => r.type)).toEqual(['pdf', 'image', 'doc', 'audio']);
    expect(JSON.stringify(episode)).not.toContain(f.png);
  });

  it('a document named with an extension an object has as a property is plain text, not refused', async () => {
    const plain = await createMemory({ embedder });
    await plain.add({ session_id: 'p', messages: [{ sender_id: 'bo', role: 'user', timestamp: MONDAY_9AM, content: [{ type: 'doc', name: 'notes.constructor', text: 'The hive inspection is due in May.' }] }] });
    await plain.flush({ session_id: 'p' });
    const { data } = await plain.search({ user_id: 'bo', query: 'hive inspection', method: 'keyword' });
    expect(data.episodes[0]!.content_items).toEqual([expect.objectContaining({ type: 'doc', mime_type: 'text/plain', name: 'notes.constructor' })]);
  });

  it('a text-only memory carries no content_items field (the contract shape is unchanged)', async () => {
    const plain = await createMemory({ embedder });
    await plain.add({ session_id: 't', messages: [{ sender_id: 'bo', role: 'user', timestamp: MONDAY_9AM, content: 'I keep bees on the roof.' }] });
    await plain.flush({ session_id: 't' });
    const { data } = await plain.search({ user_id: 'bo', query: 'bees', method: 'hybrid' });
    expect(data.episodes[0]).not.toHaveProperty('content_items');
    expect(data.episodes[0]!.atomic_facts[0]).not.toHaveProperty('content_items');
  });
});

it('Tablestore SearchMemories units carry the references too', async () => {
  const handler = createFetchHandler(memory, { dialects: { tablestore: {} } });
  const response = await handler(new Request('http://local/SearchMemories', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ memoryStoreName: 'default', scope: { appId: 'default', tenantId: 'ann', agentId: '*', runId: '*' }, query: PDF_PAGE_TWO_QUERY, topK: 1 }),
  }));
  const body = (await response.json()) as { results: { unit: { text: string; content_items?: unknown[] } }[] };
  expect(body.results[0]!.unit.text).toMatch(/telescope/);
  expect(body.results[0]!.unit.content_items).toEqual([expect.objectContaining({ type: 'pdf', page: 2 })]);
});

describe('the bytes are kept once', () => {
  it('by the episode; facts carry references only', async () => {
    const bundle = await memory.export();
    const text = JSON.stringify(bundle);
    for (const b64 of [f.pdf, f.png, f.markdown, f.wav]) expect(text.split(b64).length - 1).toBe(1);
    const episodes = bundle.items.filter((i) => i.kind === 'episode');
    expect(episodes).toHaveLength(1);
    expect(Object.keys(episodes[0]!['media'] as object)).toHaveLength(4);
    const facts = bundle.items.filter((i) => i.kind === 'atomic_fact');
    expect(facts.length).toBeGreaterThan(3);
    for (const fact of facts) expect(fact).not.toHaveProperty('media');
  });

  it('export → import keeps items, bytes and references; forgetting the owner removes the bytes', async () => {
    const copy = await createMemory({ embedder });
    await copy.import(await memory.export());
    const { refs } = await best(PDF_PAGE_TWO_QUERY, 'hybrid', copy);
    expect(refs.map((r) => r.page)).toEqual([2]);
    const [episode] = copy.peek({ app_id: 'default', project_id: 'default', owner_type: 'user', owner_id: 'ann' }, [(await best(PNG_QUERY, 'hybrid', copy)).episode.id]);
    expect(episode?.kind === 'episode' && episode.media?.[(await best(PNG_QUERY, 'hybrid', copy)).refs[0]!.sha256!]).toBe(f.png);
    await copy.delete({ user_id: 'ann' });
    expect(JSON.stringify(await copy.export())).not.toContain(f.png);
  });
});

it('an import whose item references, bytes or metadata are malformed is 422, and nothing is written', async () => {
  const bundle = await memory.export();
  const episode = bundle.items.findIndex((i) => i.kind === 'episode');
  const fact = bundle.items.findIndex((i) => i.kind === 'atomic_fact');
  for (const [index, patch] of [
    [episode, { media: { nothex: 'AAAA' } }],
    [fact, { items: [{ type: 'video', mime_type: 'video/mp4', size: 1, sha256: null }] }],
    [fact, { items: 'kite.png' }],
    [fact, { metadata: { source: 7 } }],
  ] as const) {
    const copy = await createMemory({ embedder });
    const bad = structuredClone(bundle);
    Object.assign(bad.items[index]!, patch);
    await expect(copy.import(bad)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ loc: ['body', 'items', index] })] });
    expect(copy.stats().records).toBe(0);
  }
});

describe('what a message may not carry', () => {
  const msg = (content: unknown) => ({ session_id: 'bad', messages: [{ sender_id: 'cy', role: 'user', timestamp: MONDAY_9AM, content }] });

  it.each([
    ['a video', [{ type: 'video', uri: 'https://example.com/v.mp4' }], { type: 'video' }],
    ['an image that is a zip', [{ type: 'image', base64: 'UEsDBA==', mime_type: 'application/zip' }], { type: 'image', mime_type: 'application/zip' }],
    ['a Word document', [{ type: 'doc', uri: 'https://example.com/a.docx', mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }], { type: 'doc' }],
  ])('%s is 415 UNSUPPORTED_CONTENT_TYPE', async (_name, content, details) => {
    const error = await rejection(msg(content));
    expect(error.code).toBe('UNSUPPORTED_CONTENT_TYPE');
    expect(error.status).toBe(415);
    expect(error.details).toMatchObject({ loc: expect.arrayContaining(['body', 'messages', 0, 'content', 0]), ...details });
  });

  it.each([
    ['base64 that is not base64', [{ type: 'image', mime_type: 'image/png', base64: 'not*base64!' }], [0, 'base64'], 'value_error'],
    ['inline bytes without a MIME type', [{ type: 'image', base64: 'iVBORw0KGgo=' }], [0, 'mime_type'], 'missing'],
    ['inline bytes named with an extension an object has as a property', [{ type: 'image', base64: 'iVBORw0KGgo=', name: 'a.constructor' }], [0, 'mime_type'], 'missing'],
    ['an image with neither uri nor bytes', [{ type: 'image', caption: 'a cat' }], [0], 'value_error'],
    ['a MIME type that is no MIME type', [{ type: 'audio', uri: 'x.wav', mime_type: 'wav' }], [0, 'mime_type'], 'value_error'],
    ['an item without a type', [{ uri: 'https://example.com/a.png' }], [0, 'type'], 'missing'],
    ['an item over the per-item bound', [{ type: 'pdf', base64: 'A'.repeat(Math.ceil(((MAX_ITEM_BYTES + 3) * 4) / 3 / 4) * 4) }], [0, 'base64'], 'too_large'],
    ['a caption that is not text', [{ type: 'image', uri: 'https://example.com/a.png', caption: 42 }], [0, 'caption'], 'string_type'],
  ])('%s is 422 at the item', async (_name, content, where, type) => {
    const error = await rejection(msg(content));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', 'messages', 0, 'content', ...where], type })]));
  });

  it('the inline items of one request are bounded together', async () => {
    const four = 'A'.repeat(4 * 1024 * 1024); // 3 MiB decoded each, 9 MiB together
    const error = await rejection({ session_id: 'big', messages: [0, 1, 2].map((i) => ({ sender_id: 'cy', role: 'user', timestamp: MONDAY_9AM + i, content: [{ type: 'image', mime_type: 'image/png', base64: four }] })) });
    expect(error.details).toEqual([expect.objectContaining({ loc: ['body', 'messages'], type: 'too_large' })]);
  });

  it('bytes that claim to be a PDF and are not are 422, and nothing is written', async () => {
    const mem = await createMemory({ embedder });
    const error = await rejection(msg([{ type: 'text', text: 'the report' }, { type: 'pdf', base64: Buffer.from('hello, not a pdf').toString('base64') }]), mem);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details).toEqual([expect.objectContaining({ loc: ['body', 'messages', 0, 'content', 1], type: 'value_error' })]);
    expect(mem.stats().buffered_messages).toBe(0);
  });
});

describe('where PDFs cannot be read', () => {
  it('the PDF is kept by reference and the response says why its text is not searchable', async () => {
    const mem = await createMemory({ embedder, pdf: null });
    const added = await mem.add({
      session_id: 'np',
      messages: [{ sender_id: 'di', role: 'user', timestamp: MONDAY_9AM, content: [{ type: 'text', text: 'The tax return for the allotment.' }, { type: 'pdf', name: 'tax.pdf', base64: f.pdf }] }],
    });
    expect(added.notices).toEqual([expect.objectContaining({ code: 'documents.pdf_unavailable', loc: ['body', 'messages', 0, 'content', 1] })]);
    await mem.flush({ session_id: 'np' });
    const { refs } = await best('tax return allotment', 'hybrid', mem, 'di');
    expect(refs).toEqual([expect.objectContaining({ type: 'pdf', name: 'tax.pdf', text_source: 'none' })]);
    expect((await mem.search({ user_id: 'di', query: 'telescope repair', method: 'keyword' })).data.episodes).toEqual([]);
  });

  it('a reader that cannot load pdfjs reports MODEL_UNAVAILABLE, which add turns into the same notice', async () => {
    const reader = createPdfjsReader(() => Promise.reject(new ReferenceError('DOMMatrix is not defined')));
    await expect(reader.pages(new Uint8Array(Buffer.from(f.pdf, 'base64')))).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    const mem = await createMemory({ embedder, pdf: reader });
    const added = await mem.add({ session_id: 'np', messages: [{ sender_id: 'di', role: 'user', timestamp: MONDAY_9AM, content: [{ type: 'pdf', base64: f.pdf }] }] });
    expect(added.notices?.map((n) => n.code)).toEqual(['documents.pdf_unavailable']);
  });
});

describe('an LLM that sees images', () => {
  /** A double of a vision model: answers every request with a fixed caption, or fails, and records what it was shown. */
  const visionLlmDouble = (answer: string | Error) => {
    const seen: LlmRequest[] = [];
    const llm: Llm = { id: 'vision-llm-double', vision: true, async complete(r) { seen.push(r); if (answer instanceof Error) throw answer; return answer; } };
    return { llm, seen };
  };
  const image = (extra: Record<string, unknown> = {}) => ({ session_id: 'v', messages: [{ sender_id: 'fy', role: 'user', timestamp: MONDAY_9AM, content: [{ type: 'text', text: 'Look at this.' }, { type: 'image', name: 'square.png', mime_type: 'image/png', base64: f.png, ...extra }] }] });

  it('captions an image sent without words; the caption is kept apart, marked as generated, and found by search', async () => {
    const { llm, seen } = visionLlmDouble('A red square crossed by a blue diagonal line.');
    const mem = await createMemory({ embedder, llm, extractor: createRulesExtractor() });
    await mem.add(image());
    expect(seen).toHaveLength(1);
    expect(seen[0]!.messages[0]!.images).toEqual([{ mime_type: 'image/png', base64: f.png }]);
    const { data } = await mem.search({ user_id: 'fy', query: 'square', filters: { session_id: 'v' } });
    expect(data.unprocessed_messages[0]!.content[1]).toMatchObject({ generated_caption: 'A red square crossed by a blue diagonal line.' });
    expect(data.unprocessed_messages[0]!.content[1]).not.toHaveProperty('caption');
    await mem.flush({ session_id: 'v' });
    for (const method of METHODS) {
      const { refs } = await best('blue diagonal line', method, mem, 'fy');
      expect(refs, method).toEqual([expect.objectContaining({ type: 'image', name: 'square.png', text_source: 'generated_caption' })]);
    }
  });

  it('an image with a caption is not sent; a model that fails leaves a notice, not a failure', async () => {
    const quiet = visionLlmDouble('unused');
    await (await createMemory({ embedder, llm: quiet.llm, extractor: createRulesExtractor() })).add(image({ caption: 'my square' }));
    expect(quiet.seen).toEqual([]);
    const failing = visionLlmDouble(new Error('model crashed'));
    const added = await (await createMemory({ embedder, llm: failing.llm, extractor: createRulesExtractor() })).add(image());
    expect(added.notices).toEqual([expect.objectContaining({ code: 'images.caption_failed', loc: ['body', 'messages', 0, 'content', 1] })]);
  });

  it('the OpenAI-compatible provider sends images as image_url content parts when vision is on', async () => {
    const bodies: any[] = [];
    const fetchDouble = async (_url: string, init: RequestInit) => {
      bodies.push(JSON.parse(String(init.body)));
      return new Response(JSON.stringify({ choices: [{ message: { content: 'A square.' } }] }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const llm = createOpenAiCompatibleLlm({ baseUrl: 'http://llm.test/v1', model: 'vision-model', vision: true, fetch: fetchDouble });
    expect(llm.vision).toBe(true);
    expect(await llm.complete({ messages: [{ role: 'user', content: 'What is it?', images: [{ mime_type: 'image/png', base64: 'iVBO' }] }] })).toBe('A square.');
    expect(bodies[0].messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } }] }]);
    expect(createOpenAiCompatibleLlm({ baseUrl: 'http://llm.test/v1', model: 'm' }).vision).toBeUndefined();
  });
});

it('an unprocessed message shows its content as sent (with the document text it was read to)', async () => {
  const mem = await createMemory({ embedder });
  const content = [{ type: 'text', text: 'Photo:' }, { type: 'image', uri: 'https://example.com/kite.png', caption: 'a kite' }];
  await mem.add({ session_id: 'u', messages: [{ sender_id: 'ed', role: 'user', timestamp: MONDAY_9AM, content }] });
  const { data } = await mem.search({ user_id: 'ed', query: 'kite', filters: { session_id: 'u' } });
  expect(data.unprocessed_messages[0]!.content).toEqual(content);
});
