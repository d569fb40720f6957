/**
 * The Durable Object holding one tenancy's memory (one app_id + project_id). It opens the engine
 * on its first request, from its own SQLite storage (the engine rebuilds its indexes from the
 * stored items), and serves the runtime-agnostic HTTP handler. It takes requests only from the
 * Worker, which has already authenticated them; it still refuses a body outside its tenancy.
 */
import { createMemory, type Memory, type MemoryStats } from '../src/engine.js';
import { MemoryError } from '../src/errors.js';
import { createFetchHandler } from '../src/http/handler.js';
import { handleMcpRequest } from '../src/mcp/http.js';
import { createDurableObjectStore } from '../src/store/durable-object-store.js';
import { bodyInTenancy, parseTenancyName, TENANCY_HEADER } from './auth.js';
import type { EdgeEnv, MemoryObjectState } from './edge-env.js';
import { edgeEmbedder, edgeLlm } from './edge-models.js';
import { edgeEncryption } from './edge-encryption.js';

export class MemoryObject {
  private readonly ctx: MemoryObjectState;
  private readonly env: EdgeEnv;
  private opening: Promise<Memory> | undefined;
  private readonly handler: (request: Request) => Promise<Response>;
  private readonly noticed = new Set<string>();

  constructor(ctx: MemoryObjectState, env: EdgeEnv) {
    this.ctx = ctx;
    this.env = env;
    this.handler = createFetchHandler((request, body) => this.pick(request, body), {
      onError: (error) => console.error('[engram] unexpected error', error),
      // pick() has checked the header names this object's tenancy; MCP calls stay inside it.
      mcp: (memory, request) => {
        const tenancy = parseTenancyName(request.headers.get(TENANCY_HEADER) ?? '');
        return handleMcpRequest(memory, request, tenancy ? { tenancy } : {});
      },
    });
  }

  fetch(request: Request): Promise<Response> {
    return this.handler(request);
  }

  /** The engine's counters, opening it if needed (for operators and tests). */
  async stats(): Promise<MemoryStats> {
    return (await this.memory()).stats();
  }

  /** Whether this instance has opened its engine yet (it does so on its first request). */
  get opened(): boolean {
    return this.opening !== undefined;
  }

  private async pick(request: Request, body: unknown): Promise<Memory> {
    const name = request.headers.get(TENANCY_HEADER) ?? '';
    const tenancy = parseTenancyName(name);
    const own = this.ctx.id.name;
    if (!tenancy || (own !== undefined && own !== name) || !bodyInTenancy(body, tenancy)) throw new MemoryError('FORBIDDEN');
    return this.memory();
  }

  private memory(): Promise<Memory> {
    this.opening ??= this.open().catch((error: unknown) => {
      this.opening = undefined; // a failed open (say, the model not loading) is retried by the next request
      throw error;
    });
    return this.opening;
  }

  private async open(): Promise<Memory> {
    return createMemory({
      store: createDurableObjectStore(this.ctx.storage),
      ...edgeEncryption(this.env),
      embedder: await edgeEmbedder(this.env),
      llm: edgeLlm(this.env),
      // pdfjs cannot run in workerd (no DOMMatrix) and would take half the bundle's size budget:
      // PDFs are kept by reference here, and `add` answers with a notice saying so.
      pdf: null,
      onNotice: (notice) => {
        // Degraded paths are reported once per object, not once per request.
        if (this.noticed.has(notice.code)) return;
        this.noticed.add(notice.code);
        console.warn(`[engram] ${notice.code}: ${notice.message}`);
      },
    });
  }
}
