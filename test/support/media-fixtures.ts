/**
 * The media fixtures of test/fixtures/media (made by make-fixtures.mjs) as the multimodal tests
 * of every host use them: the files as base64 (read from disk in Node by media-files.ts and
 * handed to Chromium and workerd), the words each one is found by, and one add request that
 * carries all four.
 */
export interface MediaFixtures {
  pdf: string;
  markdown: string;
  png: string;
  wav: string;
}

/** The words each fixture is found by, and those it must not be confused with. */
export const PDF_PAGE_TWO_QUERY = 'observatory telescope repair euros';
export const PDF_PAGE_ONE_QUERY = 'lighthouse keeper tide height';
export const PNG_CAPTION = 'A red kite flying above the dunes at Texel beach';
export const PNG_QUERY = 'red kite over the dunes';
export const WAV_TRANSCRIPT = 'Remember to call the piano tuner on Friday about the old Steinway.';
export const WAV_QUERY = 'piano tuner Steinway';
export const MARKDOWN_QUERY = 'drip irrigation at dawn';

/** An add request carrying all four fixtures, as one user's conversation with metadata. */
export function mediaConversation(f: MediaFixtures, opts: { session_id: string; user: string; t0: number; metadata?: Record<string, string> }) {
  const { session_id, user, t0 } = opts;
  const msg = (i: number, content: unknown[]) => ({ sender_id: user, sender_name: 'Ann', role: 'user', timestamp: t0 + i * 60_000, content });
  return {
    session_id,
    ...(opts.metadata ? { metadata: opts.metadata } : {}),
    messages: [
      msg(0, [{ type: 'text', text: 'Here is the harbour survey you asked for.' }, { type: 'pdf', name: 'harbour-survey.pdf', base64: f.pdf }]),
      msg(1, [{ type: 'text', text: 'And a photo from the weekend.' }, { type: 'image', name: 'kite.png', mime_type: 'image/png', base64: f.png, caption: PNG_CAPTION }]),
      msg(2, [{ type: 'doc', name: 'garden-notes.md', mime_type: 'text/markdown', base64: f.markdown }]),
      msg(3, [{ type: 'audio', name: 'memo.wav', uri: `data:audio/wav;base64,${f.wav}`, transcript: WAV_TRANSCRIPT }]),
    ],
  };
}
