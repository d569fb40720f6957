/**
 * The worker thread of `createThreadedAnalyser` (Node): loads the English model once and tags the
 * texts it is sent, posting each text's sentences as soon as they are tagged, so the thread that
 * asked can read the first message while the later ones are still being tagged.
 */
import { parentPort } from 'node:worker_threads';
import { english } from '../write/language.js';
import { analyse } from '../write/sentences.js';
import { packSentences } from '../write/sentence-wire.js';

/** A batch to tag. */
export interface AnalyserRequest {
  id: number;
  texts: string[];
}

/** One tagged text of a batch (`packed`, else the sentences as objects), or the batch's failure. */
export type AnalyserReply = { id: number; i: number; packed: string } | { id: number; i: number; sentences: unknown } | { id: number; error: string };

const port = parentPort;
port?.on('message', ({ id, texts }: AnalyserRequest) => {
  english().then(
    (language) => {
      for (let i = 0; i < texts.length; i++) {
        const text = texts[i]!;
        let reply: AnalyserReply;
        try {
          const sentences = analyse(text, language);
          const packed = packSentences(text, sentences);
          reply = packed === null ? { id, i, sentences } : { id, i, packed };
        } catch (error) {
          reply = { id, error: error instanceof Error ? error.message : String(error) };
        }
        port.postMessage(reply);
        if ('error' in reply) return;
      }
    },
    (error: unknown) => port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies AnalyserReply),
  );
});
