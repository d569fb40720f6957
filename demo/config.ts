/** Names the app and its service worker share. */

/** The memory the demo opens: its IndexedDB database, Web Lock and channel are `engram:<name>`. */
export const MEMORY_NAME = 'engram-demo';

/** The bundled embedding model, relative to the app (copied there by the build). */
export const MODEL_PATH = 'models/static-en/model.bin';

/** The teacher reranker's model (Universal Sentence Encoder lite, 28 MB), relative to the app (copied there by the build; not precached). */
export const TEACHER_DIR = 'teacher/';

/** Where TensorFlow.js's WebAssembly binaries are served: beside the memory worker's script, where TensorFlow.js looks first. */
export const TFJS_WASM_DIR = 'assets/';

/** Every cache the service worker owns starts with this; old versions are deleted on activate. */
export const CACHE_PREFIX = 'engram-demo-';

/** What the page asks the service worker over `postMessage`, and what it answers. */
export const SW_STATUS_REQUEST = 'engram-demo:status';

/** The service worker's answer to `SW_STATUS_REQUEST`. */
export interface ServiceWorkerStatus {
  version: string;
  precached: number;
  /** Whether every precached file (the model included) is in the cache right now. */
  complete: boolean;
  /** `host`: the service worker opened the memory itself (no tab did); `forwarding`: it relays to a tab; `idle`: no API call yet. */
  bridge: 'host' | 'forwarding' | 'idle';
}
