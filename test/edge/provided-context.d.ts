/** What global-setup.ts hands to the edge tests through vitest's `provide` / `inject`. */
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Worker bundle as `wrangler deploy --dry-run` builds it. */
    edgeBundle: { file: string; text: string; bytes: number; gzipBytes: number };
  }
}
