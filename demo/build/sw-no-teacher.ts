/**
 * The service worker's stand-in for the teacher reranker's loader (teacher-browser.ts). The
 * service worker hosts the memory only while no tab has it open, and opens it without a reranker;
 * inlined, TensorFlow.js would add about 0.75 MB to sw.js for code that never runs there.
 */
import { MemoryError } from '../../src/errors.js';

export function createBrowserTeacherReranker(): Promise<never> {
  return Promise.reject(new MemoryError('MODEL_UNAVAILABLE', { message: 'The teacher reranker is not part of the service worker bundle.' }));
}
