/**
 * Engram: a local-first memory engine for AI agents. Create a memory with `createMemory`, feed it
 * conversations with `add`, and search it with the EverOS search contract.
 *
 * @example
 * const memory = await createMemory({ embedder: await createDefaultEmbedder() });
 * await memory.add({ session_id: 's1', messages: [{ sender_id: 'u1', role: 'user', timestamp: Date.now(), content: 'I love hiking' }] });
 * await memory.flush({ session_id: 's1' });
 * const { data } = await memory.search({ user_id: 'u1', query: 'hobbies', method: 'hybrid' });
 */
export { createMemory } from './engine.js';
export type { Memory, MemoryOptions, MemoryStats, CallOptions, ImportOptions, Progress } from './engine.js';
export type { ExportBundle } from './export/bundle.js';
export type { MarkdownFile } from './export/markdown.js';
export * from './contract/types.js';
export { MemoryError, createError, isMemoryError, ERROR_CATALOG } from './errors.js';
export type { ErrorCode, ValidationDetail } from './errors.js';
export type { Embedder, Reranker, Llm, LlmRequest, ChatMessage } from './models/ports.js';
export type { StorageAdapter, StoreBatch } from './store/port.js';
export { createMemoryStore } from './store/memory-store.js';
export { createSealedStore } from './store/sealed-store.js';
export type { EncryptionOptions } from './store/sealed-store.js';
export { createFetchHandler, errorResponse } from './http/handler.js';
export type { OwnerSummary, RecordView } from './engine.js';
export type { GraphView, Neighbourhood } from './graph/partition-graph.js';
export type { DialectOptions } from './contract/dialects/routes.js';
export type { BreethOptions } from './contract/dialects/breeth.js';
export type { TablestoreOptions } from './contract/dialects/tablestore.js';
export type { SearchTrace, Notice } from './search/search.js';
export type { Extractor, Extraction, Segment } from './write/extraction.js';
export { createRulesExtractor } from './write/rules-extractor.js';
export { createStaticEmbedder } from './models/static-embedder.js';
export { parseStaticModel } from './models/static-model.js';
export { loadStaticModelFromUrl, createDefaultEmbedder } from './models/load-static-model.js';
export { createOpenAiCompatibleLlm } from './models/openai-compatible-llm.js';
export { createWebLlm } from './models/webllm-llm.js';
export { createLlmReranker } from './models/llm-reranker.js';
export { createOnnxSentenceEmbedder } from './models/onnx-sentence-embedder.js';
export { createCrossEncoderReranker } from './models/cross-encoder-reranker.js';
