/**
 * WebLLM's stand-in for the demo's memory worker and service worker. The demo runs WebLLM in the
 * page only (the status pane loads it when a person asks for an LLM), yet both workers import the
 * engine's WebLLM provider, so each bundle carried its own copy of WebLLM's ~6 MB runtime, and
 * sw.js (one classic script, no lazy chunks) carried it inline. Asking a worker for WebLLM in the
 * demo build fails with this error, which the provider wraps as MODEL_FAILED.
 */
export class MLCEngine {
  constructor() {
    throw new Error('WebLLM runs in the page in this demo, not in its workers');
  }
}
