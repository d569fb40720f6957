import { afterEach, describe, expect, it, vi } from 'vitest';
import { isMemoryError } from '../../src/errors.js';
import type { MemoryError } from '../../src/errors.js';
import { createWebLlm, detectWebGpu } from '../../src/models/webllm-llm.js';
import type { LlmLoadProgress, WebLlmChatRequest, WebLlmEngine, WebLlmEngineFactory } from '../../src/models/webllm-llm.js';

// Node has no WebGPU, so these tests give the provider a stand-in `navigator.gpu` and an engine
// double; the real WebLLM engine is exercised in Chromium by test/browser/webllm.test.ts.

const swiftShader = { info: { vendor: 'google', architecture: 'swiftshader', device: '', description: 'SwiftShader', isFallbackAdapter: true }, features: new Set(['shader-f16']) };

function stubGpu(adapter: unknown): void {
  vi.stubGlobal('navigator', { gpu: { requestAdapter: () => Promise.resolve(adapter) } });
}

interface EngineDouble extends WebLlmEngine {
  requests: WebLlmChatRequest[];
  interrupted: number;
  unloaded: number;
}

function engineDouble(answer: (request: WebLlmChatRequest) => Promise<string | null>): EngineDouble {
  const double: EngineDouble = {
    requests: [],
    interrupted: 0,
    unloaded: 0,
    chat: {
      completions: {
        create: async (request) => {
          double.requests.push(request);
          return { choices: [{ message: { content: await answer(request) }, finish_reason: 'stop' }] };
        },
      },
    },
    interruptGenerate: () => {
      double.interrupted++;
    },
    unload: () => {
      double.unloaded++;
      return Promise.resolve();
    },
  };
  return double;
}

async function caught(promise: Promise<unknown>): Promise<MemoryError> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  if (isMemoryError(error)) return error;
  throw new Error(`expected a MemoryError, got ${String(error)}`);
}

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('detectWebGpu', () => {
  it('answers WEBGPU_UNAVAILABLE without navigator.gpu', async () => {
    vi.stubGlobal('navigator', {});
    const error = await caught(detectWebGpu());

    expect(error.code).toBe('WEBGPU_UNAVAILABLE');
    expect(error.details).toMatchObject({ reason: 'no-navigator-gpu' });
  });

  it('answers WEBGPU_UNAVAILABLE when no adapter is granted', async () => {
    stubGpu(null);

    expect((await caught(detectWebGpu())).details).toMatchObject({ reason: 'no-adapter' });
  });

  it('summarises the adapter', async () => {
    stubGpu(swiftShader);

    expect(await detectWebGpu()).toEqual({ vendor: 'google', architecture: 'swiftshader', device: '', description: 'SwiftShader', isFallbackAdapter: true, features: ['shader-f16'] });
  });
});

describe('createWebLlm with an engine double', () => {
  it('checks WebGPU before creating any engine', async () => {
    vi.stubGlobal('navigator', {});
    const factory = vi.fn<WebLlmEngineFactory>();
    const error = await caught(createWebLlm({ model: 'm', engineFactory: factory }));

    expect(error.code).toBe('WEBGPU_UNAVAILABLE');
    expect(factory).not.toHaveBeenCalled();
  });

  it('reports progress, and maps requests to WebLLM’s json_object format', async () => {
    stubGpu(swiftShader);
    const engine = engineDouble(() => Promise.resolve('{"ok":true}'));
    const progress: LlmLoadProgress[] = [];
    const appConfig = { model_list: [] };
    const llm = await createWebLlm({
      model: 'tiny-MLC',
      appConfig,
      onProgress: (p) => progress.push(p),
      engineFactory: (model, config) => {
        expect(model).toBe('tiny-MLC');
        expect(config.appConfig).toBe(appConfig);
        config.initProgressCallback({ progress: 0.5, timeElapsed: 1, text: 'Fetching params 50%' });
        config.initProgressCallback({ progress: 1, timeElapsed: 2, text: 'Finish loading' });
        return Promise.resolve(engine);
      },
    });
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const text = await llm.complete({ messages: [{ role: 'user', content: 'hi' }], jsonSchema: schema, temperature: 0, maxTokens: 20 });

    expect(text).toBe('{"ok":true}');
    expect(progress).toEqual([
      { phase: 'llm', loaded: 0.5, text: 'Fetching params 50%' },
      { phase: 'llm', loaded: 1, text: 'Finish loading' },
    ]);
    expect(engine.requests).toEqual([
      { messages: [{ role: 'user', content: 'hi' }], stream: false, temperature: 0, max_tokens: 20, response_format: { type: 'json_object', schema: JSON.stringify(schema) } },
    ]);
    expect(llm.id).toBe('webllm:tiny-MLC');
    expect(llm.adapter.architecture).toBe('swiftshader');
  });

  it('wraps a load failure as MODEL_UNAVAILABLE with the model id', async () => {
    stubGpu(swiftShader);
    const notFound = Object.assign(new Error('Cannot find model record in appConfig for nope'), { name: 'ModelNotFoundError' });
    const appConfig = { model_list: [{ model: 'https://models.example/nope/', model_id: 'nope', model_lib: 'https://models.example/nope.wasm' }] };
    const error = await caught(createWebLlm({ model: 'nope', appConfig, engineFactory: () => Promise.reject(notFound) }));

    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.details).toEqual({ model: 'nope', reason: 'ModelNotFoundError', modelUrl: 'https://models.example/nope/', modelLibUrl: 'https://models.example/nope.wasm' });
    expect(error.cause).toBe(notFound);
  });

  it('maps WebLLM’s own WebGPU failure to WEBGPU_UNAVAILABLE', async () => {
    stubGpu(swiftShader);
    const noGpu = Object.assign(new Error('WebGPU is not supported'), { name: 'WebGPUNotAvailableError' });

    expect((await caught(createWebLlm({ model: 'm', engineFactory: () => Promise.reject(noGpu) }))).code).toBe('WEBGPU_UNAVAILABLE');
  });

  it('ends a load that never finishes with MODEL_UNAVAILABLE and aborts the factory', async () => {
    stubGpu(swiftShader);
    let factorySignal: AbortSignal | undefined;
    const started = Date.now();
    const error = await caught(
      createWebLlm({
        model: 'slow',
        loadTimeoutMs: 100,
        engineFactory: (_model, _config, signal) => {
          factorySignal = signal;
          return never();
        },
      }),
    );

    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.details).toMatchObject({ model: 'slow', reason: 'load-timeout' });
    expect(factorySignal?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('ends a load with ABORTED when the caller aborts', async () => {
    stubGpu(swiftShader);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);

    expect((await caught(createWebLlm({ model: 'm', signal: controller.signal, engineFactory: () => never() }))).code).toBe('ABORTED');
  });

  it('interrupts a generation that outlasts timeoutMs and answers LLM_TIMEOUT', async () => {
    stubGpu(swiftShader);
    const engine = engineDouble(() => never());
    const llm = await createWebLlm({ model: 'm', timeoutMs: 100, engineFactory: () => Promise.resolve(engine) });

    expect((await caught(llm.complete({ messages: [{ role: 'user', content: 'hi' }] }))).code).toBe('LLM_TIMEOUT');
    expect(engine.interrupted).toBe(1);
  });

  it('interrupts a generation the caller aborts and answers ABORTED', async () => {
    stubGpu(swiftShader);
    const engine = engineDouble(() => never());
    const llm = await createWebLlm({ model: 'm', engineFactory: () => Promise.resolve(engine) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);

    expect((await caught(llm.complete({ messages: [{ role: 'user', content: 'hi' }], signal: controller.signal }))).code).toBe('ABORTED');
    expect(engine.interrupted).toBe(1);
  });

  it('wraps generation errors as MODEL_FAILED and empty content as LLM_BAD_OUTPUT', async () => {
    stubGpu(swiftShader);
    const answers = [Promise.reject(new Error('device lost')), Promise.resolve(null)];
    answers[0]?.catch(() => undefined);
    const engine = engineDouble(() => answers.shift() ?? never());
    const llm = await createWebLlm({ model: 'm', engineFactory: () => Promise.resolve(engine) });
    const messages = [{ role: 'user' as const, content: 'hi' }];

    expect((await caught(llm.complete({ messages }))).code).toBe('MODEL_FAILED');
    expect((await caught(llm.complete({ messages }))).code).toBe('LLM_BAD_OUTPUT');
  });

  it('unloads on close and refuses completions afterwards', async () => {
    stubGpu(swiftShader);
    const engine = engineDouble(() => Promise.resolve('x'));
    const llm = await createWebLlm({ model: 'm', engineFactory: () => Promise.resolve(engine) });
    await llm.close();
    await llm.close();

    expect(engine.unloaded).toBe(1);
    expect((await caught(llm.complete({ messages: [{ role: 'user', content: 'hi' }] }))).code).toBe('CLOSED');
  });
});
