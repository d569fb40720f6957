/** pdfjs-dist ships no types for its parser module; the browser loader only hands it back to pdfjs. */
declare module 'pdfjs-dist/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
